import { readEmulatorEnv, type EmulatorBehaviour } from '../../contract/emulatorSettings';
import { Secret } from '../redaction/secret';
import type { EnvReader } from './env';

/** The embedded emulator's options: the `EMULATOR_*` variables of `npm run emulator` except where it listens. */
export type EmulatorOptions = EmulatorBehaviour;

export type UpstreamConfig =
  | { mode: 'embedded'; emulator: EmulatorOptions }
  | { mode: 'remote'; reportingBaseUrl: string; recommenderUrl: string; email: string; password: Secret };

/** The remote upstream is all-or-nothing: a partial set must never fall back to the emulator. */
const REMOTE_VARIABLES = ['REPORTING_BASE_URL', 'RECOMMENDER_URL', 'REPORTING_EMAIL', 'REPORTING_PASSWORD'] as const;

/** Which hosts to call and as whom: the real ones, or the embedded emulator when none is named. */
export function readUpstream(reader: EnvReader, env: NodeJS.ProcessEnv): UpstreamConfig {
  // REPORTING_PASSWORD may come from REPORTING_PASSWORD_FILE.
  const present = REMOTE_VARIABLES.filter((name) => reader.isSetOrFile(name));
  if (present.length === 0) {
    // The parser `npm run emulator` uses too (contract/), so each EMULATOR_* variable has one definition
    // and one set of limits; its problems join ours as configuration errors.
    const { options, problems } = readEmulatorEnv(env);
    for (const problem of problems) reader.problem(problem);
    return { mode: 'embedded', emulator: options };
  }
  const missing = REMOTE_VARIABLES.filter((name) => !reader.isSetOrFile(name));
  if (missing.length > 0) {
    reader.problem(
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: set all of ${REMOTE_VARIABLES.join(', ')} ` +
        `to use a remote upstream (${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} set), or none of them to use the embedded emulator`,
    );
  }
  const reportingBaseUrl = reader.httpUrl('REPORTING_BASE_URL') ?? '';
  const recommenderUrl = reader.httpUrl('RECOMMENDER_URL') ?? '';
  const email = readEmail(reader, 'REPORTING_EMAIL') ?? '';
  // Never trimmed and never echoed: whitespace may be part of a password. When
  // unusable, the problem is already recorded and the placeholder never leaves loadConfig.
  const password = new Secret(reader.valueOrFile('REPORTING_PASSWORD') ?? 'unset');
  return { mode: 'remote', reportingBaseUrl, recommenderUrl, email, password };
}

function readEmail(reader: EnvReader, name: string): string | undefined {
  const value = reader.raw(name);
  if (value === undefined) return undefined;
  if (/^[^\s@]+@[^\s@]+$/.test(value)) return value;
  reader.problem(`${name} must be an email address`);
  return undefined;
}
