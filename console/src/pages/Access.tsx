import { useState, type FormEvent } from 'react';
import { call } from '../api';
import { enumLabel, fmtGrants, fmtTime } from '../format';
import type { ApiToken, Grants, Role, User } from '../types';
import { ConfirmButton, ErrorBox, Field, useLoad } from '../ui';

const ROLES: Role[] = ['ROLE_ADMIN', 'ROLE_OPERATOR', 'ROLE_VIEWER'];

function parseGrants(all: boolean, ids: string): Grants | undefined {
  const groupIds = ids.split(/[\s,]+/).filter(Boolean);
  return all ? { allGroups: true } : groupIds.length ? { groupIds } : undefined;
}

function RoleGrants({ role, setRole, all, setAll, ids, setIds }: {
  role: Role; setRole: (r: Role) => void; all: boolean; setAll: (b: boolean) => void; ids: string; setIds: (s: string) => void;
}) {
  return (
    <>
      <Field label="Role">
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {enumLabel(r, 'ROLE_')}
            </option>
          ))}
        </select>
      </Field>
      {role !== 'ROLE_ADMIN' && (
        <>
          <label className="check">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> All groups
          </label>
          {!all && (
            <Field label="Group IDs">
              <input value={ids} onChange={(e) => setIds(e.target.value)} placeholder="1, 2" />
            </Field>
          )}
        </>
      )}
    </>
  );
}

export default function Access() {
  return (
    <section aria-labelledby="access-h">
      <h1 id="access-h">Access</h1>
      <Tokens />
      <Users />
    </section>
  );
}

function Tokens() {
  const list = useLoad(() => call<{ tokens?: ApiToken[] }>('JobAdmin/ListTokens', {}).then((r) => r.tokens ?? []), []);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('ROLE_VIEWER');
  const [all, setAll] = useState(true);
  const [ids, setIds] = useState('');
  const [ttl, setTtl] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<unknown>(null);

  async function create(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      const r = await call<{ secret?: string }>('JobAdmin/CreateToken', {
        name,
        role,
        grants: role === 'ROLE_ADMIN' ? undefined : parseGrants(all, ids),
        ttl: ttl ? `${Number(ttl) * 86400}s` : undefined,
      });
      setSecret(r.secret ?? '');
      setName('');
      list.reload();
    } catch (err) {
      setError(err);
    }
  }
  async function revoke(n?: string) {
    setError(null);
    try {
      await call('JobAdmin/RevokeToken', { name: n });
      list.reload();
    } catch (err) {
      setError(err);
    }
  }

  return (
    <section className="panel" aria-labelledby="tokens-h">
      <h2 id="tokens-h">API tokens</h2>
      <ErrorBox error={list.error || error} />
      <form className="inline-form" onSubmit={create} aria-label="Create token">
        <Field label="Token name">
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </Field>
        <RoleGrants role={role} setRole={setRole} all={all} setAll={setAll} ids={ids} setIds={setIds} />
        <Field label="Expires after (days, empty for never)">
          <input type="number" min="0" step="any" value={ttl} onChange={(e) => setTtl(e.target.value)} />
        </Field>
        <button type="submit">Create token</button>
      </form>
      {secret && (
        <p role="status">
          New token (shown once): <code>{secret}</code>
        </p>
      )}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Grants</th>
              <th>User</th>
              <th>Created</th>
              <th>Expires</th>
              <th>Revoked</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data ?? []).map((t) => (
              <tr key={`${t.name}-${t.fingerprint}`}>
                <td>{t.name}</td>
                <td>{enumLabel(t.role, 'ROLE_')}</td>
                <td>{fmtGrants(t.grants)}</td>
                <td>{t.user || '—'}</td>
                <td>{fmtTime(t.createTime)}</td>
                <td>{fmtTime(t.expireTime)}</td>
                <td>{fmtTime(t.revokeTime)}</td>
                <td>{!t.revokeTime && <ConfirmButton label="Revoke" ariaLabel={`Revoke token ${t.name}`} confirmLabel={`Confirm revoke token ${t.name}`} className="danger" onConfirm={() => revoke(t.name)} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Users() {
  const list = useLoad(() => call<{ users?: User[] }>('JobAdmin/ListUsers', {}).then((r) => r.users ?? []), []);
  const [editing, setEditing] = useState<string | null>(null); // null: creating
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('ROLE_VIEWER');
  const [all, setAll] = useState(true);
  const [ids, setIds] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);

  function edit(u: User) {
    setEditing(u.name ?? '');
    setName(u.name ?? '');
    setRole(u.role ?? 'ROLE_VIEWER');
    setAll(!!u.grants?.allGroups);
    setIds((u.grants?.groupIds ?? []).join(', '));
    setPassword('');
  }
  function reset() {
    setEditing(null);
    setName('');
    setPassword('');
  }
  async function save(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      const user: User = { name, role, grants: role === 'ROLE_ADMIN' ? undefined : parseGrants(all, ids) };
      await call(editing ? 'JobAdmin/UpdateUser' : 'JobAdmin/CreateUser', { user, password: password || undefined });
      reset();
      list.reload();
    } catch (err) {
      setError(err);
    }
  }
  async function remove(n?: string) {
    setError(null);
    try {
      await call('JobAdmin/DeleteUser', { name: n });
      list.reload();
    } catch (err) {
      setError(err);
    }
  }

  return (
    <section className="panel" aria-labelledby="users-h">
      <h2 id="users-h">Users</h2>
      <ErrorBox error={list.error || error} />
      <form className="inline-form" onSubmit={save} aria-label={editing ? `Update user ${editing}` : 'Create user'}>
        <Field label="User name">
          <input value={name} onChange={(e) => setName(e.target.value)} required disabled={!!editing} />
        </Field>
        <RoleGrants role={role} setRole={setRole} all={all} setAll={setAll} ids={ids} setIds={setIds} />
        <Field label={editing ? 'New password (empty keeps it)' : 'Password'}>
          <input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required={!editing} />
        </Field>
        <button type="submit">{editing ? 'Update user' : 'Create user'}</button>
        {editing && (
          <button type="button" className="secondary" onClick={reset}>
            Cancel
          </button>
        )}
      </form>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Grants</th>
              <th>Created</th>
              <th>Updated</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data ?? []).map((u) => (
              <tr key={u.name}>
                <td>{u.name}</td>
                <td>{enumLabel(u.role, 'ROLE_')}</td>
                <td>{fmtGrants(u.grants)}</td>
                <td>{fmtTime(u.createTime)}</td>
                <td>{fmtTime(u.updateTime)}</td>
                <td>
                  <div className="actions">
                  <button type="button" className="secondary" aria-label={`Edit user ${u.name}`} onClick={() => edit(u)}>
                    Edit
                  </button>
                  <ConfirmButton label="Delete" ariaLabel={`Delete user ${u.name}`} confirmLabel={`Confirm delete user ${u.name}`} className="danger" onConfirm={() => remove(u.name)} />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
