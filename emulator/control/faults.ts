import { Random } from '../data/random';
import { invalidParams, ok, type Outcome } from '../outcome';
import { FieldReader, isRecord } from '../validation/fields';
import { TARGETS, type Target } from './targets';

export interface Fault {
  id: number;
  target: Target;
  /** Answer with this status (and a JSON error body) instead of the real response. */
  status: number | null;
  /** Share of the target's requests hit, 0..1. */
  rate: number;
  delayMs: number;
  /** Destroy the connection instead of answering. */
  reset: boolean;
}

export type FaultDefinition = Omit<Fault, 'id'>;

const MAX_DELAY_MS = 120_000;

/** Validates a `POST /__emulator/faults` body. */
export function parseFaultDefinition(body: unknown): Outcome<FaultDefinition> {
  if (!isRecord(body)) return invalidParams([{ path: 'body', message: 'must be a JSON object' }]);
  const fields = new FieldReader(body);
  fields.rejectUnknown(['target', 'status', 'rate', 'delayMs', 'reset']);
  const target = fields.oneOf('target', TARGETS, { required: true });
  const status = fields.integer('status', { min: 400, max: 599 });
  const rate = fields.number('rate', { min: 0, max: 1 }) ?? 1;
  const delayMs = fields.integer('delayMs', { min: 0, max: MAX_DELAY_MS }) ?? 0;
  const reset = fields.boolean('reset') ?? false;
  if (fields.errors.length === 0 && status === undefined && delayMs === 0 && !reset) {
    fields.fail('status', 'a fault needs at least one of status, delayMs > 0 or reset: true');
  }
  if (fields.errors.length > 0 || target === undefined) return invalidParams(fields.errors);
  return ok({ target, status: status ?? null, rate, delayMs, reset });
}

/**
 * The active faults. Each draws from its own generator seeded by the
 * emulator seed and the fault's id (ids restart after a clear), so the same
 * test run sees the same requests hit.
 */
export class FaultInjector {
  private faults: { fault: Fault; random: Random }[] = [];
  private nextId = 1;

  constructor(private readonly seed: number) {}

  add(definition: FaultDefinition): Fault {
    const fault: Fault = { id: this.nextId++, ...definition };
    this.faults.push({ fault, random: new Random(this.seed * 1_000_003 + fault.id) });
    return fault;
  }

  clear(): void {
    this.faults = [];
    this.nextId = 1;
  }

  list(): Fault[] {
    return this.faults.map((f) => f.fault);
  }

  /** The first of the target's faults (in the order added) that hits this request. */
  pick(target: Target): Fault | null {
    let picked: Fault | null = null;
    for (const { fault, random } of this.faults) {
      if (fault.target !== target) continue;
      // Every fault of the target draws, so one fault's pattern does not depend on another's.
      const hit = random.chance(fault.rate);
      if (hit && picked === null) picked = fault;
    }
    return picked;
  }
}
