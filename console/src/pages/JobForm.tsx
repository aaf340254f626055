import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { ApiError, call, errorText } from '../api';
import { ALARM_ONS, kindLabel, useAlarmChannels } from '../alarmChannels';
import { useCalendars } from '../calendars';
import { seconds } from '../format';
import { useGroups } from '../groups';
import { usePools } from '../pools';
import { useSession } from '../session';
import type { AlarmOn, Job, Schedule } from '../types';
import { EnumOptions, ErrorBox, Field, GroupOptions } from '../ui';
import { Backfill, ChildPicker } from './JobExtras';
import { JobSummary } from './JobActions';
import SchedulePreview from './SchedulePreview';

const ROUTES = ['FIRST', 'LAST', 'ROUND', 'RANDOM', 'CONSISTENT_HASH', 'LEAST_FREQUENTLY_USED', 'LEAST_RECENTLY_USED', 'FAILOVER', 'BUSYOVER', 'SHARDING_BROADCAST'].map((s) => `ROUTE_STRATEGY_${s}`);
const BLOCKS = ['SERIAL_EXECUTION', 'DISCARD_LATER', 'COVER_EARLY'].map((s) => `BLOCK_STRATEGY_${s}`);
const LANGUAGES = ['SHELL', 'PYTHON', 'NODEJS', 'POWERSHELL'].map((s) => `SCRIPT_LANGUAGE_${s}`);
const MISFIRES = ['DO_NOTHING', 'FIRE_ONCE_NOW', 'CATCH_UP'].map((s) => `MISFIRE_POLICY_${s}`);
type Kind = 'cron' | 'fixRate' | 'fixDelay' | 'manual';

interface Form {
  groupId: string;
  name: string; // "" = the server names it job-<id>
  task: 'bean' | 'script'; // a handler registered in the executor, or a script it runs
  handler: string;
  language: string;
  source: string;
  remark: string; // why this edit of the script (stored with the version it makes)
  description: string;
  author: string;
  kind: Kind;
  cron: string;
  timeZone: string;
  interval: string; // seconds
  calendar: string; // a calendar's name, "" = none
  jitter: string; // seconds, "" = none
  routeStrategy: string;
  blockStrategy: string;
  pool: string; // a pool's name, "" = none
  priority: string; // among the runs queued for its pool, higher first; "0" = the default
  timeout: string; // seconds, "" = none
  retries: string;
  pauseAfterFailures: string; // "0" = never
  deadline: string; // seconds after the slot, "" = none
  startTime: string; // RFC 3339, "" = none
  endTime: string; // RFC 3339, "" = none
  maxFires: string; // "0" = no limit; sent with cron and fixed-rate schedules only
  params: string;
  misfirePolicy: string; // "" = the server's default (fire once now)
  misfireThreshold: string; // seconds, "" = the default 5 s
  children: string[];
  emails: string; // one per line
  webhooks: string; // one per line
  channels: string[]; // alarm channels, by name
  alarmOn: AlarmOn; // which run ends alarm
  silence: string; // seconds, "" = none
  start: boolean;
}

/** The non-empty lines (or comma-separated items) of a text box. */
function lines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((x) => x.trim())
    .filter(Boolean);
}

