import { HeldSecrets } from './secret';

/**
 * The doctor's redaction: the secrets of one doctor run only (not the
 * process's), in every form HeldSecrets knows. The password is held before
 * the configuration is even read, in case a problem message quotes it; the
 * run adds the credentials and the token it receives.
 */
export function doctorRedaction(env: NodeJS.ProcessEnv): HeldSecrets {
  const secrets = new HeldSecrets();
  if (env.REPORTING_PASSWORD !== undefined) secrets.hold(env.REPORTING_PASSWORD);
  return secrets;
}
