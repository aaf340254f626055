// A script job's kept versions (JobAdmin.ListScriptVersions): a diff of any two
// (fetched with GetScriptVersion, compared here) and a roll back to one (RollbackScript).
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { call } from '../api';
import { enumLabel, fmtTime } from '../format';
import { lineDiff } from '../lineDiff';
import { useSession } from '../session';
import type { Job, ScriptVersion } from '../types';
import { ConfirmButton, ErrorBox, Field, Pager, useLoad } from '../ui';

export default function ScriptVersions() {
  const { id = '' } = useParams();
  const { canMutate } = useSession();
  const [pages, setPages] = useState<string[]>(['']);
  const [n, setN] = useState(0); // bumped after a roll back: the job and its versions again
  const job = useLoad(() => call<Job>('JobAdmin/GetJob', { jobId: id }), [id, n]);
  const list = useLoad(
    () =>
      call<{ versions?: ScriptVersion[]; nextPageToken?: string }>('JobAdmin/ListScriptVersions', {
        jobId: id,
        pageSize: 50,
        pageToken: pages[pages.length - 1] || undefined,
      }),
    [id, pages, n],
  );
  const versions = list.data?.versions ?? [];
  const current = job.data?.script?.version;
  // The diff's two sides: by default the newest version against the one before it.
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  useEffect(() => {
    if (!versions.length) return;
    setTo((t) => t || versions[0].version || '');
    setFrom((f) => f || (versions[1] ?? versions[0]).version || '');
  }, [versions]);
  const [remark, setRemark] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');

  async function rollback(version: string) {
    setError(null);
    setDone('');
    try {
      const j = await call<Job>('JobAdmin/RollbackScript', { jobId: id, version, remark: remark.trim() || undefined });
      setDone(`Rolled back to version ${version}: the script is now version ${j.script?.version}.`);
      setRemark('');
      setFrom('');
      setTo('');
      setPages(['']);
      setN((x) => x + 1);
    } catch (e) {
      setError(e);
    }
  }

  const title = `Script versions of job ${id}`;
  return (
    <section aria-labelledby="sv-h">
      <div className="page-head">
        <h1 id="sv-h">{title}</h1>
        <Link to={`/jobs/${id}/edit`}>Back to the job</Link>
      </div>
      <p>
        {job.data?.name} · {enumLabel(job.data?.script?.language, 'SCRIPT_LANGUAGE_')} · current version {current ?? '—'}
      </p>
      <ErrorBox error={job.error || list.error || error} />
      {done && <p role="status">{done}</p>}
      {canMutate && (
        <div className="filters">
          <Field label="Remark for a roll back" hint="stored with the new version; empty: rollback to v<version>">
            <input value={remark} maxLength={255} onChange={(e) => setRemark(e.target.value)} />
          </Field>
        </div>
      )}
      <div className="table-wrap">
        <table className="stack" aria-label="Script versions">
          <thead>
            <tr>
              <th>Version</th>
              <th>Diff from</th>
              <th>Diff to</th>
              <th>Language</th>
              <th>Bytes</th>
              <th>Author</th>
              <th>Remark</th>
              <th>Stored</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.version} data-version={v.version}>
                <td data-label="Version">
                  v{v.version}
                  {v.version === current && <> (current)</>}
                </td>
                <td data-label="Diff from">
                  <input type="radio" name="diff-from" aria-label={`Diff from version ${v.version}`} checked={from === v.version} onChange={() => setFrom(v.version ?? '')} />
                </td>
                <td data-label="Diff to">
                  <input type="radio" name="diff-to" aria-label={`Diff to version ${v.version}`} checked={to === v.version} onChange={() => setTo(v.version ?? '')} />
                </td>
                <td data-label="Language">{enumLabel(v.language, 'SCRIPT_LANGUAGE_')}</td>
                <td data-label="Bytes">{v.sourceBytes ?? '0'}</td>
                <td data-label="Author">{v.author || '—'}</td>
                <td data-label="Remark">{v.remark || '—'}</td>
                <td data-label="Stored">{fmtTime(v.createTime)}</td>
                <td data-label="Actions">
                  {canMutate && v.version !== current && (
                    <ConfirmButton
                      label="Roll back"
                      ariaLabel={`Roll back to version ${v.version}`}
                      confirmLabel={`Confirm roll back to version ${v.version}`}
                      confirmGroupLabel={`Roll back to version ${v.version}?`}
                      onConfirm={() => rollback(v.version ?? '')}
                    />
                  )}
                </td>
              </tr>
            ))}
            {list.data && versions.length === 0 && (
              <tr>
                <td colSpan={9}>No versions kept.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} setPages={setPages} next={list.data?.nextPageToken} />
      {from && to && <Diff jobId={id} from={from} to={to} />}
    </section>
  );
}

/** The line diff of two versions' sources. */
function Diff({ jobId, from, to }: { jobId: string; from: string; to: string }) {
  const { data, error } = useLoad(
    () => Promise.all([from, to].map((version) => call<ScriptVersion>('JobAdmin/GetScriptVersion', { jobId, version }))),
    [jobId, from, to],
  );
  const lines = data ? lineDiff(data[0].source ?? '', data[1].source ?? '') : [];
  const changed = lines.filter((l) => l.op !== ' ').length;
  return (
    <section className="panel" aria-labelledby="diff-h">
      <h2 id="diff-h">
        Diff v{from} → v{to}
      </h2>
      <ErrorBox error={error} />
      {data && data[0].language !== data[1].language && (
        <p>
          Language: {enumLabel(data[0].language, 'SCRIPT_LANGUAGE_')} → {enumLabel(data[1].language, 'SCRIPT_LANGUAGE_')}
        </p>
      )}
      {data && (
        <pre className="diff" aria-label={`Diff of version ${from} and version ${to}`}>
          {changed === 0 && <span className="same">(same source)</span>}
          {changed > 0 &&
            lines.map((l, i) => (
              <span key={i} className={l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'same'}>
                {l.op} {l.text}
              </span>
            ))}
        </pre>
      )}
    </section>
  );
}