/** What the server's JSON parser takes as a Timestamp: RFC 3339 with a "T", seconds, and "Z" or an offset. */
const RFC3339 = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+\-]\d{2}:\d{2})`;
const LIFETIME_HINT = 'RFC 3339, e.g. 2026-12-31T23:00:00Z; no slot before the start / at or after the end';

/** Schedules whose slots max_fires counts. */
const countsFires = (k: Kind) => k === 'cron' || k === 'fixRate';

const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

function fromJob(j: Job): Form {
  const s = j.schedule ?? {};
  return {
    groupId: j.groupId ?? '',
    name: j.name ?? '',
    task: j.script ? 'script' : 'bean',
    handler: j.bean?.handler ?? '',
    language: j.script?.language ?? 'SCRIPT_LANGUAGE_SHELL',
    source: j.script?.source ?? '',
    remark: '',
    description: j.description ?? '',
    author: j.author ?? '',
    kind: s.cron ? 'cron' : s.fixRate ? 'fixRate' : s.fixDelay ? 'fixDelay' : 'manual',
    cron: s.cron?.expression ?? '0 0 6 * * ?',
    timeZone: s.cron?.timeZone ?? localZone,
    interval: String(seconds(s.fixRate ?? s.fixDelay) || 60),
    calendar: s.calendar ?? '',
    jitter: s.jitter ? String(seconds(s.jitter)) : '',
    routeStrategy: j.routeStrategy ?? 'ROUTE_STRATEGY_ROUND',
    blockStrategy: j.blockStrategy ?? 'BLOCK_STRATEGY_SERIAL_EXECUTION',
    pool: j.pool ?? '',
    priority: String(j.priority ?? 0),
    timeout: j.timeout ? String(seconds(j.timeout)) : '',
    retries: String(j.retry?.maxRetries ?? 0),
    pauseAfterFailures: String(j.pauseAfterFailures ?? 0),
    deadline: j.deadline ? String(seconds(j.deadline)) : '',
    startTime: j.startTime ?? '',
    endTime: j.endTime ?? '',
    maxFires: String(j.maxFires ?? 0),
    params: j.params ?? '',
    misfirePolicy: j.misfire?.policy ?? '',
    misfireThreshold: j.misfire?.threshold ? String(seconds(j.misfire.threshold)) : '',
    children: j.childJobIds ?? [],
    emails: (j.alarm?.emails ?? []).join('\n'),
    webhooks: (j.alarm?.webhookUrls ?? []).join('\n'),
    channels: j.alarm?.channels ?? [],
    alarmOn: j.alarm?.on ?? 'ALARM_ON_FAILURE',
    silence: j.alarm?.silence ? String(seconds(j.alarm.silence)) : '',
    start: j.state === 'JOB_STATE_RUNNING',
  };
}

function kindOf(f: Form): Schedule | undefined {
  switch (f.kind) {
    case 'cron':
      return { cron: { expression: f.cron, timeZone: f.timeZone || undefined } };
    case 'fixRate':
      return { fixRate: `${Number(f.interval) || 0}s` };
    case 'fixDelay':
      return { fixDelay: `${Number(f.interval) || 0}s` };
    default:
      return undefined;
  }
}

/** The schedule's kind, and its calendar and jitter (a manual job has neither: the server refuses them). */
function scheduleOf(f: Form): Schedule | undefined {
  const kind = kindOf(f);
  if (!kind) return undefined;
  return { ...kind, calendar: f.calendar || undefined, jitter: Number(f.jitter) > 0 ? `${Number(f.jitter)}s` : undefined };
}

function toJob(f: Form, base: Job): Job {
  const job: Job = { ...base };
  delete job.script;
  delete job.bean;
  delete job.state;
  delete job.nextFireTime;
  delete job.createTime;
  delete job.updateTime;
  delete job.lastFireTime;
  delete job.lastRun;
  delete job.pauseReason;
  delete job.consecutiveFailures;
  delete job.firesLeft;
  return {
    ...job,
    groupId: f.groupId,
    name: f.name.trim(),
    ...(f.task === 'script' ? { script: { language: f.language, source: f.source, remark: f.remark.trim() || undefined } } : { bean: { handler: f.handler } }),
    description: f.description,
    author: f.author,
    schedule: scheduleOf(f),
    routeStrategy: f.routeStrategy,
    blockStrategy: f.blockStrategy,
    // None (and the default 0) are left out, which clears them.
    pool: f.pool || undefined,
    priority: Number(f.priority) || undefined,
    timeout: f.timeout ? `${Number(f.timeout)}s` : undefined,
    retry: { ...(base.retry ?? {}), maxRetries: Number(f.retries) || 0 },
    pauseAfterFailures: Number(f.pauseAfterFailures) || 0,
    deadline: f.deadline ? `${Number(f.deadline)}s` : undefined,
    // Empty (or no limit) is left out, which clears it.
    startTime: f.startTime.trim() || undefined,
    endTime: f.endTime.trim() || undefined,
    maxFires: countsFires(f.kind) && Number(f.maxFires) > 0 ? Number(f.maxFires) : undefined,
    params: f.params,
    misfire: {
      ...(base.misfire ?? {}),
      policy: f.misfirePolicy || undefined,
      threshold: f.misfireThreshold ? `${Number(f.misfireThreshold)}s` : undefined,
    },
    childJobIds: f.children,
    alarm: {
      emails: lines(f.emails),
      webhookUrls: lines(f.webhooks),
      channels: f.channels,
      // Failure is the default: left out, as a job made without it has it.
      on: f.alarmOn === 'ALARM_ON_FAILURE' ? undefined : f.alarmOn,
      silence: Number(f.silence) > 0 ? `${Number(f.silence)}s` : undefined,
    },
  };
}

/** The name a copy is offered: "<name>-copy", or none for an unnamed job (it gets a job-<id> of its own). */
function copyName(j: Job): string {
  if (!j.name || j.name === `job-${j.id}`) return '';
  return `${j.name}-copy`.slice(0, 128);
}

export default function JobForm() {
  const { id } = useParams();
  const [search] = useSearchParams();
  const copyOf = search.get('copy');
  const navigate = useNavigate();
  const { canMutate } = useSession();
  const { groups, name } = useGroups();
  const [base, setBase] = useState<Job | null>(id || copyOf ? null : {});
  const [form, setForm] = useState<Form>(fromJob({}));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const src = id ?? copyOf;
    if (!src) return;
    call<Job>('JobAdmin/GetJob', { jobId: src }).then((j) => {
      const f = fromJob(j);
      if (copyOf) {
        const copy = { ...j };
        delete copy.id; // A new job: toJob takes its name from the form and drops the output-only fields.
        setBase(copy);
        // As XXL-JOB's copy: the same job, stopped, under a name of its own (none: the server's job-<id>).
        setForm({ ...f, name: copyName(j), description: `Copy of ${j.description || `job ${j.id}`}`, start: false });
      } else {
        setBase(j);
        setForm(f);
      }
    }, setError);
  }, [id, copyOf]);

  useEffect(() => {
    if (!form.groupId && groups.length && !id && !copyOf) setForm((f) => ({ ...f, groupId: groups[0].id ?? '' }));
  }, [groups, form.groupId, id, copyOf]);

  const set = <K extends keyof Form>(k: K) => (v: Form[K]) => setForm((f) => ({ ...f, [k]: v }));
  const readOnly = !canMutate;

  /** StartJob, as Start does: schedules a paused job again (the server clears its reason and count). */
  async function resume() {
    if (!id) return;
    setError(null);
    try {
      const j = await call<Job>('JobAdmin/StartJob', { jobId: id });
      setBase(j);
      setForm((f) => ({ ...f, start: true }));
    } catch (err) {
      setError(err);
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!base) return;
    setBusy(true);
    setError(null);
    try {
      const job = toJob(form, base);
      if (id) {
        await call<Job>('JobAdmin/UpdateJob', { job });
        const wasRunning = base.state === 'JOB_STATE_RUNNING';
        if (form.start !== wasRunning) await call<Job>(`JobAdmin/${form.start ? 'StartJob' : 'StopJob'}`, { jobId: id });
      } else {
        await call<Job>('JobAdmin/CreateJob', { job, start: form.start });
      }
      navigate('/jobs');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  // A clash (ALREADY_EXISTS) or a refused name (INVALID_ARGUMENT, e.g. the reserved job-<id>) is shown at the field.
  const nameError = /^job\.name\b/.test(error instanceof ApiError ? error.message : '');
  const title = id ? (readOnly ? `Job ${id}` : `Edit job ${id}`) : copyOf ? `Copy job ${copyOf}` : 'Create job';
  return (
    <section aria-labelledby="jobform-h">
      <h1 id="jobform-h">{title}</h1>
      {id && base && <JobSummary job={base} />}
      {id && canMutate && base?.state === 'JOB_STATE_PAUSED' && (
        <div className="row resume-row">
          <button type="button" onClick={resume}>
            Resume
          </button>
          <small>Fires on its schedule again; manual and API triggers run it while it is paused too.</small>
        </div>
      )}
      {id && base?.script && (
        <p>
          <Link to={`/jobs/${id}/script`}>Script versions (current v{base.script.version ?? '?'}): history, diff, roll back</Link>
        </p>
      )}
      <form onSubmit={submit} aria-label={title} className="form-grid">
        <fieldset disabled={readOnly || !base}>
          <Field label="Group">
            <select value={form.groupId} onChange={(e) => set('groupId')(e.target.value)} required>
              <GroupOptions groups={groups} label={(g) => `${name(g.id)} (#${g.id})`} empty="Choose a group" />
            </select>
          </Field>
          <div className="field">
            {/* The hint (or the server's refusal of the name) describes the box; its label stays "Name". */}
            <label htmlFor="job-name">Name</label>
            <input
              id="job-name"
              value={form.name}
              onChange={(e) => set('name')(e.target.value)}
              maxLength={128}
              pattern="[A-Za-z0-9._\-]*"
              title="letters, digits, '.', '_' and '-'"
              aria-invalid={nameError || undefined}
              aria-describedby="job-name-hint"
            />
            {nameError ? (
              <small id="job-name-hint" role="alert" className="error">
                {errorText(error)}
              </small>
            ) : (
              <small id="job-name-hint">unique in its group; empty names it job-&lt;id&gt;</small>
            )}
          </div>
          <Field label="Task">
            <select value={form.task} onChange={(e) => set('task')(e.target.value as Form['task'])}>
              <option value="bean">bean</option>
              <option value="script">script</option>
            </select>
          </Field>
          {form.task === 'bean' ? (
            <Field label="Handler">
              <input value={form.handler} onChange={(e) => set('handler')(e.target.value)} required />
            </Field>
          ) : (
            <Field label="Language">
              <select value={form.language} onChange={(e) => set('language')(e.target.value)}>
                <EnumOptions values={LANGUAGES} prefix="SCRIPT_LANGUAGE_" />
              </select>
            </Field>
          )}
          <Field label="Description">
            <input value={form.description} onChange={(e) => set('description')(e.target.value)} />
          </Field>
          <Field label="Author">
            <input value={form.author} onChange={(e) => set('author')(e.target.value)} />
          </Field>
          <Field label="Schedule type">
            <select value={form.kind} onChange={(e) => set('kind')(e.target.value as Kind)}>
              <option value="cron">cron</option>
              <option value="fixRate">fixed rate</option>
              <option value="fixDelay">fixed delay</option>
              <option value="manual">manual only</option>
            </select>
          </Field>
          {form.kind === 'cron' && (
            <>
              <Field label="Cron expression" hint="seconds minutes hours day-of-month month day-of-week [year]">
                <input value={form.cron} onChange={(e) => set('cron')(e.target.value)} required />
              </Field>
              <Field label="Time zone">
                <input value={form.timeZone} onChange={(e) => set('timeZone')(e.target.value)} placeholder="Europe/Berlin" />
              </Field>
            </>
          )}
          {(form.kind === 'fixRate' || form.kind === 'fixDelay') && (
            <Field label="Interval (seconds)">
              <input type="number" min="0.001" step="any" value={form.interval} onChange={(e) => set('interval')(e.target.value)} required />
            </Field>
          )}
          {form.kind !== 'manual' && (
            <>
              <CalendarSelect value={form.calendar} onChange={set('calendar')} />
              <Field label="Jitter (seconds, empty for none)" hint="each scheduled fire starts up to this much later (fixed per slot), so jobs sharing an instant spread out; at most 86400">
                <input type="number" min="0" max="86400" step="any" value={form.jitter} onChange={(e) => set('jitter')(e.target.value)} />
              </Field>
            </>
          )}
          <Field label="Start time (empty for none)" hint={LIFETIME_HINT}>
            <input
              value={form.startTime}
              onChange={(e) => set('startTime')(e.target.value)}
              placeholder="2026-12-31T23:00:00Z"
              pattern={`\\s*${RFC3339}\\s*`}
              title="RFC 3339, e.g. 2026-12-31T23:00:00Z or 2026-12-31T23:00:00+08:00"
              spellCheck={false}
            />
          </Field>
          <Field label="End time (empty for none)" hint={LIFETIME_HINT}>
            <input
              value={form.endTime}
              onChange={(e) => set('endTime')(e.target.value)}
              placeholder="2026-12-31T23:59:59Z"
              pattern={`\\s*${RFC3339}\\s*`}
              title="RFC 3339, e.g. 2026-12-31T23:59:59Z or 2026-12-31T23:59:59+08:00"
              spellCheck={false}
            />
          </Field>
          {countsFires(form.kind) && (
            <Field label="Run at most N times (0: no limit)" hint="slots from when it is started; Start again to count afresh">
              <input type="number" min="0" max="1000000" step="1" value={form.maxFires} onChange={(e) => set('maxFires')(e.target.value)} />
            </Field>
          )}
          {form.task === 'script' && (
            <Field label="Script source" hint="$1 is the params, $2 and $3 the shard index and total; executors run scripts only with allow-scripts">
              <textarea className="code" rows={10} spellCheck={false} value={form.source} onChange={(e) => set('source')(e.target.value)} required />
            </Field>
          )}
          {form.task === 'script' && !readOnly && (
            <Field label="Remark" hint="why this edit: kept with the script version it makes">
              <input value={form.remark} maxLength={255} onChange={(e) => set('remark')(e.target.value)} />
            </Field>
          )}
          <Field label="Routing strategy">
            <select value={form.routeStrategy} onChange={(e) => set('routeStrategy')(e.target.value)}>
              <EnumOptions values={ROUTES} prefix="ROUTE_STRATEGY_" />
            </select>
          </Field>
          <Field label="Block strategy">
            <select value={form.blockStrategy} onChange={(e) => set('blockStrategy')(e.target.value)}>
              <EnumOptions values={BLOCKS} prefix="BLOCK_STRATEGY_" />
            </select>
          </Field>
          <PoolSelect value={form.pool} onChange={set('pool')} />
          <Field label="Priority" hint="among the runs queued for its pool, a higher priority gets a free slot first (then the oldest); -1000 to 1000">
            <input type="number" min="-1000" max="1000" step="1" value={form.priority} onChange={(e) => set('priority')(e.target.value)} required />
          </Field>
          <Field label="Timeout (seconds, empty for none)">
            <input type="number" min="0" step="any" value={form.timeout} onChange={(e) => set('timeout')(e.target.value)} />
          </Field>
          <Field label="Retries">
            <input type="number" min="0" step="1" value={form.retries} onChange={(e) => set('retries')(e.target.value)} />
          </Field>
          <Field label="Pause after N consecutive failures (0: never)" hint="runs that failed for good, after their retries; Resume (Start) schedules it again">
            <input type="number" min="0" max="1000" step="1" value={form.pauseAfterFailures} onChange={(e) => set('pauseAfterFailures')(e.target.value)} />
          </Field>
          <Field label="Deadline (seconds after the slot, empty for none)" hint="an alarm, nothing killed, when a fire's work is not done by then">
            <input type="number" min="1" max="604800" step="any" value={form.deadline} onChange={(e) => set('deadline')(e.target.value)} />
          </Field>
          <Field label="Params" hint="$[yyyyMMdd-1] and other date templates render at each run's slot in the job's zone (docs/parameters.md); the preview shows them">
            <textarea rows={2} value={form.params} onChange={(e) => set('params')(e.target.value)} />
          </Field>
          <Field label="Misfire policy" hint="what a slot found late does">
            <select value={form.misfirePolicy} onChange={(e) => set('misfirePolicy')(e.target.value)}>
              <option value="">default (fire once now)</option>
              <EnumOptions values={MISFIRES} prefix="MISFIRE_POLICY_" />
            </select>
          </Field>
          <Field label="Misfire threshold (seconds, empty for 5)">
            <input type="number" min="0" step="any" value={form.misfireThreshold} onChange={(e) => set('misfireThreshold')(e.target.value)} />
          </Field>
          <Field label="Alarm emails" hint="one per line">
            <textarea rows={2} value={form.emails} onChange={(e) => set('emails')(e.target.value)} />
          </Field>
          <Field label="Alarm webhook URLs" hint="one per line; each receives a JSON POST">
            <textarea rows={2} value={form.webhooks} onChange={(e) => set('webhooks')(e.target.value)} />
          </Field>
          <AlarmChannelSelect value={form.channels} onChange={set('channels')} />
          <Field label="Alarm on" hint="which run ends raise an alarm (a run that failed after its retries, one that succeeded); a missed deadline alarms whatever this says">
            <select value={form.alarmOn} onChange={(e) => set('alarmOn')(e.target.value as AlarmOn)}>
              {ALARM_ONS.map((o) => (
                <option key={o.on} value={o.on}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Alarm silence (seconds, empty for none)" hint="after an alarm, more of the same kind within this long go out as one summary when it ends; at most 86400">
            <input type="number" min="0" max="86400" step="any" value={form.silence} onChange={(e) => set('silence')(e.target.value)} />
          </Field>
          <ChildPicker self={id} value={form.children} onChange={set('children')} />
          <label className="check">
            <input type="checkbox" checked={form.start} onChange={(e) => set('start')(e.target.checked)} /> Running (fires on its
            schedule)
          </label>
        </fieldset>
        {form.kind !== 'manual' && (
          <SchedulePreview schedule={scheduleOf(form)} params={form.params} timeZone={form.kind === 'cron' ? form.timeZone : undefined} />
        )}
        {!nameError && <ErrorBox error={error} />}
        <div className="row">
          {!readOnly && (
            <button type="submit" disabled={busy || !base}>
              {id ? 'Save job' : 'Create job'}
            </button>
          )}
          <button type="button" className="secondary" onClick={() => navigate('/jobs')}>
            Back to jobs
          </button>
        </div>
      </form>
      {id && canMutate && base && <Backfill jobId={id} />}
    </section>
  );
}

/** The alarm channels a job's alarms go to: any of ListAlarmChannels' (and the job's own, should the list not have them). */
function AlarmChannelSelect({ value, onChange }: { value: string[]; onChange: (v: string[]) => void }) {
  const { channels, error } = useAlarmChannels();
  const names = (channels ?? []).map((c) => c.name ?? '');
  for (const n of value) if (channels && !names.includes(n)) names.push(n);
  const kinds = new Map((channels ?? []).map((c) => [c.name ?? '', kindLabel(c.kind)]));
  return (
    <Field
      label="Alarm channels"
      hint={error ? `cannot list alarm channels: ${errorText(error)}` : names.length ? 'each receives its alarms; Ctrl/⌘-click picks several or none' : 'none yet: an admin adds them under Alarm channels'}
    >
      <select multiple size={Math.min(Math.max(names.length, 2), 6)} value={value} onChange={(e) => onChange(Array.from(e.target.selectedOptions, (o) => o.value))}>
        {names.map((n) => (
          <option key={n} value={n}>
            {kinds.has(n) ? `${n} (${kinds.get(n)})` : n}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The pool whose slots a job's runs take: "none" or one of ListPools' (and the job's own, should the list not have it). */
function PoolSelect({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const { pools, error } = usePools();
  const names = (pools ?? []).map((p) => p.name ?? '');
  if (value && pools && !names.includes(value)) names.push(value);
  const slots = new Map((pools ?? []).map((p) => [p.name ?? '', p.slots ?? 0]));
  return (
    <Field
      label="Pool"
      hint={error ? `cannot list pools: ${errorText(error)}` : 'its runs wait queued for a free slot of the pool (at most that many run at once); none: sent at once'}
    >
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">none</option>
        {names.map((n) => (
          <option key={n} value={n}>
            {slots.has(n) ? `${n} (${slots.get(n)} ${slots.get(n) === 1 ? 'slot' : 'slots'})` : n}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The calendar a schedule names: "none" or one of ListCalendars' (and the job's own, should the list not have it). */
function CalendarSelect({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const { calendars, error } = useCalendars();
  const names = (calendars ?? []).map((c) => c.name ?? '');
  if (value && calendars && !names.includes(value)) names.push(value);
  return (
    <Field label="Calendar" hint={error ? `cannot list calendars: ${errorText(error)}` : 'only the slots it allows fire; the others are skipped (the preview shows which)'}>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">none</option>
        {names.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </Field>
  );
}
