// The JSON mapping of proto/gnomon/v1 messages (unset fields are missing).

export type Role = 'ROLE_ADMIN' | 'ROLE_OPERATOR' | 'ROLE_VIEWER' | 'ROLE_UNSPECIFIED';
/** QUEUED: recorded, waiting for a slot of its job's pool (not sent yet); it becomes PENDING when it gets one. */
export type RunStatus = 'RUN_STATUS_QUEUED' | 'RUN_STATUS_PENDING' | 'RUN_STATUS_RUNNING' | 'RUN_STATUS_SUCCEEDED' | 'RUN_STATUS_FAILED';

export interface Grants { allGroups?: boolean; groupIds?: string[] }
export interface WhoAmI { role?: Role; grants?: Grants; user?: string }

export interface Schedule {
  cron?: { expression?: string; timeZone?: string };
  fixRate?: string;
  fixDelay?: string;
  /** The name of the Calendar whose days and windows its slots must fall in; missing: none. */
  calendar?: string;
  /** Each scheduled fire of a job starts up to this much later ("30s"); jobs only. */
  jitter?: string;
}

export type Weekday = 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY';

/** The days and times of day a schedule naming it may fire (common.proto Calendar). */
export interface Calendar {
  id?: string;
  name?: string;
  description?: string;
  /** IANA zone its dates and windows are read in; missing: the schedule's. */
  timeZone?: string;
  /** Missing or empty: every day. */
  weekdays?: Weekday[];
  /** "YYYY-MM-DD", or "MM-DD" every year. */
  excludedDates?: string[];
  /** "YYYY-MM-DD": allowed whatever the weekday; an excluded date wins. */
  includedDates?: string[];
  /** "HH:MM-HH:MM" each; missing: all day. */
  windows?: string[];
  createTime?: string;
  updateTime?: string;
}

/** Concurrency slots shared by the jobs naming it (common.proto Pool): at most `slots` of their runs at once. */
export interface Pool {
  id?: string;
  /** Fixed once created; jobs name it in Job.pool. */
  name?: string;
  description?: string;
  /** Runs at once at most: 1 to 10,000. */
  slots?: number;
  createTime?: string;
  updateTime?: string;
  /** Output only: runs holding a slot now. */
  running?: number;
  /** Output only: runs waiting for one. */
  queued?: number;
}

/** ListPoolQueue's answer: the runs holding the pool's slots (oldest first) and the first waiting, in the order they get one. */
export interface PoolQueue {
  running?: Run[];
  queued?: Run[];
  /** Runs waiting in all (queued may list fewer). */
  queuedTotal?: number;
}

export interface Misfire {
  policy?: string;
  threshold?: string;
  maxCatchUp?: number;
}

/** Which run ends raise an alarm; unset: failure. */
export type AlarmOn = 'ALARM_ON_FAILURE' | 'ALARM_ON_SUCCESS' | 'ALARM_ON_BOTH';

export interface AlarmTargets {
  emails?: string[];
  webhookUrls?: string[];
  /** Alarm channels (AlarmChannel), by name; at most 16. */
  channels?: string[];
  on?: AlarmOn;
  /** After an alarm, more of the same kind within this long go out as one summary ("600s"); unset: none. */
  silence?: string;
}

export type AlarmChannelKind = 'DINGTALK' | 'WECOM' | 'FEISHU' | 'SLACK' | 'TELEGRAM';

/** A chat robot jobs name to receive their alarms (common.proto AlarmChannel). */
export interface AlarmChannel {
  id?: string;
  name?: string;
  kind?: AlarmChannelKind;
  /** Sent: the robot's webhook; shown: its origin only. On update empty keeps the stored one. */
  url?: string;
  /** Input only, never shown (hasSecret says whether one is stored); on update empty keeps the stored one. */
  secret?: string;
  /** Telegram: the chat. */
  chatId?: string;
  /** The message with {{field}}s; empty: the default. */
  template?: string;
  hasSecret?: boolean;
  createTime?: string;
  updateTime?: string;
}

/** The newest run of a job (Job.last_run). */
export interface RunSummary {
  runId?: string;
  triggerType?: string;
  triggerTime?: string;
  status?: RunStatus;
  handleCode?: number;
  endTime?: string;
}

/** PAUSED: not scheduled, paused by its pauseAfterFailures; StartJob resumes it. */
export type JobState = 'JOB_STATE_STOPPED' | 'JOB_STATE_RUNNING' | 'JOB_STATE_PAUSED' | 'JOB_STATE_UNSPECIFIED';

