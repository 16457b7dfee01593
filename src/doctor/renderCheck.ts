import { buildUrl } from '../upstream/transport/url';
import { RENDER_PATH } from '../upstream/datasources/recommenderAPI';
import { fail, pass, type CheckResult } from './checkResult';
import { isRecord } from './json';
import { callUpstream, describeAnswer, type UpstreamAnswer } from './upstreamCall';

export const RENDER_CHECK = 'render.json';

export interface RenderTarget {
  recommenderUrl: string;
  experienceId: string;
  /** render.json needs a domain when it gets no canonical_url (contract §3). */
  domain: string;
  /** Where the experience id comes from, as a user would edit it. */
  experienceFrom: string;
  timeoutMs: number;
  /** Removes secrets from the upstream's words (see callUpstream). */
  scrub: (text: string) => string;
}

/** One render.json call for the configured experience. It carries no credential (contract §3). */
export async function checkRender(target: RenderTarget): Promise<CheckResult> {
  let answer: UpstreamAnswer;
  try {
    answer = await callUpstream({
      url: buildUrl(target.recommenderUrl, RENDER_PATH, { id: target.experienceId, domain: target.domain }),
      method: 'GET',
      timeoutMs: target.timeoutMs,
      scrub: target.scrub,
    });
  } catch (error) {
    return fail(RENDER_CHECK, (error as Error).message, 'run again; if it persists, check the recommender host (see the host line above)');
  }
  const seen = describeAnswer(answer);
  const asked = `experience ${target.experienceId} on ${target.domain}`;
  if (answer.status === 200) {
    const recommendation = isRecord(answer.json) ? answer.json.recommendation : undefined;
    return Array.isArray(recommendation)
      ? pass(RENDER_CHECK, `${asked}: 200, ${recommendation.length} recommendation${recommendation.length === 1 ? '' : 's'}`)
      : fail(
          RENDER_CHECK,
          `${asked}: 200 but not a recommendation list: ${seen}`,
          'check that RECOMMENDER_URL is the recommender host itself',
        );
  }
  switch (answer.status) {
    case 404:
      return fail(RENDER_CHECK, `${asked}: not found: ${seen}`, `check ${target.experienceFrom}: the id in the experience manager's URL`);
    case 400:
      return fail(RENDER_CHECK, `${asked}: refused as invalid: ${seen}`, `check ${target.experienceFrom} and the domain`);
    case 429:
      return fail(RENDER_CHECK, `${asked}: rate limited: ${seen}`, `wait ${answer.retryAfterSeconds ?? 60} s and run again`);
    default:
      return fail(
        RENDER_CHECK,
        `${asked}: unexpected answer: ${seen}`,
        answer.status >= 500 ? 'the recommender failed; run again later' : 'check RECOMMENDER_URL',
      );
  }
}
