export { generateDemoData, demoDataCounts, type DemoDataOptions, type DemoDataCounts } from './generate';
export { enrichPageView, type PageViewInput } from './enrich';
export { newExperienceId, SEEDED_EXPERIENCES } from './experiences';
export { DEMO_DOMAINS, type DemoDomain } from './domains';
export { SECTIONS, VOCABULARY, type Section, type SectionVocabulary } from './vocabulary';
export {
  TRAFFIC_VALUES,
  TRAFFIC_DEFAULTS,
  DEVICE_TYPES,
  USER_TYPES,
  SOURCES,
  MEDIA,
  CAMPAIGNS,
  INTERNAL_SOURCES,
  INTERNAL_MEDIA,
  INTERNAL_CAMPAIGNS,
  defaultMediumFor,
  isDeviceType,
  isUserType,
  type DeviceType,
  type UserType,
} from './traffic';
export { RFV_WINDOW_MS, rfvScore, type PriorActivity } from './loyalty';
export { adsImpressionsFor, revenueMicrosFor, CPM_MICROS } from './monetization';
