import type { ServerResponse } from 'node:http';
import { sendJson, startFakeUpstream, type FakeUpstream } from './fakeUpstream';

/** The test helper's own guarantee: no request outlives the test that sent it. */
describe('fake upstream reset', () => {
  let upstream: FakeUpstream;
  let held: ServerResponse[];

  beforeEach(async () => {
    held = [];
    upstream = await startFakeUpstream((_request, response) => {
      held.push(response);
    });
  });

  afterEach(async () => {
    await upstream.close();
  });

  /** Sends a request and resolves once the upstream holds it (wrapped: an async function would adopt the answer's promise). */
  async function sendAndHold(path: string): Promise<{ answer: Promise<Response | Error> }> {
    const arrived = new Promise<void>((resolve) => upstream.handle((_request, response) => (held.push(response), resolve())));
    const answer = fetch(`${upstream.url}${path}`).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    await arrived;
    return { answer };
  }

  test('waits for a request answered after reset began, then forgets it', async () => {
    const { answer } = await sendAndHold('/slow');

    const reset = upstream.reset();
    sendJson(held[0], 200, { ok: true });

    await expect(reset).resolves.toBeUndefined();
    expect(await answer).toMatchObject({ status: 200 });
    expect(upstream.requests).toEqual([]);
  });

  test('rejects naming the requests left in flight, and drops them so the next test starts clean', async () => {
    const { answer: first } = await sendAndHold('/never?x=1');
    const { answer: second } = await sendAndHold('/never-either');

    await expect(upstream.reset(50)).rejects.toThrow(
      '2 request(s) still in flight at the end of the test: GET /never?x=1, GET /never-either',
    );
    expect(await first).toBeInstanceOf(Error);
    expect(await second).toBeInstanceOf(Error);
    await expect(upstream.reset(50)).resolves.toBeUndefined();
  });
});
