export { EmulatorStore } from './store';
export { Dictionary } from './dictionary';
export { PageViewTable } from './pageViews';
export * from './types';
