// Objects the server keeps once by name and jobs name (calendars, alarm channels, pools): loading every
// one (their List calls are not paged; any role may read them), and the state of the page that
// lists them and lets an admin create, edit and delete them.
import { useState } from 'react';
import { call } from './api';
import { useLoad } from './ui';

/** Every object `method` lists under `field` ("JobAdmin/ListCalendars", "calendars"), by name. */
export function useNamedList<T>(method: string, field: string) {
  const { data, error, reload } = useLoad(() => call<Record<string, T[] | undefined>>(method, {}).then((r) => r[field] ?? []), [method, field]);
  return { items: data, error, reload };
}

/**
 * The state of a page listing objects kept by name: which one is being edited (its name, "" for a
 * new one, null for none), the last error, and what was last saved or deleted. `what` names the
 * kind in messages ("calendar": "Saved calendar workdays."); `deleteMethod` takes `{ name }`.
 */
export function useNamedPage<T extends { name?: string }>(what: string, deleteMethod: string, reload: () => void) {
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);

  /** Opens the form of `name` ("" a new one) or closes it (null), clearing the last messages. */
  const edit = (name: string | null) => {
    setEditing(name);
    setSaved(null);
    setError(null);
  };

  async function remove(item: T) {
    setError(null);
    setSaved(null);
    try {
      await call(deleteMethod, { name: item.name });
      setSaved(`Deleted ${what} ${item.name}.`);
      reload();
    } catch (e) {
      setError(e);
    }
  }

  /** The form's onDone: the saved object (the server's answer), or null after a cancel. */
  const done = (item: T | null) => {
    if (item) {
      setSaved(`Saved ${what} ${item.name}.`);
      reload();
    }
    setEditing(null);
  };

  return { editing, edit, error, setError, saved, setSaved, remove, done };
}
