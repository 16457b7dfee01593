import { UpstreamError } from '../../src/kernel/failures/upstreamError';

/** The UpstreamError `work` rejects with; fails the test when it resolves or rejects with anything else. */
export async function rejection(work: Promise<unknown>): Promise<UpstreamError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}
