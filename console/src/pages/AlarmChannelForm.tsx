// The create / edit form of an alarm channel (CreateAlarmChannel, UpdateAlarmChannel). The server
// shows a channel's url as its origin only and never its secret, so on edit both boxes start empty
// and an empty one keeps what is stored; the server's refusal ("channel.url: ...") shows under the form.
import { useState, type FormEvent } from 'react';
import { call } from '../api';
import { CHANNEL_KINDS, kindLabel, TEMPLATE_FIELDS } from '../alarmChannels';
import type { AlarmChannel, AlarmChannelKind } from '../types';
import { ErrorBox, Field } from '../ui';

const URL_HINTS: Record<AlarmChannelKind, string> = {
  DINGTALK: 'https://oapi.dingtalk.com/robot/send?access_token=…',
  WECOM: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…',
  FEISHU: 'https://open.feishu.cn/open-apis/bot/v2/hook/…',
  SLACK: 'https://hooks.slack.com/services/…',
  TELEGRAM: 'https://api.telegram.org (empty: this)',
};

const SECRET_HINTS: Record<AlarmChannelKind, string> = {
  DINGTALK: "the robot's signing secret (SEC…), if it has one",
  WECOM: 'none: the key is in the url',
  FEISHU: "the bot's signing secret, if it has one",
  SLACK: 'none: the url is the credential',
  TELEGRAM: "the bot's token (required)",
};

/** `channel` (none: a new one) as a form; `onDone(saved)` after a save (the server's answer) or a cancel (null). */
export default function AlarmChannelForm({ channel, onDone }: { channel?: AlarmChannel; onDone: (saved: AlarmChannel | null) => void }) {
  const editing = !!channel;
  const [name, setName] = useState(channel?.name ?? '');
  const [kind, setKind] = useState<AlarmChannelKind>(channel?.kind ?? 'DINGTALK');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [chatId, setChatId] = useState(channel?.chatId ?? '');
  const [template, setTemplate] = useState(channel?.template ?? '');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    // Empty url and secret are left out: on update the server keeps the stored ones.
    const c: AlarmChannel = {
      name: name.trim(),
      kind,
      url: url.trim() || undefined,
      secret: secret || undefined,
      chatId: kind === 'TELEGRAM' ? chatId.trim() || undefined : undefined,
      template: template || undefined,
    };
    try {
      onDone(await call<AlarmChannel>(`JobAdmin/${editing ? 'UpdateAlarmChannel' : 'CreateAlarmChannel'}`, { channel: c }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const title = editing ? `Edit alarm channel ${channel?.name}` : 'Create alarm channel';
  const stored = (what: string, shown?: string) => `empty keeps the stored ${what}${shown ? ` (${shown})` : ''}`;
  return (
    <form className="panel form-grid" onSubmit={submit} aria-label={title} onKeyDown={(e) => e.key === 'Escape' && onDone(null)}>
      <h2>{title}</h2>
      <fieldset disabled={busy}>
        <Field label="Channel name" hint={editing ? 'fixed once created' : "letters, digits, '.', '_' and '-'; jobs name it"}>
          <input value={name} onChange={(e) => setName(e.target.value)} readOnly={editing} required maxLength={64} pattern="[A-Za-z0-9._\-]+" autoFocus={!editing} />
        </Field>
        <Field label="Kind">
          <select value={kind} onChange={(e) => setKind(e.target.value as AlarmChannelKind)}>
            {CHANNEL_KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Webhook URL" hint={editing ? `${stored('url', channel?.url)}; the server shows a url's origin only` : `${kindLabel(kind)}: ${URL_HINTS[kind]}`}>
          <input
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            required={!editing && kind !== 'TELEGRAM'}
            maxLength={2048}
            placeholder={editing ? channel?.url || '' : URL_HINTS[kind]}
            spellCheck={false}
            autoComplete="off"
          />
        </Field>
        <Field label="Secret" hint={`${SECRET_HINTS[kind]}; never shown again${editing ? ` — ${stored('secret', channel?.hasSecret ? 'one is stored' : 'none is stored')}` : ''}`}>
          <input
            type="password"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            required={!editing && kind === 'TELEGRAM'}
            maxLength={256}
            autoComplete="new-password"
            spellCheck={false}
          />
        </Field>
        {kind === 'TELEGRAM' && (
          <Field label="Chat ID" hint='the chat: "-1001234567890" or "@channel"'>
            <input value={chatId} onChange={(e) => setChatId(e.target.value)} required maxLength={128} spellCheck={false} />
          </Field>
        )}
        <Field
          label="Message template"
          hint={
            <>
              empty: the default; {'{{field}}'} for the alarm's fields: {TEMPLATE_FIELDS.map((f) => `{{${f}}}`).join(', ')}
            </>
          }
        >
          <textarea rows={4} value={template} onChange={(e) => setTemplate(e.target.value)} maxLength={4096} spellCheck={false} placeholder="{{job_name}} failed: {{reason}}" />
        </Field>
      </fieldset>
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit" disabled={busy}>
          {editing ? 'Save alarm channel' : 'Create alarm channel'}
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
