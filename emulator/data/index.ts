export { generateDemoData, demoDataCounts, type DemoDataOptions, type DemoDataCounts } from './generate';
export { enrichPageView, type PageViewInput } from './enrich';
export { newExperienceId } from './experiences';
export { DEMO_DOMAINS, type DemoDomain } from './domains';
export { SECTIONS, VOCABULARY, type Section, type SectionVocabulary } from './vocabulary';
export { TRAFFIC_VALUES, DEVICE_TYPES, USER_TYPES, type DeviceType, type UserType } from './traffic';
export { RFV_WINDOW_MS, type PriorActivity } from './loyalty';
export { CPM_MICROS } from './monetization';
