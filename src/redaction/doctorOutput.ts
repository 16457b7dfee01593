import { HeldSecrets } from './secret';

/**
 * The doctor's redaction: the secrets of one doctor run only (not the
 * process's), in every form HeldSecrets knows. The password is held before
 * the configuration is even read, in case a problem message quotes it; the
 * run adds the credentials and the token it receives.
 */
export function doctorRedaction(env: NodeJS.ProcessEnv): HeldSecrets {
  const secrets = new HeldSecrets();
  // The callers' shared secrets too (CALLER_AUTH): the doctor reads them with the rest of the configuration.
  for (const name of [
    'REPORTING_PASSWORD',
    'ROUTER_SECRET',
    'ROUTER_SECRET_PREVIOUS',
    'ROUTER_HMAC_SECRET',
    'ROUTER_HMAC_SECRET_PREVIOUS',
  ]) {
    const value = env[name];
    if (value !== undefined) secrets.hold(value);
  }
  return secrets;
}
