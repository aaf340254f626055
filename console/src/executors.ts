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

/** An executor's busy totals, "25000 jobs, 24992 runs queued" ("—" when idle). */
export function busyTotals(e: ExecutorInfo): string {
  const jobs = Math.max(e.busyJobCount ?? 0, e.busyJobs?.length ?? 0);
  if (jobs === 0) return '—';
  return `${jobs} ${jobs === 1 ? 'job' : 'jobs'}, ${e.queuedRuns ?? 0} runs queued`;
}

/** Its most loaded jobs, for a tooltip: "12: 1 running, 3 queued" per line, and how many more. */
export function busyDetail(e: ExecutorInfo, shown = 10): string {
  const list = e.busyJobs ?? [];
  const lines = list.slice(0, shown).map((b) => `job ${b.jobId}: ${b.running ?? 0} running, ${b.queued ?? 0} queued`);
  const more = Math.max(e.busyJobCount ?? 0, list.length) - lines.length;
  if (more > 0) lines.push(`and ${more} more`);
  return lines.join('\n');
}
