import { DEMO_API_USER, startEmulator, type RunningEmulator } from '../../emulator';
import type { Config } from '../config';

/** What the checks run against: the configured hosts, or an embedded emulator as `npm start` would start it. */
export interface DoctorTarget {
  reportingBaseUrl: string;
  recommenderUrl: string;
  /** The variables a user edits to change each URL; undefined for the embedded emulator. */
  reportingVariable: string | undefined;
  recommenderVariable: string | undefined;
  email: string;
  password: string;
  /** How a failure's fix names the credentials. */
  credentialsFrom: string;
  /** Started by the doctor; closed when it is done. */
  emulator?: RunningEmulator;
}

/**
 * With no upstream configured, `npm start` serves from an embedded emulator
 * with demo data; the doctor starts one the same way (same `EMULATOR_*`
 * options, demo API user), so it checks what `npm start` would use.
 */
export async function resolveTarget(config: Config, logError: (error: unknown) => void): Promise<DoctorTarget> {
  if (config.upstream.mode === 'remote') {
    const { reportingBaseUrl, recommenderUrl, email, password } = config.upstream;
    return {
      reportingBaseUrl,
      recommenderUrl,
      reportingVariable: 'REPORTING_BASE_URL',
      recommenderVariable: 'RECOMMENDER_URL',
      email,
      password: password.reveal(),
      credentialsFrom: 'REPORTING_EMAIL and REPORTING_PASSWORD',
    };
  }
  const emulator = await startEmulator({ port: 0, ...config.upstream.emulator, logError });
  return {
    reportingBaseUrl: emulator.url,
    recommenderUrl: emulator.url,
    reportingVariable: undefined,
    recommenderVariable: undefined,
    email: DEMO_API_USER.email,
    password: DEMO_API_USER.password,
    credentialsFrom: "the embedded emulator's demo credentials",
    emulator,
  };
}
