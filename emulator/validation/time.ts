/** `yyyy-MM-dd HH:mm:ss`, UTC: the upstream's wire format. */
const WIRE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
/** ISO-8601 date-time with an explicit zone (`Z` or ±hh:mm); local times are ambiguous. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Epoch ms of a wire-format or ISO-8601 timestamp, or null. The calendar
 * fields are checked as written, so `2026-02-30` is refused instead of being
 * rolled over into March.
 */
export function parseTimestamp(text: string): number | null {
  const wire = WIRE.exec(text);
  if (wire) {
    const [, y, mo, d, h, mi, s] = wire.map(Number);
    return validCalendar(y, mo, d, h, mi, s) ? Date.UTC(y, mo - 1, d, h, mi, s) : null;
  }
  const iso = ISO.exec(text);
  if (iso) {
    const [y, mo, d, h, mi] = iso.slice(1, 6).map(Number);
    const s = iso[6] === undefined ? 0 : Number(iso[6]);
    if (!validCalendar(y, mo, d, h, mi, s) || !validZone(iso[7])) return null;
    const ms = Date.parse(text);
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}

function validCalendar(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  if (y < 1970 || mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59) return false;
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d >= 1 && d <= daysInMonth;
}

function validZone(zone: string): boolean {
  if (zone === 'Z') return true;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  return hours <= 23 && minutes <= 59;
}
