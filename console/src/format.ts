import type { Grants, Schedule } from './types';

/** "ROUTE_STRATEGY_ROUND" → "round". */
export function enumLabel(v: string | undefined, prefix: string): string {
  if (!v || v.endsWith('_UNSPECIFIED')) return '—';
  return v.slice(prefix.length).toLowerCase().replace(/_/g, ' ');
}

/** "2026-11-25 06:00:00" in the browser's zone, or with the zone's name when `timeZone` is given. */
export function fmtTime(t: string | undefined, timeZone?: string): string {
  if (!t) return '—';
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return t;
  try {
    const parts = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: timeZone ? 'short' : undefined,
    }).formatToParts(d);
    const p = (k: string) => parts.find((x) => x.type === k)?.value ?? '';
    const zone = timeZone ? ` ${p('timeZoneName')}` : '';
    return `${p('year')}-${p('month')}-${p('day')} ${p('hour')}:${p('minute')}:${p('second')}${zone}`;
  } catch {
    return d.toISOString();
  }
}

/** "cron 0 0 6 * * ? (Europe/Berlin)", "every 2s", "delay 10s" or "manual"; then " · calendar NAME" and " · jitter 30s" when set. */
export function fmtSchedule(s: Schedule | undefined): string {
  const kind = s?.cron
    ? `cron ${s.cron.expression ?? ''}${s.cron.timeZone ? ` (${s.cron.timeZone})` : ''}`
    : s?.fixRate
      ? `every ${s.fixRate}`
      : s?.fixDelay
        ? `delay ${s.fixDelay}`
        : 'manual';
  const jitter = seconds(s?.jitter) > 0 ? ` · jitter ${s?.jitter}` : '';
  return `${kind}${s?.calendar ? ` · calendar ${s.calendar}` : ''}${jitter}`;
}

export function fmtGrants(g: Grants | undefined): string {
  if (g?.allGroups) return 'all groups';
  if (g?.groupIds?.length) return `groups ${g.groupIds.join(', ')}`;
  return '—';
}

/** "1.5s" → 1.5 */
export function seconds(d: string | undefined): number {
  return d ? parseFloat(d) : 0;
}

export function startOfToday(): Date {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d;
}
