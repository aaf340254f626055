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

/** Follows WatchExecutors: the snapshot, then each executor joining, changing or leaving. */
export function watchExecutors(
  onList: (list: ExecutorInfo[]) => void,
  onError: (e: unknown) => void,
  signal: AbortSignal,
): void {
  let list: ExecutorInfo[] = [];
  const key = (e?: ExecutorInfo) => `${e?.appName}/${e?.address}`;
  stream<WatchExecutorsResponse>(
    'Registry/WatchExecutors',
    { appNames: [] },
    (m) => {
      if (m.snapshot) list = m.snapshot.executors ?? [];
      else if (m.change?.executor) {
        const e = m.change.executor;
        list = list.filter((x) => key(x) !== key(e));
        if (m.change.kind !== 'EXECUTOR_CHANGE_KIND_LEFT') list = [...list, e];
      }
      onList(list);
    },
    signal,
  ).catch((e) => {
    if ((e as Error).name !== 'AbortError') onError(e);
  });
}
