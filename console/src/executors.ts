import { stream } from './api';
import type { ExecutorInfo, WatchExecutorsResponse } from './types';

/** The first snapshot of WatchExecutors: the executors online now. */
export async function onlineExecutors(appNames: string[] = []): Promise<ExecutorInfo[]> {
  const ctl = new AbortController();
  let found: ExecutorInfo[] | null = null;
  try {
    await stream<WatchExecutorsResponse>(
      'Registry/WatchExecutors',
      { appNames },
      (m) => {
        if (m.snapshot && !found) {
          found = m.snapshot.executors ?? [];
          ctl.abort();
        }
      },
      ctl.signal,
    );
  } catch (e) {
    if (!found) throw e;
  }
  return found ?? [];
}
