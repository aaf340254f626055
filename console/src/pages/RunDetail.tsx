import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { call, stream } from '../api';
import { enumLabel, fmtTime } from '../format';
import { poolPath } from '../pools';
import { useSession } from '../session';
import type { Job, LogLine, Run } from '../types';
import { ConfirmButton, Details, ErrorBox, StatusBadge } from '../ui';

const ended = (r: Run | null) => r?.status === 'RUN_STATUS_SUCCEEDED' || r?.status === 'RUN_STATUS_FAILED';

/** A run of a job in a pool: the pool (linking to its queue), its priority there and when it was queued for a slot. */
function poolRows(run: Run): [string, React.ReactNode][] {
  const rows: [string, React.ReactNode][] = [];
  if (run.pool) rows.push(['Pool', <Link key="pool" to={poolPath(run.pool)}>{run.pool}</Link>], ['Priority', String(run.priority ?? 0)]);
  if (run.queuedTime) rows.push(['Queued', fmtTime(run.queuedTime)]);
  return rows;
}

export default function RunDetail() {
  const { id } = useParams();
  const { canMutate } = useSession();
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [children, setChildren] = useState<Run[]>([]);
  const [killMsg, setKillMsg] = useState('');

  // Poll the run until it has ended.
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout>;
    const load = async () => {
      try {
        const r = (await call<{ run?: Run }>('JobAdmin/GetRun', { runId: id, logLines: 0 })).run ?? null;
        if (!live) return;
        setRun(r);
        setError(null);
        if (!ended(r)) timer = setTimeout(load, 1000);
      } catch (e) {
        if (live) setError(e);
      }
    };
    load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id]);

  // Child runs: runs of the job's children whose parent is this run.
  const runEnded = ended(run);
  useEffect(() => {
    if (!run?.jobId || !runEnded) return;
    call<Job>('JobAdmin/GetJob', { jobId: run.jobId })
      .then((j) =>
        Promise.all(
          (j.childJobIds ?? []).map((c) => call<{ runs?: Run[] }>('JobAdmin/ListRuns', { jobId: c, pageSize: 100 })),
        ),
      )
      .then((lists) => setChildren(lists.flatMap((l) => l.runs ?? []).filter((r) => r.parentRunId === id)))
      .catch(() => setChildren([]));
  }, [run?.jobId, runEnded, id]);

  async function kill() {
    setKillMsg('');
    try {
      const r = await call<{ found?: boolean }>('JobAdmin/KillRun', { runId: id });
      setKillMsg(r.found ? 'Kill sent.' : 'The run was not found running.');
    } catch (e) {
      setError(e);
    }
  }

  const rows: [string, React.ReactNode][] = run
    ? [
        ['Status', <StatusBadge key="s" status={run.status} />],
        ['Job', <Link key="j" to={`/jobs/${run.jobId}/edit`}>{run.jobId}</Link>],
        ['Handler', run.handler || '—'],
        ['Params', run.params || '—'],
        ['Trigger', enumLabel(run.triggerType, 'TRIGGER_TYPE_')],
        ['Scheduled', fmtTime(run.scheduledTime)],
        ['Triggered', fmtTime(run.triggerTime)],
        ['Dispatched', fmtTime(run.dispatchTime)],
        ['Started', fmtTime(run.startTime)],
        ['Ended', fmtTime(run.endTime)],
        ...(run.deadlineTime ? [['Deadline', fmtTime(run.deadlineTime)] as [string, React.ReactNode]] : []),
        ...poolRows(run),
        ['Attempt', String(run.attempt ?? 0)],
        ['Shard', run.shardTotal ? `${run.shardIndex ?? 0} of ${run.shardTotal}` : '—'],
        ['Executor', run.executorAddress || '—'],
        ['Trigger result', run.triggerCode ? `${run.triggerCode} ${run.triggerMessage ?? ''}` : '—'],
        ['Handle result', run.handleCode ? `${run.handleCode} ${run.handleMessage ?? ''}` : '—'],
        ['First run', run.firstRunId && run.firstRunId !== run.id ? <Link key="f" to={`/runs/${run.firstRunId}`}>#{run.firstRunId}</Link> : '—'],
        ['Parent run', run.parentRunId ? <Link key="p" to={`/runs/${run.parentRunId}`}>#{run.parentRunId}</Link> : '—'],
        [
          'Workflow run',
          run.workflowRunId && run.workflowRunId !== '0' ? (
            <span key="w">
              <Link to={`/workflow-runs/${run.workflowRunId}`}>#{run.workflowRunId}</Link> · node {run.workflowNode} · attempt {run.workflowAttempt ?? 0}
            </span>
          ) : (
            '—'
          ),
        ],
        ['Output', run.output || '—'],
        [
          'Child runs',
          children.length
            ? children.map((c) => (
                <Link key={c.id} to={`/runs/${c.id}`}>
                  #{c.id}{' '}
                </Link>
              ))
            : '—',
        ],
      ]
    : [];

  return (
    <section aria-labelledby="run-h">
      <div className="page-head">
        <h1 id="run-h">Run #{id}</h1>
        {canMutate && run && !ended(run) && (
          <ConfirmButton label="Kill run" confirmLabel={`Confirm kill run ${id}`} className="danger" onConfirm={kill} />
        )}
      </div>
      <ErrorBox error={error} />
      {killMsg && <p role="status">{killMsg}</p>}
      {run && (
        <Details label="Run details" rows={rows} />
      )}
      {id && <LogViewer runId={id} />}
    </section>
  );
}

/** The run's log, followed live until the run ends. */
function LogViewer({ runId }: { runId: string }) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [state, setState] = useState<'following' | 'ended' | 'error'>('following');
  const [error, setError] = useState<unknown>(null);
  const [autoScroll, setAutoScroll] = useState(true);
  const pre = useRef<HTMLPreElement>(null);

  useEffect(() => {
    const ctl = new AbortController();
    setLines([]);
    setState('following');
    setError(null);
    stream<LogLine>('LogService/StreamRunLog', { runId, follow: true }, (l) => setLines((ls) => [...ls, l]), ctl.signal).then(
      () => setState('ended'),
      (e) => {
        if ((e as Error).name === 'AbortError') return;
        setError(e);
        setState('error');
      },
    );
    return () => ctl.abort();
  }, [runId]);

  useEffect(() => {
    if (autoScroll && pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [lines, autoScroll]);

  return (
    <section className="panel" aria-labelledby="log-h">
      <div className="page-head">
        <h2 id="log-h">Log</h2>
        <span role="status" aria-label="Log state">
          {state === 'following' ? 'following live…' : state === 'ended' ? `ended (${lines.length} lines)` : 'stream failed'}
        </span>
        <label className="check">
          <input type="checkbox" checked={autoScroll} onChange={(e) => setAutoScroll(e.target.checked)} /> Scroll to end
        </label>
      </div>
      <ErrorBox error={error} />
      <pre ref={pre} className="log" aria-label="Run log" tabIndex={0}>
        {lines.map((l) => `${l.lineNumber ?? ''}\t${fmtTime(l.time)}\t${l.text ?? ''}`).join('\n') || '(no lines yet)'}
      </pre>
    </section>
  );
}