export interface Job {
  id?: string;
  groupId?: string;
  /** Unique within its group; "job-<id>" for a job created without one. */
  name?: string;
  description?: string;
  author?: string;
  schedule?: Schedule;
  misfire?: Misfire;
  routeStrategy?: string;
  blockStrategy?: string;
  bean?: { handler?: string };
  script?: { language?: string; source?: string; version?: string; remark?: string };
  params?: string;
  timeout?: string;
  retry?: { maxRetries?: number; initialDelay?: string; multiplier?: number; maxDelay?: string };
  childJobIds?: string[];
  alarm?: AlarmTargets;
  state?: JobState;
  nextFireTime?: string;
  createTime?: string;
  updateTime?: string;
  lastFireTime?: string;
  lastRun?: RunSummary;
  /** Pause the job once this many of its runs in a row failed for good (after retries); 0 or unset: never. */
  pauseAfterFailures?: number;
  /** Output only: why the server paused it ("paused after 3 consecutive failures; the last, run 81: …"). */
  pauseReason?: string;
  /** Output only: its runs that failed for good in a row, counted while pauseAfterFailures is set. */
  consecutiveFailures?: number;
  /**
   * Raise an alarm, killing nothing, when a fire's work is not done this long after its slot
   * (its trigger time without one), e.g. "3600s"; 1 s to 7 days; unset: none.
   */
  deadline?: string;
  /** Its schedule fires no slot before this (RFC 3339); unset: no start. */
  startTime?: string;
  /** Its schedule fires no slot at or after this (RFC 3339): the job then stays running with no next fire; unset: no end. */
  endTime?: string;
  /**
   * At most this many slots of its schedule from when it was last started (Start again counts afresh), then no next
   * fire; only with a cron or fixed-rate schedule; 0 or unset: no limit.
   */
  maxFires?: number;
  /** Output only, with maxFires: the slots its schedule will still fire (unset: 0). */
  firesLeft?: number;
  /** The Pool whose slots its runs take (each waits QUEUED for one); unset: none, its runs are sent at once. */
  pool?: string;
  /** Among the runs queued for its pool, higher gets a free slot first (then the oldest): -1000 to 1000; unset: 0. */
  priority?: number;
}

/** One kept version of a script job's script (JobAdmin.ListScriptVersions / GetScriptVersion). */
export interface ScriptVersion {
  jobId?: string;
  version?: string;
  language?: string;
  source?: string; // empty in ListScriptVersions
  author?: string;
  remark?: string;
  createTime?: string;
  sourceBytes?: string;
}

export interface Group {
  id?: string;
  appName?: string;
  title?: string;
  autoRegistration?: object;
  manual?: { addresses?: string[] };
  accessToken?: string;
  createTime?: string;
  previousAccessToken?: string;
  previousTokenExpireTime?: string;
}

export interface Run {
  id?: string;
  jobId?: string;
  groupId?: string;
  triggerType?: string;
  scheduledTime?: string;
  triggerTime?: string;
  dispatchTime?: string;
  executorAddress?: string;
  handler?: string;
  params?: string;
  shardIndex?: number;
  shardTotal?: number;
  attempt?: number;
  firstRunId?: string;
  parentRunId?: string;
  triggerCode?: number;
  triggerMessage?: string;
  handleCode?: number;
  handleMessage?: string;
  startTime?: string;
  endTime?: string;
  status?: RunStatus;
  logLineCount?: string;
  logTruncated?: boolean;
  /** A workflow node's run: its workflow run, node and the node's attempt. */
  workflowRunId?: string;
  workflowNode?: string;
  workflowAttempt?: number;
  /** The value its handler returned (ctx.SetOutput). */
  output?: string;
  /** A workflow node's run: its parents' outputs. */
  inputs?: { node?: string; output?: string }[];
  /** When the work of its fire must be done by (its job's deadline); unset without one. */
  deadlineTime?: string;
  /** The pool whose slot it takes (its job's when it was recorded) and its priority there; unset without a pool. */
  pool?: string;
  priority?: number;
  /** When it was queued for a slot of its pool (its triggerTime is when it got one); unset if it never queued. */
  queuedTime?: string;
}

export interface LogLine { lineNumber?: string; time?: string; text?: string }

export interface ManualExecutor { address?: string; alive?: boolean }

export interface GroupExecutors {
  groupId?: string;
  appName?: string;
  executors?: ExecutorInfo[];
  manual?: ManualExecutor[];
}

export interface JobBusy { jobId?: string; running?: number; queued?: number }

export interface ExecutorInfo {
  appName?: string;
  address?: string;
  handlers?: string[];
  capacity?: number;
  version?: string;
  runningRuns?: number;
  /** The most loaded busy jobs (at most 1,000; all of them unless busyJobsPartial). */
  busyJobs?: JobBusy[];
  busyJobCount?: number;
  queuedRuns?: number;
  busyJobsPartial?: boolean;
  registerTime?: string;
  lastBeatTime?: string;
}

