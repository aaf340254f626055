// Pools of concurrency slots (common.proto Pool): loading them, and how the screens show one.
import { useNamedList } from './named';
import type { Pool } from './types';

/** How often the pool screens read the counts and the queue again while they are open. */
export const POOL_REFRESH_MS = 2000;

/** Every pool, by name (ListPools is not paged); any role may read them. */
export function usePools() {
  const { items, error, reload } = useNamedList<Pool>('JobAdmin/ListPools', 'pools');
  return { pools: items, error, reload };
}

/** Whether a pool has runs holding or waiting for its slots: its screens then follow it live. */
export const poolBusy = (p: Pool) => (p.running ?? 0) > 0 || (p.queued ?? 0) > 0;

/** The path of a pool's queue page. */
export const poolPath = (name: string) => `/pools/${encodeURIComponent(name)}`;
