import { ConfigError, loadConfig, type Config } from '../config';
import { fail, formatNote, formatResult, pass, skip, type CheckResult } from './checkResult';
import { describeCallerAuth } from './callerAuthSummary';
import { checkDashboard, DASHBOARD_CHECK } from './dashboardCheck';
import { resolveTarget, type DoctorTarget } from './doctorTarget';
import { checkReachable } from './reachability';
import { checkRender, RENDER_CHECK } from './renderCheck';
import { doctorRedaction } from '../redaction';
import type { HeldSecrets } from '../redaction/secret';
import { checkSignIn } from './signInCheck';

export interface DoctorOptions {
  /** Read exactly as `npm start` reads it. */
  env: NodeJS.ProcessEnv;
  /** False (`--no-spend`) skips the dashboard query, the one check that spends a slot of the account's query budget. */
  spend: boolean;
  /** The experience render.json is checked with (DOCTOR_EXPERIENCE_ID); unset skips that check against a remote upstream. */
  experienceId?: string;
  /** The domain render.json is asked for (DOCTOR_EXPERIENCE_DOMAIN); default: the signed-in user's site. */
  experienceDomain?: string;
  /** Receives each line as soon as it is known, already scrubbed of secrets. */
  write: (line: string) => void;
  /** The clock a token's remaining validity is measured with. */
  nowMs: () => number;
}

export interface DoctorReport {
  results: CheckResult[];
  /** 0 only when every check that ran passed. */
  exitCode: 0 | 1;
}

const CONFIG_CHECK = 'configuration';
const REPORTING_HOST = 'reporting host';
const RECOMMENDER_HOST = 'recommender host';
const SIGN_IN_CHECK = 'sign-in';

