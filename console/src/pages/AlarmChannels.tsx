// Alarm channels: the chat robots (DingTalk, WeCom, Feishu, Slack, Telegram) jobs send their
// alarms to. Anyone reads them — the url's origin, whether a secret is stored, never the secret;
// an admin creates, edits, tests and deletes them (the server refuses deleting one a job names,
// and says which).
import { useState } from 'react';
import { call } from '../api';
import { kindLabel, useAlarmChannels } from '../alarmChannels';
import { fmtTime } from '../format';
import { useNamedPage } from '../named';
import { useSession } from '../session';
import type { AlarmChannel } from '../types';
import { ConfirmButton, ErrorBox } from '../ui';
import AlarmChannelForm from './AlarmChannelForm';

interface TestResult {
  name: string;
  delivered?: boolean;
  error?: string;
}

export default function AlarmChannels() {
  const { isAdmin } = useSession();
  const { channels, error: loadError, reload } = useAlarmChannels();
  const { editing, edit, error, setError, saved, setSaved, remove, done } = useNamedPage<AlarmChannel>('alarm channel', 'JobAdmin/DeleteAlarmChannel', reload);
  const [testing, setTesting] = useState<string | null>(null);
  const [tested, setTested] = useState<TestResult | null>(null);

  /** TestAlarmChannel: a test message through the channel now; the answer says whether the service took it. */
  async function test(c: AlarmChannel) {
    setError(null);
    setSaved(null);
    setTested(null);
    setTesting(c.name ?? null);
    try {
      setTested({ name: c.name ?? '', ...(await call<{ delivered?: boolean; error?: string }>('JobAdmin/TestAlarmChannel', { name: c.name })) });
    } catch (e) {
      setError(e);
    } finally {
      setTesting(null);
    }
  }

  const list = channels ?? [];
  const columns = isAdmin ? 8 : 7;
  return (
    <section aria-labelledby="alarm-channels-h">
      <div className="page-head">
        <h1 id="alarm-channels-h">Alarm channels</h1>
        <div className="actions">
          {isAdmin && editing === null && (
            <button type="button" onClick={() => (edit(''), setTested(null))}>
              New alarm channel
            </button>
          )}
          <button type="button" className="secondary" onClick={reload}>
            Refresh
          </button>
        </div>
      </div>
      <p className="hint">
        A job whose alarms name a channel posts them to its chat robot, as its template says. The server shows a channel's url as its origin only and
        never its secret; Test sends a test message now.
      </p>
      {editing === '' && <AlarmChannelForm onDone={done} />}
      <ErrorBox error={loadError || error} />
      {saved && (
        <p role="status" className="hint">
          {saved}
        </p>
      )}
      {tested && (
        <p role="status" className={tested.delivered ? 'hint' : 'error'}>
          {tested.delivered ? `Test of ${tested.name}: delivered.` : `Test of ${tested.name}: not delivered: ${tested.error || 'no reason given'}`}
        </p>
      )}
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>URL (origin)</th>
              <th>Secret</th>
              <th>Chat</th>
              <th>Template</th>
              <th>Updated</th>
              {isAdmin && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.name} data-alarm-channel={c.name}>
                <td data-label="Name">{c.name}</td>
                <td data-label="Kind">{kindLabel(c.kind)}</td>
                <td data-label="URL">{c.url || '—'}</td>
                <td data-label="Secret">{c.hasSecret ? 'stored' : 'none'}</td>
                <td data-label="Chat">{c.chatId || '—'}</td>
                <td data-label="Template" title={c.template || undefined}>
                  {c.template ? 'custom' : 'default'}
                </td>
                <td data-label="Updated">{fmtTime(c.updateTime)}</td>
                {isAdmin && (
                  <td data-label="Actions">
                    <div className="actions">
                      <button type="button" className="secondary" aria-label={`Test alarm channel ${c.name}`} disabled={testing !== null} onClick={() => test(c)}>
                        {testing === c.name ? 'Testing…' : 'Test'}
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        aria-expanded={editing === c.name}
                        aria-label={`Edit alarm channel ${c.name}`}
                        onClick={() => (edit(editing === c.name ? null : (c.name ?? null)), setTested(null))}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        ariaLabel={`Delete alarm channel ${c.name}`}
                        className="danger"
                        confirmLabel={`Confirm delete alarm channel ${c.name}`}
                        confirmGroupLabel={`Delete alarm channel ${c.name}?`}
                        onConfirm={() => (setTested(null), remove(c))}
                      />
                    </div>
                  </td>
                )}
              </tr>
            ))}
            {channels && list.length === 0 && (
              <tr>
                <td colSpan={columns}>No alarm channels.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {editing && list.some((c) => c.name === editing) && (
        <AlarmChannelForm key={editing} channel={list.find((c) => c.name === editing)} onDone={done} />
      )}
    </section>
  );
}
