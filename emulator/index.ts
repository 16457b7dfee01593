/**
 * The upstream emulator's public API: the subgraph starts it in-process when
 * no upstream is configured, and tests start it on port 0.
 */
export { startEmulator, type RunningEmulator } from './server';
export { emulatorOptionsFromEnv, type EmulatorOptions, type RateOptions } from './config';
export { DEMO_API_USER, type DemoCredential } from './auth/demoUsers';
export type { EmulatorStore, Experience } from './store';
export type { Clock } from './clock';
