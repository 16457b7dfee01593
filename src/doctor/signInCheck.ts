import { buildUrl } from '../upstream/transport/url';
import { SIGN_IN_PATH } from '../kernel/wire';
import { fail, pass, type CheckResult } from './checkResult';
import { isRecord, readString } from './json';
import { tokenValidity } from './tokenValidity';
import { callUpstream, describeAnswer, type UpstreamAnswer } from './upstreamCall';

const CHECK = 'sign-in';

export interface SignInTarget {
  baseUrl: string;
  email: string;
  password: string;
  /** Where the credentials come from, as a user would edit them. */
  credentialsFrom: string;
  timeoutMs: number;
  /** Removes secrets from the upstream's words (see callUpstream). */
  scrub: (text: string) => string;
  nowMs: () => number;
}

export interface SignInOutcome {
  result: CheckResult;
  /** For the checks that follow; never printed. */
  token?: string;
  /** The signed-in user's site, which render.json can be asked for. */
  siteDomain?: string;
}

/** One sign-in (contract §1), naming the cause of a refusal from its status and body. */
export async function checkSignIn(target: SignInTarget): Promise<SignInOutcome> {
  let answer: UpstreamAnswer;
  try {
    answer = await callUpstream({
      url: buildUrl(target.baseUrl, SIGN_IN_PATH),
      method: 'POST',
      body: { email: target.email, password: target.password },
      timeoutMs: target.timeoutMs,
      scrub: target.scrub,
    });
  } catch (error) {
    return {
      result: fail(CHECK, (error as Error).message, 'run again; if it persists, check the reporting host (see the host line above)'),
    };
  }
  if (answer.status !== 200) return { result: refusal(answer, target) };

  const token = readString(answer.json, 'token');
  if (token === undefined || token === '') {
    return {
      result: fail(
        CHECK,
        `200 without a token (${answer.message})`,
        'check that REPORTING_BASE_URL is the reporting API itself, not a web page',
      ),
    };
  }
  const validity = tokenValidity(token, target.nowMs());
  const role = readString(answer.json, 'role');
  const signedIn = `${target.email} signed in${role === undefined ? '' : ` (role ${role})`}`;
  const result =
    validity.kind === 'expired'
      ? fail(CHECK, `${signedIn}, but ${validity.text}`, "check this machine's clock (NTP): the subgraph would sign in again on every call")
      : pass(CHECK, `${signedIn}; ${validity.text}`);
  const site = isRecord(answer.json) ? answer.json.Site : undefined;
  const siteDomain = readString(site, 'domain');
  return { result, token, ...(siteDomain === undefined ? {} : { siteDomain }) };
}

/** The causes the contract (§1) tells apart, each with what to do about it. */
function refusal(answer: UpstreamAnswer, target: SignInTarget): CheckResult {
  const seen = describeAnswer(answer);
  const msg = answer.message;
  switch (answer.status) {
    case 401:
      return fail(CHECK, `wrong email or password: ${seen}`, `check ${target.credentialsFrom} (with single sign-on, the API password)`);
    case 403:
      if (/admin/i.test(msg)) {
        return fail(
          CHECK,
          `admin users cannot use the API when the organization enforces single sign-on: ${seen}`,
          'use a user without the admin role that has the API role',
        );
      }
      if (/api password|forgot-password/i.test(msg)) {
        return fail(
          CHECK,
          `the organization enforces single sign-on and ${target.email} has no API password: ${seen}`,
          'set an API password with the forgot-password option and put it in REPORTING_PASSWORD',
        );
      }
      if (/role/i.test(msg)) {
        return fail(
          CHECK,
          `${target.email} lacks the API role: ${seen}`,
          `ask an administrator of the account to give ${target.email} the API role`,
        );
      }
      return fail(
        CHECK,
        `refused: ${seen}`,
        'check that the user has the API role and, with single sign-on, is not an admin and has an API password',
      );
    case 429: {
      const wait = answer.retryAfterSeconds === undefined ? 'a minute' : `${answer.retryAfterSeconds} s`;
      return fail(
        CHECK,
        `rate limited: ${seen}`,
        `wait ${wait} and run again; sign-ins are limited per email, and a running subgraph with the same email shares the budget`,
      );
    }
    case 400:
      return fail(CHECK, `the request was refused as invalid: ${seen}`, `check ${target.credentialsFrom}`);
    case 404:
    case 405:
      return fail(
        CHECK,
        `no sign-in endpoint: ${seen}`,
        `check REPORTING_BASE_URL: it is the API's base URL (the sign-in is ${SIGN_IN_PATH} below it)`,
      );
    default:
      return fail(
        CHECK,
        `unexpected answer: ${seen}`,
        answer.status >= 500 ? 'the reporting host failed; run again later' : 'check REPORTING_BASE_URL',
      );
  }
}
