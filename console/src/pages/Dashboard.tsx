import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Bar, Line } from 'react-chartjs-2';
import {
  BarElement,
  CategoryScale,
  Chart as ChartJS,
  Legend,
  LinearScale,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { ApiError, call } from '../api';
import { onlineExecutors } from '../executors';
import { fmtTime, startOfToday } from '../format';
import type { Job, StatsRow, Run } from '../types';
import { ErrorBox, Field, useLoad } from '../ui';

ChartJS.register(BarElement, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Legend);

async function countJobs(): Promise<number> {
  let n = 0;
  let pageToken: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await call<{ jobs?: Job[]; nextPageToken?: string }>('JobAdmin/ListJobs', { pageSize: 500, pageToken });
    n += r.jobs?.length ?? 0;
    if (!(pageToken = r.nextPageToken)) break;
  }
  return n;
}

async function runsToday(): Promise<Record<string, number>> {
  const counts: Record<string, number> = { QUEUED: 0, PENDING: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0 };
  let pageToken: string | undefined;
  for (let i = 0; i < 20; i++) {
    const r = await call<{ runs?: Run[]; nextPageToken?: string }>('JobAdmin/ListRuns', {
      startTime: startOfToday().toISOString(),
      pageSize: 500,
      pageToken,
    });
    for (const run of r.runs ?? []) {
      const s = (run.status ?? '').replace('RUN_STATUS_', '');
      counts[s] = (counts[s] ?? 0) + 1;
    }
    if (!(pageToken = r.nextPageToken)) break;
  }
  return counts;
}

const dayKey = (t: string) => t.slice(0, 10);

