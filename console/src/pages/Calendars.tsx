// Calendars: the days and times of day the schedules naming one may fire (docs/calendars.md).
// Anyone reads them; an admin creates, edits and deletes them (the server refuses deleting one a
// job or workflow names, and says which).
import { useCalendars, weekdaysText, windowsText } from '../calendars';
import { fmtTime } from '../format';
import { useNamedPage } from '../named';
import { useSession } from '../session';
import type { Calendar } from '../types';
import { ConfirmButton, ErrorBox } from '../ui';
import CalendarForm from './CalendarForm';

export default function Calendars() {
  const { isAdmin } = useSession();
  const { calendars, error: loadError, reload } = useCalendars();
  const { editing, edit, error, saved, remove, done } = useNamedPage<Calendar>('calendar', 'JobAdmin/DeleteCalendar', reload);
  const list = calendars ?? [];
  return (
    <section aria-labelledby="calendars-h">
      <div className="page-head">
        <h1 id="calendars-h">Calendars</h1>
        <div className="actions">
          {isAdmin && editing === null && (
            <button type="button" onClick={() => edit('')}>
              New calendar
            </button>
          )}
          <button type="button" className="secondary" onClick={reload}>
            Refresh
          </button>
        </div>
      </div>
      <p className="hint">
        A job or workflow whose schedule names a calendar fires only the slots it allows: on its weekdays and included dates, never on its excluded
        dates, within its windows. Editing one moves their next fires at once.
      </p>
      {editing === '' && <CalendarForm onDone={done} />}
      <ErrorBox error={loadError || error} />
      {saved && (
        <p role="status" className="hint">
          {saved}
        </p>
      )}
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th>Name</th>
              <th>Zone</th>
              <th>Weekdays</th>
              <th>Excluded</th>
              <th>Included</th>
              <th>Windows</th>
              <th>Updated</th>
              {isAdmin && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.name} data-calendar={c.name}>
                <td data-label="Name">
                  {c.name}
                  {c.description && (
                    <>
                      <br />
                      <small>{c.description}</small>
                    </>
                  )}
                </td>
                <td data-label="Zone">{c.timeZone || '—'}</td>
                <td data-label="Weekdays">{weekdaysText(c)}</td>
                <td data-label="Excluded" title={c.excludedDates?.join(', ') || undefined}>
                  {c.excludedDates?.length ?? 0}
                </td>
                <td data-label="Included" title={c.includedDates?.join(', ') || undefined}>
                  {c.includedDates?.length ?? 0}
                </td>
                <td data-label="Windows">{windowsText(c)}</td>
                <td data-label="Updated">{fmtTime(c.updateTime)}</td>
                {isAdmin && (
                  <td data-label="Actions">
                    <div className="actions">
                      <button
                        type="button"
                        className="secondary"
                        aria-expanded={editing === c.name}
                        aria-label={`Edit calendar ${c.name}`}
                        onClick={() => edit(editing === c.name ? null : (c.name ?? null))}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        ariaLabel={`Delete calendar ${c.name}`}
                        className="danger"
                        confirmLabel={`Confirm delete calendar ${c.name}`}
                        confirmGroupLabel={`Delete calendar ${c.name}?`}
                        onConfirm={() => remove(c)}
                      />
                    </div>
                  </td>
                )}
              </tr>
            ))}
            {calendars && list.length === 0 && (
              <tr>
                <td colSpan={isAdmin ? 8 : 7}>No calendars.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {editing && list.some((c) => c.name === editing) && <CalendarForm key={editing} calendar={list.find((c) => c.name === editing)} onDone={done} />}
    </section>
  );
}
