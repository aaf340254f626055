// The job form's preview of its schedule (PreviewSchedule): the next fire times, the params each
// run gets, and, for a schedule naming a calendar, the slots the calendar skips between them.
import { useEffect, useState } from 'react';
import { call } from '../api';
import { fmtTime } from '../format';
import type { Schedule } from '../types';
import { ErrorBox } from '../ui';

/** Skipped slots listed by name; past this they are only counted. */
const MAX_SKIPPED_SHOWN = 10;
/** PreviewSchedule answers at most this many instants. */
const MAX_PREVIEW = 100;

interface Preview {
  times: string[];
  params: string[];
  /** The schedule's own slots before its last fire that its calendar does not allow. */
  skipped: string[];
  /** Whether there may be more skipped slots than `skipped` (the slots looked at ran out first). */
  moreSkipped: boolean;
}

interface PreviewAnswer {
  fireTimes?: string[];
  params?: string[];
}

/** The preview of `schedule`: with a calendar, a second preview without it shows which of its slots the calendar skips. */
async function preview(schedule: Schedule | undefined, params: string | undefined): Promise<Preview> {
  const fromTime = new Date().toISOString(); // The same instant for both previews.
  const r = await call<PreviewAnswer>('JobAdmin/PreviewSchedule', { schedule, count: 5, fromTime, ...(params ? { params } : {}) });
  const times = r.fireTimes ?? [];
  const out: Preview = { times, params: r.params ?? [], skipped: [], moreSkipped: false };
  if (!schedule?.calendar || times.length === 0) return out;
  const plain = { ...schedule, calendar: undefined };
  const all = (await call<PreviewAnswer>('JobAdmin/PreviewSchedule', { schedule: plain, count: MAX_PREVIEW, fromTime })).fireTimes ?? [];
  const last = Date.parse(times[times.length - 1]);
  const fires = new Set(times.map((t) => Date.parse(t)));
  out.skipped = all.filter((t) => Date.parse(t) < last && !fires.has(Date.parse(t)));
  out.moreSkipped = all.length === MAX_PREVIEW && Date.parse(all[all.length - 1]) < last;
  return out;
}

/**
 * The next 5 fire times of a schedule, with the params each run gets when they
 * hold $[...] templates, and the slots its calendar skips; asked again 300 ms
 * after either stops changing.
 */
export default function SchedulePreview({ schedule, params, timeZone }: { schedule?: Schedule; params: string; timeZone?: string }) {
  const templated = params.includes('$[');
  const key = JSON.stringify([schedule, templated ? params : '']);
  const [shown, setShown] = useState<Preview | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      preview(schedule, templated ? params : undefined).then(
        (p) => live && (setShown(p), setError(null)),
        (e) => live && (setShown(null), setError(e)),
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(t);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const skipped = shown?.skipped ?? [];
  return (
    <section className="panel" aria-labelledby="preview-h" aria-live="polite">
      <h2 id="preview-h">Next fire times{timeZone ? ` (${timeZone})` : ''}</h2>
      <ErrorBox error={error} />
      {shown && (
        <ol aria-label="Next fire times">
          {shown.times.map((t, i) => (
            <li key={t}>
              {fmtTime(t, timeZone || undefined)}
              {shown.params[i] !== undefined && (
                <>
                  {' — params '}
                  <code>{shown.params[i]}</code>
                </>
              )}
            </li>
          ))}
          {shown.times.length === 0 && <li>never fires{schedule?.calendar ? ` on a day and time calendar ${schedule.calendar} allows` : ''}</li>}
        </ol>
      )}
      {skipped.length > 0 && (
        <div className="preview-skipped">
          <p>
            Skipped by calendar {schedule?.calendar} ({skipped.length}
            {shown?.moreSkipped ? ' or more' : ''} between these):
          </p>
          <ul aria-label="Skipped by the calendar">
            {skipped.slice(0, MAX_SKIPPED_SHOWN).map((t) => (
              <li key={t}>{fmtTime(t, timeZone || undefined)}</li>
            ))}
            {skipped.length > MAX_SKIPPED_SHOWN && <li>and {skipped.length - MAX_SKIPPED_SHOWN} more</li>}
          </ul>
        </div>
      )}
    </section>
  );
}
