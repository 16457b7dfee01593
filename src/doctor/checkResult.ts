/** What one check concluded; `fix` says what to do, and is only given for a failure. */
export type CheckResult =
  | { status: 'pass'; check: string; detail: string }
  | { status: 'fail'; check: string; detail: string; fix: string }
  | { status: 'skip'; check: string; detail: string };

export const pass = (check: string, detail: string): CheckResult => ({ status: 'pass', check, detail });
export const fail = (check: string, detail: string, fix: string): CheckResult => ({ status: 'fail', check, detail, fix });
export const skip = (check: string, detail: string): CheckResult => ({ status: 'skip', check, detail });

const LABELS: Record<CheckResult['status'], string> = { pass: 'pass', fail: 'FAIL', skip: 'skip' };

/** One line per check, the status first so the output can be scanned (and grepped) by its left column. */
export function formatResult(result: CheckResult): string {
  const line = `${LABELS[result.status]}  ${result.check}: ${result.detail}`;
  return result.status === 'fail' ? `${line} → ${result.fix}` : line;
}

/** A line that is not a check's outcome, such as the warning before budget is spent. */
export const formatNote = (check: string, text: string): string => `note  ${check}: ${text}`;
