// Alarm channels (common.proto AlarmChannel): loading them, and how the screens show one.
import { useNamedList } from './named';
import type { AlarmChannel, AlarmChannelKind, AlarmOn } from './types';

/** The kinds, in the proto's order, as the screens name them. */
export const CHANNEL_KINDS: { kind: AlarmChannelKind; label: string }[] = [
  { kind: 'DINGTALK', label: 'DingTalk' },
  { kind: 'WECOM', label: 'WeCom' },
  { kind: 'FEISHU', label: 'Feishu' },
  { kind: 'SLACK', label: 'Slack' },
  { kind: 'TELEGRAM', label: 'Telegram' },
];

export const kindLabel = (k?: AlarmChannelKind) => CHANNEL_KINDS.find((x) => x.kind === k)?.label ?? '—';

/** AlarmTargets.on: which run ends raise an alarm; unset reads as failure. */
export const ALARM_ONS: { on: AlarmOn; label: string }[] = [
  { on: 'ALARM_ON_FAILURE', label: 'failure' },
  { on: 'ALARM_ON_SUCCESS', label: 'success' },
  { on: 'ALARM_ON_BOTH', label: 'both' },
];

export const alarmOnLabel = (on?: AlarmOn) => ALARM_ONS.find((x) => x.on === (on ?? 'ALARM_ON_FAILURE'))?.label ?? 'failure';

/** The {{field}}s a template may use (AlarmChannel.template). */
export const TEMPLATE_FIELDS = [
  'job_id',
  'job_name',
  'job_description',
  'run_id',
  'attempt',
  'trigger_type',
  'executor_address',
  'handle_code',
  'handle_message',
  'scheduled_time',
  'end_time',
  'reason',
  'failed_runs',
  'failed_since',
  'kind',
  'summary',
];

/** Every alarm channel, by name (ListAlarmChannels is not paged); any role may read them: url origins, never secrets. */
export function useAlarmChannels() {
  const { items, error, reload } = useNamedList<AlarmChannel>('JobAdmin/ListAlarmChannels', 'channels');
  return { channels: items, error, reload };
}
