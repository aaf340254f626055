// Calendars (common.proto Calendar): loading them, and how the screens show one.
import { useNamedList } from './named';
import type { Calendar, Weekday } from './types';

/** Monday first, as the proto numbers them; `short` is how lists show one. */
export const WEEKDAYS: { day: Weekday; short: string }[] = [
  { day: 'MONDAY', short: 'Mon' },
  { day: 'TUESDAY', short: 'Tue' },
  { day: 'WEDNESDAY', short: 'Wed' },
  { day: 'THURSDAY', short: 'Thu' },
  { day: 'FRIDAY', short: 'Fri' },
  { day: 'SATURDAY', short: 'Sat' },
  { day: 'SUNDAY', short: 'Sun' },
];

/** Every calendar, by name (ListCalendars is not paged); any role may read them. */
export function useCalendars() {
  const { items, error, reload } = useNamedList<Calendar>('JobAdmin/ListCalendars', 'calendars');
  return { calendars: items, error, reload };
}

/** "Mon, Tue, Wed" in week order; "every day" when none is listed. */
export function weekdaysText(c: Calendar): string {
  const days = WEEKDAYS.filter((w) => c.weekdays?.includes(w.day)).map((w) => w.short);
  return days.length ? days.join(', ') : 'every day';
}

/** "09:00-12:00, 13:00-17:00"; "all day" when none is listed. */
export const windowsText = (c: Calendar) => (c.windows?.length ? c.windows.join(', ') : 'all day');
