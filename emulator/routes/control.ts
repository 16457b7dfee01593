import { ClockRangeError } from '../clock';
import type { EmulatorContext } from '../context';
import { failureReply, invalidParamsReply, json, noContent } from '../http/reply';
import type { Router } from '../http/router';
import { parseFaultDefinition } from '../control/faults';
import { FieldReader, isRecord } from '../validation/fields';

/** The `/__emulator/*` test and operations hooks (docs/upstream-contract.md §4). */
export function addControlRoutes(router: Router, context: EmulatorContext): void {
  const { stats, faults } = context.instruments;

  router.add('GET', '/__emulator/stats', () => json(200, stats.snapshot()));
  router.add('DELETE', '/__emulator/stats', () => {
    stats.reset();
    return noContent();
  });

  router.add('GET', '/__emulator/faults', () => json(200, faults.list()));
  router.add('POST', '/__emulator/faults', async (request) => {
    const body = await request.json();
    if (!body.ok) return failureReply(body);
    const definition = parseFaultDefinition(body.value);
    return definition.ok ? json(201, faults.add(definition.value)) : failureReply(definition);
  });
  router.add('DELETE', '/__emulator/faults', () => {
    faults.clear();
    return noContent();
  });

  router.add('GET', '/__emulator/clock', () => json(200, { now: new Date(context.clock.now()).toISOString() }));
  router.add('POST', '/__emulator/clock', async (request) => {
    const body = await request.json();
    if (!body.ok) return failureReply(body);
    if (!isRecord(body.value)) return invalidParamsReply([{ path: 'body', message: 'must be a JSON object' }]);
    const fields = new FieldReader(body.value);
    fields.rejectUnknown(['advanceSeconds']);
    // Ten years is plenty for any expiry or window test and keeps dates printable.
    const seconds = fields.number('advanceSeconds', { required: true, min: 0, max: 10 * 366 * 86_400 });
    if (seconds === undefined || fields.errors.length > 0) return invalidParamsReply(fields.errors);
    try {
      context.clock.advance(seconds);
    } catch (error) {
      if (error instanceof ClockRangeError) return invalidParamsReply([{ path: 'advanceSeconds', message: error.message }]);
      throw error;
    }
    return json(200, { now: new Date(context.clock.now()).toISOString() });
  });
}
