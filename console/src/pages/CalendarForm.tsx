// The create / edit form of a calendar (CreateCalendar, UpdateCalendar): the server checks the
// dates and windows and names the one it refuses ("calendar.windows[1]: ..."), shown under the form.
import { useState, type FormEvent } from 'react';
import { call } from '../api';
import { WEEKDAYS } from '../calendars';
import type { Calendar, Weekday } from '../types';
import { ErrorBox, Field } from '../ui';

/** The non-empty lines (or comma-separated items) of a text box. */
function lines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((x) => x.trim())
    .filter(Boolean);
}

/** `calendar` (none: a new one) as a form; `onDone(saved)` after a save (the server's answer) or a cancel (null). */
export default function CalendarForm({ calendar, onDone }: { calendar?: Calendar; onDone: (saved: Calendar | null) => void }) {
  const editing = !!calendar;
  const [name, setName] = useState(calendar?.name ?? '');
  const [description, setDescription] = useState(calendar?.description ?? '');
  const [timeZone, setTimeZone] = useState(calendar?.timeZone ?? '');
  const [weekdays, setWeekdays] = useState<Weekday[]>(calendar?.weekdays ?? []);
  const [excluded, setExcluded] = useState((calendar?.excludedDates ?? []).join('\n'));
  const [included, setIncluded] = useState((calendar?.includedDates ?? []).join('\n'));
  const [windows, setWindows] = useState((calendar?.windows ?? []).join('\n'));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (day: Weekday, on: boolean) => setWeekdays((ds) => WEEKDAYS.map((w) => w.day).filter((d) => (d === day ? on : ds.includes(d))));

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    // UpdateCalendar replaces the calendar: every field is sent.
    const c: Calendar = {
      name: name.trim(),
      description,
      timeZone: timeZone.trim(),
      weekdays,
      excludedDates: lines(excluded),
      includedDates: lines(included),
      windows: lines(windows),
    };
    try {
      onDone(await call<Calendar>(`JobAdmin/${editing ? 'UpdateCalendar' : 'CreateCalendar'}`, { calendar: c }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const title = editing ? `Edit calendar ${calendar?.name}` : 'Create calendar';
  return (
    <form className="panel form-grid" onSubmit={submit} aria-label={title} onKeyDown={(e) => e.key === 'Escape' && onDone(null)}>
      <h2>{title}</h2>
      <fieldset disabled={busy}>
        <Field label="Calendar name" hint={editing ? 'fixed once created' : "letters, digits, '.', '_' and '-'; schedules name it"}>
          <input value={name} onChange={(e) => setName(e.target.value)} readOnly={editing} required maxLength={64} pattern="[A-Za-z0-9._\-]+" autoFocus={!editing} />
        </Field>
        <Field label="Description">
          <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1024} />
        </Field>
        <Field label="Calendar time zone" hint="IANA zone its dates and times of day are read in; empty: the zone of the schedule using it">
          <input value={timeZone} onChange={(e) => setTimeZone(e.target.value)} placeholder="Europe/Berlin" spellCheck={false} />
        </Field>
        <fieldset className="weekdays">
          <legend>Weekdays (none ticked: every day)</legend>
          {WEEKDAYS.map((w) => (
            <label key={w.day} className="check">
              <input type="checkbox" checked={weekdays.includes(w.day)} onChange={(e) => toggle(w.day, e.target.checked)} /> {w.short}
            </label>
          ))}
        </fieldset>
        <Field label="Excluded dates" hint="one per line: YYYY-MM-DD, or MM-DD for that date every year (holidays); never allowed">
          <textarea rows={4} value={excluded} onChange={(e) => setExcluded(e.target.value)} spellCheck={false} placeholder={'2026-10-01\n12-25'} />
        </Field>
        <Field label="Included dates" hint="one per line: YYYY-MM-DD allowed whatever its weekday (a working Saturday); an excluded date wins">
          <textarea rows={2} value={included} onChange={(e) => setIncluded(e.target.value)} spellCheck={false} placeholder="2026-10-10" />
        </Field>
        <Field label="Windows" hint="one per line: HH:MM-HH:MM, from (inclusive) to (exclusive); 24:00 ends the day, 22:00-06:00 spans midnight; empty: all day">
          <textarea rows={2} value={windows} onChange={(e) => setWindows(e.target.value)} spellCheck={false} placeholder="09:00-17:00" />
        </Field>
      </fieldset>
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit" disabled={busy}>
          {editing ? 'Save calendar' : 'Create calendar'}
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
