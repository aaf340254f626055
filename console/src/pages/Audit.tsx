import { useState } from 'react';
import { call } from '../api';
import { fmtTime } from '../format';
import type { AuditEntry } from '../types';
import { ErrorBox, Field, Pager, useLoad } from '../ui';

export default function Audit() {
  const [object, setObject] = useState('');
  const [pages, setPages] = useState<string[]>(['']);
  const pageToken = pages[pages.length - 1];
  const { data, error } = useLoad(
    () =>
      call<{ entries?: AuditEntry[]; nextPageToken?: string }>('JobAdmin/ListAudit', {
        object: object || undefined,
        pageSize: 50,
        pageToken: pageToken || undefined,
      }),
    [object, pageToken],
  );
  return (
    <section aria-labelledby="audit-h">
      <h1 id="audit-h">Audit</h1>
      <div className="filters">
        <Field label="Object" hint='e.g. "job/12"'>
          <input
            value={object}
            onChange={(e) => {
              setObject(e.target.value);
              setPages(['']);
            }}
          />
        </Field>
      </div>
      <ErrorBox error={error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>ID</th>
              <th>Time</th>
              <th>Actor</th>
              <th>Method</th>
              <th>Object</th>
              <th>Request</th>
            </tr>
          </thead>
          <tbody>
            {(data?.entries ?? []).map((e) => (
              <tr key={e.id}>
                <td>{e.id}</td>
                <td>{fmtTime(e.time)}</td>
                <td>{e.actor}</td>
                <td>{e.method}</td>
                <td>{e.object}</td>
                <td>
                  <code className="json">{e.requestJson}</code>
                  {(e.beforeJson || e.afterJson) && (
                    <details>
                      <summary>Before and after</summary>
                      <p>Before:</p>
                      <code className="json">{e.beforeJson || '—'}</code>
                      <p>After:</p>
                      <code className="json">{e.afterJson || '—'}</code>
                    </details>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} setPages={setPages} next={data?.nextPageToken} />
    </section>
  );
}
