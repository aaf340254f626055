import { call } from './api';
import type { Group } from './types';
import { useLoad } from './ui';

export function useGroups() {
  const { data, error, reload } = useLoad(
    () => call<{ groups?: Group[] }>('JobAdmin/ListGroups', {}).then((r) => r.groups ?? []),
    [],
  );
  const groups = data ?? [];
  const name = (id?: string) => {
    const g = groups.find((x) => x.id === id);
    return g ? g.title || g.appName || `#${id}` : id ? `#${id}` : '—';
  };
  return { groups, error, reload, name };
}
