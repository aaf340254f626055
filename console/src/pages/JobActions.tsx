// Pieces of the jobs screen with their own state: the trigger form, the delete
// confirmation, the last-run badge and the summary on the job's own page.
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { alarmOnLabel } from '../alarmChannels';
import { call } from '../api';
import { enumLabel, fmtTime, seconds } from '../format';
import { poolPath } from '../pools';
import type { Job } from '../types';
import { ConfirmButton, Details, ErrorBox, Field, StatusBadge } from '../ui';

/** The newest run of `job`: its status linking to the run, and when it was triggered. */
export function LastRun({ job }: { job: Job }) {
  const r = job.lastRun;
  if (!r?.runId) return <>—</>;
  return (
    <span className="last-run">
      <Link to={`/runs/${r.runId}`} aria-label={`Last run of job ${job.id}: run ${r.runId}, ${enumLabel(r.status, 'RUN_STATUS_')}`}>
        <StatusBadge status={r.status} /> #{r.runId}
      </Link>
      <br />
      <small>
        {enumLabel(r.triggerType, 'TRIGGER_TYPE_')} · {fmtTime(r.triggerTime)}
      </small>
    </span>
  );
}

/** A job's state as a badge; a paused job's tooltip says why. */
export function JobStateBadge({ job }: { job: Job }) {
  return <StatusBadge status={job.state} title={job.state === 'JOB_STATE_PAUSED' ? job.pauseReason : undefined} />;
}

/**
 * What a job's page says of it beside the form: its name, state (why a paused
 * job was paused, and its failures in a row when it pauses after some), its
 * deadline, start and end when it has them, the slots it will still fire when
 * it fires at most N times, its pool and priority when it names one, and
 * when it last fired and ran.
 */
export function JobSummary({ job }: { job: Job }) {
  const zone = job.schedule?.cron?.timeZone;
  const rows: [string, ReactNode][] = [
    ['Name', job.name ?? '—'],
    ['ID', job.id ?? '—'],
    ['State', <JobStateBadge job={job} />],
  ];
  if (job.state === 'JOB_STATE_PAUSED') rows.push(['Paused', job.pauseReason || 'after consecutive failures']);
  if (job.pauseAfterFailures) rows.push(['Failures in a row', `${job.consecutiveFailures ?? 0} of ${job.pauseAfterFailures}`]);
  if (job.deadline) rows.push(['Deadline', `${seconds(job.deadline)} s after the slot`]);
  if (job.startTime) rows.push(['Runs from', fmtTime(job.startTime, zone)]);
  if (job.endTime) rows.push(['Runs until', fmtTime(job.endTime, zone)]);
  if (job.maxFires) rows.push(['Fires left', `${job.firesLeft ?? 0} of ${job.maxFires}`]);
  if (job.pool) rows.push(['Pool', <Link to={poolPath(job.pool)}>{job.pool}</Link>]);
  if (job.pool || job.priority) rows.push(['Priority', String(job.priority ?? 0)]);
  const channels = job.alarm?.channels ?? [];
  if (channels.length) {
    const silence = seconds(job.alarm?.silence);
    rows.push(['Alarm channels', `${channels.join(', ')} · on ${alarmOnLabel(job.alarm?.on)}${silence > 0 ? ` · silence ${silence} s` : ''}`]);
  }
  rows.push(['Next fire', fmtTime(job.nextFireTime, zone)], ['Last fire', fmtTime(job.lastFireTime, zone)], ['Last run', <LastRun job={job} />]);
  return <Details label="Job summary" rows={rows} />;
}

/**
 * Delete with a confirmation that offers purge_runs: by default the job's runs
 * and logs stay (listed under its id) until retention removes them.
 */
export function DeleteJobButton({ job, onDelete }: { job: Job; onDelete: (purgeRuns: boolean) => void | Promise<void> }) {
  const [purge, setPurge] = useState(false);
  return (
    <ConfirmButton
      label="Delete"
      ariaLabel={`Delete job ${job.id}`}
      confirmLabel={`Confirm delete job ${job.id}`}
      confirmGroupLabel={`Delete job ${job.id}?`}
      className="danger"
      onConfirm={() => onDelete(purge)}
      extra={
        <>
          <label className="check">
            <input type="checkbox" checked={purge} onChange={(e) => setPurge(e.target.checked)} /> Also delete its runs and logs now
          </label>
          <small>{purge ? 'Its runs, their logs and its daily statistics rows go with it.' : 'Otherwise its runs and logs stay until retention removes them.'}</small>
        </>
      }
    />
  );
}

export function TriggerForm({ job, onClose }: { job: Job; onClose: () => void }) {
  const navigate = useNavigate();
  const [params, setParams] = useState(job.params ?? '');
  const [address, setAddress] = useState('');
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      const res = await call<{ runIds?: string[] }>('JobAdmin/TriggerJob', {
        jobId: job.id,
        params,
        executorAddresses: address.trim() ? [address.trim()] : undefined,
        triggerType: 'TRIGGER_TYPE_MANUAL', // a person, not a program
      });
      const first = res.runIds?.[0];
      if (first) navigate(`/runs/${first}`);
      else onClose();
    } catch (err) {
      setError(err);
    }
  }
  return (
    <form className="panel" onSubmit={submit} aria-label={`Trigger job ${job.id} once`}>
      <h2>Trigger job {job.id} once</h2>
      <Field label="Params">
        <input value={params} onChange={(e) => setParams(e.target.value)} />
      </Field>
      <Field label="Executor address (optional)">
        <input value={address} onChange={(e) => setAddress(e.target.value)} placeholder="host:port of an online executor" />
      </Field>
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit">Trigger now</button>
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