export interface WatchExecutorsResponse {
  snapshot?: { executors?: ExecutorInfo[] };
  change?: { kind?: string; executor?: ExecutorInfo };
}

export interface StatsRow {
  day?: string;
  jobId?: string;
  running?: string;
  succeeded?: string;
  failed?: string;
  durationP50Ms?: string;
  durationP99Ms?: string;
  latenessP50Ms?: string;
  latenessP99Ms?: string;
}

export interface ApiToken {
  name?: string;
  fingerprint?: string;
  createTime?: string;
  expireTime?: string;
  revokeTime?: string;
  role?: Role;
  grants?: Grants;
  user?: string;
}

export interface User { name?: string; role?: Role; grants?: Grants; createTime?: string; updateTime?: string }

export interface AuditEntry {
  id?: string;
  time?: string;
  actor?: string;
  method?: string;
  object?: string;
  requestJson?: string;
  beforeJson?: string;
  afterJson?: string;
}

// Workflows (workflow.proto): a named DAG of jobs of one group, and runs of it.

export type WorkflowEdgeWhen =
  | 'WORKFLOW_EDGE_WHEN_UNSPECIFIED'
  | 'WORKFLOW_EDGE_WHEN_SUCCESS'
  | 'WORKFLOW_EDGE_WHEN_FAILURE'
  | 'WORKFLOW_EDGE_WHEN_COMPLETION'
  | 'WORKFLOW_EDGE_WHEN_TRUE'
  | 'WORKFLOW_EDGE_WHEN_FALSE';
export type WorkflowNodeState =
  | 'WORKFLOW_NODE_STATE_UNSPECIFIED'
  | 'WORKFLOW_NODE_STATE_PENDING'
  | 'WORKFLOW_NODE_STATE_RUNNING'
  | 'WORKFLOW_NODE_STATE_SUCCEEDED'
  | 'WORKFLOW_NODE_STATE_FAILED'
  | 'WORKFLOW_NODE_STATE_SKIPPED'
  | 'WORKFLOW_NODE_STATE_BYPASSED'
  | 'WORKFLOW_NODE_STATE_CANCELLED';
export type WorkflowRunStatus =
  | 'WORKFLOW_RUN_STATUS_UNSPECIFIED'
  | 'WORKFLOW_RUN_STATUS_RUNNING'
  | 'WORKFLOW_RUN_STATUS_SUCCEEDED'
  | 'WORKFLOW_RUN_STATUS_FAILED'
  | 'WORKFLOW_RUN_STATUS_CANCELLED';

/** A condition node's test of its one parent's result (unset subject: OUTPUT; unset op: NON_EMPTY). */
export interface WorkflowCondition { subject?: string; op?: string; value?: string }

/** A job node has jobId (and jobName, filled in by the server); a condition node has condition. */
export interface WorkflowNode { name?: string; jobId?: string; condition?: WorkflowCondition; jobName?: string }

/** "`to` runs after `from`" on `when` (unset: SUCCESS). */
export interface WorkflowEdge { from?: string; to?: string; when?: WorkflowEdgeWhen }

export interface Workflow {
  id?: string;
  groupId?: string;
  name?: string;
  description?: string;
  nodes?: WorkflowNode[];
  edges?: WorkflowEdge[];
  /** Unset: started by hand or through the API only. */
  schedule?: Schedule;
  misfirePolicy?: string;
  params?: string;
  state?: 'WORKFLOW_STATE_STOPPED' | 'WORKFLOW_STATE_RUNNING' | 'WORKFLOW_STATE_UNSPECIFIED';
  createTime?: string;
  updateTime?: string;
}

export interface WorkflowShardResult { shard?: number; handleCode?: number; output?: string }

/** One node of a workflow run. */
export interface WorkflowNodeRun {
  node?: string;
  state?: WorkflowNodeState;
  attempt?: number;
  handleCode?: number;
  /** Its shards' outputs, one per line; a condition's "true" or "false". */
  output?: string;
  holds?: boolean;
  shardTotal?: number;
  shards?: WorkflowShardResult[];
}

export interface WorkflowRun {
  id?: string;
  workflowId?: string;
  status?: WorkflowRunStatus;
  params?: string;
  triggerType?: string;
  scheduledTime?: string;
  createTime?: string;
  endTime?: string;
  /** In the workflow's node order. */
  nodes?: WorkflowNodeRun[];
  cancelled?: boolean;
  version?: string;
  /** The graph the run started with (a later edit applies to later runs). */
  workflow?: Workflow;
}
