export { EmulatorStore } from './store';
export { Dictionary } from './dictionary';
export * from './types';
