import { useState, type FormEvent } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { call } from '../api';
import { useSession } from '../session';
import { ErrorBox, Field } from '../ui';

export default function Login() {
  const { login } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [mode, setMode] = useState<'token' | 'password'>('token');
  const [token, setTokenText] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      let t = token.trim();
      if (mode === 'password') {
        const basic = `Basic ${btoa(unescape(encodeURIComponent(`${user}:${password}`)))}`;
        const res = await call<{ secret?: string }>('JobAdmin/Login', {}, basic);
        t = res.secret ?? '';
      }
      await login(t);
      const from = (location.state as { from?: { pathname?: string } } | null)?.from?.pathname;
      navigate(from && from !== '/login' ? from : '/', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login">
      <h1>gnomon console</h1>
      <form onSubmit={submit} aria-label="Log in">
        <fieldset className="tabs">
          <legend>Log in with</legend>
          <label>
            <input type="radio" name="mode" checked={mode === 'token'} onChange={() => setMode('token')} /> Token
          </label>
          <label>
            <input type="radio" name="mode" checked={mode === 'password'} onChange={() => setMode('password')} /> User and
            password
          </label>
        </fieldset>
        {mode === 'token' ? (
          <Field label="API token">
            <input type="password" autoComplete="off" value={token} onChange={(e) => setTokenText(e.target.value)} required />
          </Field>
        ) : (
          <>
            <Field label="User">
              <input autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} required />
            </Field>
            <Field label="Password">
              <input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
            </Field>
          </>
        )}
        <ErrorBox error={error} />
        <button type="submit" disabled={busy}>
          Log in
        </button>
      </form>
    </main>
  );
}