export default function Dashboard() {
  const [days, setDays] = useState(14);
  const jobs = useLoad(countJobs, []);
  const today = useLoad(runsToday, []);
  const execs = useLoad(() => onlineExecutors(), []);
  const failing = useLoad(
    () => call<{ runs?: Run[] }>('JobAdmin/ListRuns', { statuses: ['RUN_STATUS_FAILED'], pageSize: 10 }).then((r) => r.runs ?? []),
    [],
  );
  const stats = useLoad(() => {
    const start = startOfToday();
    start.setDate(start.getDate() - (days - 1));
    return call<{ rows?: StatsRow[] }>('LogService/GetStats', { startTime: start.toISOString(), endTime: new Date(Date.now() + 86400e3).toISOString() }).then(
      (r) => r.rows ?? [],
    );
  }, [days]);

  // Every day of the range, those without runs too ((stats days are UTC days)).
  // p50/p99: the day's run durations in seconds (null: no run ended that day);
  // l50/l99: the day's lateness of schedule slots in seconds (null: none dispatched).
  type Day = { s: number; f: number; r: number; p50: number | null; p99: number | null; l50: number | null; l99: number | null };
  const byDay = new Map<string, Day>();
  const empty = (): Day => ({ s: 0, f: 0, r: 0, p50: null, p99: null, l50: null, l99: null });
  for (let i = days - 1; i >= 0; i--) byDay.set(new Date(Date.now() - i * 86400e3).toISOString().slice(0, 10), empty());
  for (const row of stats.data ?? []) {
    if (!row.day) continue;
    const k = dayKey(row.day);
    const e = byDay.get(k) ?? empty();
    e.s += Number(row.succeeded ?? 0);
    e.f += Number(row.failed ?? 0);
    e.r += Number(row.running ?? 0);
    if (Number(row.succeeded ?? 0) + Number(row.failed ?? 0) > 0) {
      e.p50 = Number(row.durationP50Ms ?? 0) / 1000;
      e.p99 = Number(row.durationP99Ms ?? 0) / 1000;
    }
    // Absent when no slot was dispatched that day; "0" is a run sent on its instant.
    if (row.latenessP99Ms !== undefined) {
      e.l50 = Number(row.latenessP50Ms ?? 0) / 1000;
      e.l99 = Number(row.latenessP99Ms) / 1000;
    }
    byDay.set(k, e);
  }
  const labels = [...byDay.keys()].sort();
  const latest = [...labels].reverse().map((l) => byDay.get(l)!);
  const lastWith = (k: 'p50' | 'l50') => latest.find((d) => d[k] !== null);
  const fmtS = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${v < 10 ? v.toFixed(3) : v.toFixed(1)} s`);
  const dur = lastWith('p50');
  const late = lastWith('l50');
  const denied = stats.error instanceof ApiError && stats.error.code === 'PERMISSION_DENIED';

  const t = today.data;
  return (
    <section aria-labelledby="dash-h">
      <h1 id="dash-h">Dashboard</h1>
      <div className="cards">
        <Card label="Jobs" value={jobs.data} error={jobs.error} />
        <Card label="Runs today: succeeded" value={t?.SUCCEEDED} error={today.error} />
        <Card label="Runs today: failed" value={t?.FAILED} error={today.error} />
        <Card label="Runs today: running or pending" value={t ? t.RUNNING + t.PENDING : undefined} error={today.error} />
        <Card label="Runs today: queued for a pool slot" value={t?.QUEUED} error={today.error} />
        <Card label="Online executors" value={execs.data?.length} error={execs.error} />
      </div>
      {stats.data && (
        <dl className="details" aria-label="Latest day's percentiles">
          <div>
            <dt>Run duration p50 / p99</dt>
            <dd data-field="Run duration">{dur ? `${fmtS(dur.p50)} / ${fmtS(dur.p99)}` : '—'}</dd>
          </div>
          <div>
            <dt>Lateness p50 / p99</dt>
            <dd data-field="Lateness">{late ? `${fmtS(late.l50)} / ${fmtS(late.l99)}` : '—'}</dd>
          </div>
        </dl>
      )}
      <section className="panel" aria-labelledby="chart-h">
        <div className="page-head">
          <h2 id="chart-h">Runs per day by outcome</h2>
          <Field label="Days">
            <select value={days} onChange={(e) => setDays(Number(e.target.value))}>
              {[7, 14, 30, 90].map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </Field>
        </div>
        {denied ? (
          <p role="note">Totals over every group need a credential granted all groups.</p>
        ) : (
          <ErrorBox error={stats.error} />
        )}
        {stats.data && (
          <div className="chart">
            <Bar
              aria-label="Runs per day by outcome"
              role="img"
              options={{ animation: false, responsive: true, maintainAspectRatio: false, scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } }}
              data={{
                labels,
                datasets: [
                  { label: 'succeeded', data: labels.map((l) => byDay.get(l)!.s), backgroundColor: '#2e7d32' },
                  { label: 'failed', data: labels.map((l) => byDay.get(l)!.f), backgroundColor: '#c62828' },
                  { label: 'running', data: labels.map((l) => byDay.get(l)!.r), backgroundColor: '#1565c0' },
                ],
              }}
            />
          </div>
        )}
      </section>
      {stats.data && (
        <PercentileChart
          id="duration-h"
          title="Run duration per day (seconds, p50 and p99)"
          name="Run duration per day, p50 and p99"
          labels={labels}
          p50={labels.map((l) => byDay.get(l)!.p50)}
          p99={labels.map((l) => byDay.get(l)!.p99)}
          colors={['#1565c0', '#ef6c00']}
        />
      )}
      {stats.data && (
        <PercentileChart
          id="lateness-h"
          title="Lateness of schedule slots per day (seconds from the scheduled instant to dispatch, p50 and p99)"
          name="Lateness per day, p50 and p99"
          labels={labels}
          p50={labels.map((l) => byDay.get(l)!.l50)}
          p99={labels.map((l) => byDay.get(l)!.l99)}
          colors={['#2e7d32', '#c62828']}
        />
      )}
      <section className="panel" aria-labelledby="failing-h">
        <h2 id="failing-h">Recent failed runs</h2>
        <ErrorBox error={failing.error} />
        <ul className="plain">
          {(failing.data ?? []).map((r) => (
            <li key={r.id}>
              <Link to={`/runs/${r.id}`}>Run #{r.id}</Link> of job <Link to={`/jobs/${r.jobId}/edit`}>{r.jobId}</Link> ({r.handler}) at{' '}
              {fmtTime(r.endTime ?? r.triggerTime)}: {r.handleCode ?? r.triggerCode} {r.handleMessage || r.triggerMessage}
            </li>
          ))}
          {failing.data?.length === 0 && <li>No failed runs.</li>}
        </ul>
      </section>
    </section>
  );
}

/** A panel with a line chart of a daily p50 and p99 (null: no figure that day). */
function PercentileChart(props: { id: string; title: string; name: string; labels: string[]; p50: (number | null)[]; p99: (number | null)[]; colors: [string, string] }) {
  const { id, title, name, labels, p50, p99, colors } = props;
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <div className="chart">
        <Line
          aria-label={name}
          role="img"
          options={{ animation: false, responsive: true, maintainAspectRatio: false, spanGaps: true, scales: { y: { beginAtZero: true } } }}
          data={{
            labels,
            datasets: [
              { label: 'p50', data: p50, borderColor: colors[0], backgroundColor: colors[0] },
              { label: 'p99', data: p99, borderColor: colors[1], backgroundColor: colors[1] },
            ],
          }}
        />
      </div>
    </section>
  );
}

function Card({ label, value, error }: { label: string; value: number | null | undefined; error: unknown }) {
  return (
    <div className="card" role="group" aria-label={label}>
      <div className="card-value">{error ? '!' : (value ?? '…')}</div>
      <div className="card-label">{label}</div>
      <ErrorBox error={error} />
    </div>
  );
}
