import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { ApiError, call, getToken, setToken, UNAUTHENTICATED_EVENT } from './api';
import type { WhoAmI } from './types';

interface Session {
  token: string | null;
  who: WhoAmI | null;
  isAdmin: boolean;
  /** Operators and admins may change things; viewers only look. */
  canMutate: boolean;
  login: (token: string) => Promise<void>;
  logout: () => void;
}

const Ctx = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(Ctx);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** Who the token is. A gnomond without WhoAmI (404) leaves the role unknown: the console then
 * shows every button and the server still refuses what the token may not do. */
async function whoAmI(): Promise<WhoAmI> {
  try {
    return await call<WhoAmI>('JobAdmin/WhoAmI', {});
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      await call('JobAdmin/ListGroups', {}); // still check the token
      return { role: 'ROLE_UNSPECIFIED' };
    }
    throw e;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setTok] = useState<string | null>(getToken());
  const [who, setWho] = useState<WhoAmI | null>(null);

  const forget = useCallback(() => {
    setToken(null);
    setTok(null);
    setWho(null);
  }, []);

  // Ends the session on the server too (a login session's token is revoked;
  // an API token pasted in is not a session and stays valid), then forgets it.
  const logout = useCallback(() => {
    if (who?.user) void call('JobAdmin/Logout', {}).catch(() => undefined);
    forget();
  }, [who, forget]);

  const login = useCallback(async (t: string) => {
    setToken(t);
    try {
      setWho(await whoAmI());
      setTok(t);
    } catch (e) {
      setToken(null);
      throw e;
    }
  }, []);

  // The token stopped working (expired, revoked): back to the login screen.
  useEffect(() => {
    const onUnauthenticated = () => {
      if (getToken()) forget();
    };
    window.addEventListener(UNAUTHENTICATED_EVENT, onUnauthenticated);
    return () => window.removeEventListener(UNAUTHENTICATED_EVENT, onUnauthenticated);
  }, [forget]);

  // A reload keeps the token (sessionStorage): ask again who it is.
  useEffect(() => {
    if (token && !who) {
      whoAmI().then(setWho, (e) => {
        if (e instanceof ApiError && e.status === 401) logout();
      });
    }
  }, [token, who, logout]);

  const role = who?.role;
  const value: Session = {
    token,
    who,
    isAdmin: role === 'ROLE_ADMIN' || role === 'ROLE_UNSPECIFIED',
    canMutate: role === 'ROLE_ADMIN' || role === 'ROLE_OPERATOR' || role === 'ROLE_UNSPECIFIED',
    login,
    logout,
  };
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}