/** The checks, in order; each line is written before the next check starts, so a slow host shows where it hangs. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  // Every line leaves through it; the upstream's words also pass it before they are cut short (upstreamCall.ts),
  // since a cut could split a secret in two that neither half then matches.
  const secrets = doctorRedaction(options.env);
  const write = (line: string) => options.write(secrets.redact(line));
  const results: CheckResult[] = [];
  const report = (result: CheckResult) => {
    results.push(result);
    write(formatResult(result));
  };
  const done = (): DoctorReport => {
    const count = (status: CheckResult['status']) => results.filter((result) => result.status === status).length;
    write(`doctor: ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped`);
    return { results, exitCode: count('fail') === 0 ? 0 : 1 };
  };
  const skipTheRest = (reason: string) => {
    for (const check of [REPORTING_HOST, RECOMMENDER_HOST, SIGN_IN_CHECK, DASHBOARD_CHECK, RENDER_CHECK]) report(skip(check, reason));
  };

  let config: Config;
  try {
    config = loadConfig(options.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    report(fail(CONFIG_CHECK, error.problems.join('; '), 'fix the variables named here (docs/configuration.md) and run again'));
    skipTheRest('skipped: the configuration is invalid');
    return done();
  }

  let target: DoctorTarget;
  try {
    target = await resolveTarget(config, (error) => write(formatNote('embedded emulator', `error: ${String(error)}`)));
  } catch (error) {
    report(fail(CONFIG_CHECK, `the embedded emulator did not start: ${String(error)}`, 'check the EMULATOR_* variables'));
    skipTheRest('skipped: no embedded emulator to check');
    return done();
  }
  secrets.holdCredentials(target.email, target.password);
  try {
    report(pass(CONFIG_CHECK, describeConfig(config)));
    await runChecks(target, config, options, { report, write, secrets });
  } finally {
    await target.emulator?.close();
  }
  return done();
}

interface Output {
  report: (result: CheckResult) => void;
  write: (line: string) => void;
  secrets: HeldSecrets;
}

async function runChecks(target: DoctorTarget, config: Config, options: DoctorOptions, output: Output): Promise<void> {
  const { report, write } = output;
  const timeoutMs = config.upstreamTimeoutMs;
  const scrub = (text: string) => output.secrets.redact(text);
  const reportingHost = await checkReachable(
    { check: hostCheckName(REPORTING_HOST, target.reportingVariable), url: target.reportingBaseUrl, variable: target.reportingVariable },
    timeoutMs,
  );
  report(reportingHost);
  const recommenderHost = await checkReachable(
    {
      check: hostCheckName(RECOMMENDER_HOST, target.recommenderVariable),
      url: target.recommenderUrl,
      variable: target.recommenderVariable,
    },
    timeoutMs,
  );
  report(recommenderHost);

  let token: string | undefined;
  let siteDomain: string | undefined;
  if (reportingHost.status !== 'pass') {
    report(skip(SIGN_IN_CHECK, 'skipped: the reporting host is unreachable'));
  } else {
    const signIn = await checkSignIn({
      baseUrl: target.reportingBaseUrl,
      email: target.email,
      password: target.password,
      credentialsFrom: target.credentialsFrom,
      timeoutMs,
      scrub,
      nowMs: options.nowMs,
    });
    if (signIn.token !== undefined) output.secrets.hold(signIn.token);
    report(signIn.result);
    if (signIn.result.status === 'pass') token = signIn.token;
    siteDomain = signIn.siteDomain;
  }

  if (!options.spend) {
    report(skip(DASHBOARD_CHECK, 'skipped (--no-spend)'));
  } else if (token === undefined) {
    report(skip(DASHBOARD_CHECK, 'skipped: no signed-in token'));
  } else {
    // Said before it is spent: against the real host, this is about a minute of the account's budget.
    write(
      formatNote(
        DASHBOARD_CHECK,
        `sending one minimal query now: it spends 1 slot of the account's dashboard budget (the real host allows about 1 per minute); --no-spend skips it`,
      ),
    );
    report(await checkDashboard({ baseUrl: target.reportingBaseUrl, token, timeoutMs, scrub }));
  }

  const experience = chooseExperience(target, config, options, siteDomain);
  if (experience.kind === 'skip') {
    report(skip(RENDER_CHECK, experience.reason));
  } else if (recommenderHost.status !== 'pass') {
    report(skip(RENDER_CHECK, 'skipped: the recommender host is unreachable'));
  } else {
    report(await checkRender({ recommenderUrl: target.recommenderUrl, ...experience, timeoutMs, scrub }));
  }
}

type ExperienceChoice = { kind: 'check'; experienceId: string; domain: string; experienceFrom: string } | { kind: 'skip'; reason: string };

/** DOCTOR_EXPERIENCE_ID when set; against the embedded emulator, its first demo experience. */
function chooseExperience(target: DoctorTarget, config: Config, options: DoctorOptions, siteDomain: string | undefined): ExperienceChoice {
  const experienceId = options.experienceId ?? config.doctorExperienceId;
  if (experienceId !== undefined) {
    const domain = options.experienceDomain ?? config.doctorExperienceDomain ?? siteDomain;
    return domain === undefined
      ? { kind: 'skip', reason: "skipped: render.json needs the site's domain and no sign-in named one; set DOCTOR_EXPERIENCE_DOMAIN" }
      : { kind: 'check', experienceId, domain, experienceFrom: 'DOCTOR_EXPERIENCE_ID' };
  }
  const demo = target.emulator?.demo.experiences[0];
  if (demo !== undefined) {
    return {
      kind: 'check',
      experienceId: demo.id,
      domain: demo.domain,
      experienceFrom: 'the demo experience (DOCTOR_EXPERIENCE_ID is not set)',
    };
  }
  return {
    kind: 'skip',
    reason: 'skipped: set DOCTOR_EXPERIENCE_ID to an experience id (from the experience manager URL) to check render.json',
  };
}

/** "reporting host (REPORTING_BASE_URL)": where the URL comes from, so a failure points at what to edit. */
const hostCheckName = (host: string, variable: string | undefined): string => `${host} (${variable ?? 'embedded emulator'})`;

function describeConfig(config: Config): string {
  if (config.upstream.mode === 'remote') {
    return `valid; remote upstream, signing in as ${config.upstream.email}; ${describeCallerAuth(config)}`;
  }
  return `valid; no upstream configured (REPORTING_BASE_URL etc. unset), so the checks run against an embedded emulator with demo data, started here as \`npm start\` would; ${describeCallerAuth(config)}`;
}
