// The one place that talks to gnomond's HTTP/JSON API (docs/http-api.md).

const TOKEN_KEY = 'gnomon.token';

/** Dispatched on window when a call with the stored token answers 401. */
export const UNAUTHENTICATED_EVENT = 'gnomon:unauthenticated';

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** A refused call: the gRPC code and message gnomond answered. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

async function post(path: string, body: unknown, init: RequestInit = {}, auth?: string): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const token = getToken();
  if (auth) headers.Authorization = auth;
  else if (token) headers.Authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body ?? {}), ...init });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError('UNAVAILABLE', `cannot reach gnomond: ${(e as Error).message}`, 0);
  }
  if (!res.ok) {
    const err = await toError(res);
    // A session that expired or a token revoked: whoever listens logs out.
    if (res.status === 401 && !auth) window.dispatchEvent(new CustomEvent(UNAUTHENTICATED_EVENT, { detail: err }));
    throw err;
  }
  return res;
}

async function toError(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const j = JSON.parse(text) as { code?: string; message?: string };
    return new ApiError(j.code ?? `HTTP_${res.status}`, j.message ?? text, res.status);
  } catch {
    return new ApiError(`HTTP_${res.status}`, text || res.statusText, res.status);
  }
}

/** A unary call: `method` is "Service/Method", e.g. "JobAdmin/ListJobs". */
export async function call<T>(method: string, body: unknown = {}, auth?: string): Promise<T> {
  const res = await post(`/v1/${method}`, body, {}, auth);
  const text = await res.text();
  return (text ? JSON.parse(text) : {}) as T;
}

/**
 * A server-streaming call read as Server-Sent Events. Resolves at `event: end`,
 * rejects with an ApiError at `event: error`, or with an AbortError when `signal` fires.
 */
export async function stream<T>(
  method: string,
  body: unknown,
  onMessage: (msg: T) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await post(`/v1/${method}`, body, { signal });
  if (!res.body) throw new ApiError('UNKNOWN', 'no response body', res.status);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let sep: number;
    while ((sep = buf.search(/\r?\n\r?\n/)) >= 0) {
      const raw = buf.slice(0, sep);
      buf = buf.slice(sep).replace(/^\r?\n\r?\n/, '');
      let event = 'message';
      const data: string[] = [];
      for (const line of raw.split(/\r?\n/)) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = val;
        else if (field === 'data') data.push(val);
      }
      if (data.length === 0 && event === 'message') continue;
      const payload = data.join('\n');
      if (event === 'end') {
        await reader.cancel().catch(() => undefined);
        return;
      }
      if (event === 'error') {
        const j = JSON.parse(payload || '{}') as { code?: string; message?: string };
        throw new ApiError(j.code ?? 'UNKNOWN', j.message ?? payload, 200);
      }
      onMessage(JSON.parse(payload) as T);
    }
  }
}

export function errorText(e: unknown): string {
  if (e instanceof ApiError) return `${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
