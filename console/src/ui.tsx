import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router-dom';
import { errorText } from './api';
import { enumLabel } from './format';
import type { Group } from './types';

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div role="alert" className="error">
      {errorText(error)}
    </div>
  );
}

/** A state as a coloured word ("JOB_STATE_PAUSED" → "paused"); `title` is its tooltip (e.g. why). */
export function StatusBadge({ status, title }: { status?: string; title?: string }) {
  const s = (status ?? 'RUN_STATUS_UNSPECIFIED').replace(/^(RUN_STATUS_|JOB_STATE_|WORKFLOW_RUN_STATUS_|WORKFLOW_NODE_STATE_|WORKFLOW_STATE_)/, '').toLowerCase();
  return (
    <span className={`badge badge-${s}`} title={title || undefined}>
      {s}
    </span>
  );
}

/** A button that asks "are you sure?" in place before doing `onConfirm`. */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  className,
  ariaLabel,
  extra,
  confirmGroupLabel,
}: {
  label: string;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  className?: string;
  /** The button's accessible name when `label` alone is ambiguous (e.g. one per table row). */
  ariaLabel?: string;
  /** Shown with the confirmation, above its buttons (e.g. an option of what to do). */
  extra?: ReactNode;
  /** The confirmation group's accessible name; `${label}?` unless given. */
  confirmGroupLabel?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className={className} aria-label={ariaLabel} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  const buttons = (
    <>
      <button
        type="button"
        className="danger"
        autoFocus
        onClick={async () => {
          setAsking(false);
          await onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </>
  );
  return (
    <span className={extra ? 'confirm confirm-extra' : 'confirm'} role="group" aria-label={confirmGroupLabel ?? `${label}?`}>
      {extra}
      {extra ? <span className="row">{buttons}</span> : buttons}
    </span>
  );
}

/** Loads `load()` now and again when `deps` change; `reload` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    setError(null);
    load().then(
      (d) => live && setData(d),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  return { data, error, reload, setError };
}

/** Calls `fn` every `ms` while `active` (a live view polling its data: pass useLoad's stable `reload`). */
export function useInterval(fn: () => void, ms: number, active = true) {
  useEffect(() => {
    if (!active) return;
    const t = setInterval(fn, ms);
    return () => clearInterval(t);
  }, [fn, ms, active]);
}

export function Field({ label, children, hint }: { label: string; children: ReactNode; hint?: ReactNode }) {
  return (
    <label className="field">
      <span>{label}</span>
      {children}
      {hint && <small>{hint}</small>}
    </label>
  );
}

/**
 * Previous/next page buttons over page tokens: `pages` is the tokens of the
 * pages visited ("" for the first), `next` the answer's nextPageToken.
 */
export function Pager({ pages, setPages, next }: { pages: string[]; setPages: (p: string[]) => void; next?: string }) {
  return (
    <div className="pager">
      <button type="button" className="secondary" disabled={pages.length < 2} onClick={() => setPages(pages.slice(0, -1))}>
        Previous page
      </button>
      <button type="button" className="secondary" disabled={!next} onClick={() => next && setPages([...pages, next])}>
        Next page
      </button>
    </div>
  );
}

/** The options of a group <select>: `empty` (value "") first, then each group as `label` names it. */
export function GroupOptions({ groups, label, empty }: { groups: Group[]; label: (g: Group) => string; empty: string }) {
  return (
    <>
      <option value="">{empty}</option>
      {groups.map((g) => (
        <option key={g.id} value={g.id}>
          {label(g)}
        </option>
      ))}
    </>
  );
}

/** The options of an enum <select>: each value labelled without its `prefix` ("ROUTE_STRATEGY_ROUND" → "round"). */
export function EnumOptions({ values, prefix }: { values: string[]; prefix: string }) {
  return (
    <>
      {values.map((v) => (
        <option key={v} value={v}>
          {enumLabel(v, prefix)}
        </option>
      ))}
    </>
  );
}

/** A details list: each [term, value] a <dt>/<dd> pair, the <dd> marked data-field=term. */
export function Details({ label, rows }: { label: string; rows: [string, ReactNode][] }) {
  return (
    <dl className="details" aria-label={label}>
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd data-field={k}>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A list's filters kept in the URL's query (so a link or a reload keeps them) and
 * the page tokens visited for its Pager, back to the first page when a filter changes.
 */
export function useUrlFilters() {
  const [sp, setSp] = useSearchParams();
  const [pages, setPages] = useState<string[]>(['']);
  // Filters set since the last render: two changes before React renders
  // again (clearing one filter, then choosing another) must both stand, and
  // setSearchParams does not queue updates the way setState does.
  const pending = useRef<URLSearchParams | null>(null);
  useEffect(() => {
    pending.current = null; // rendered: `sp` is current
  }, [sp]);
  const get = (k: string) => sp.get(k) ?? '';
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(pending.current ?? sp);
    if (v) next.set(k, v);
    else next.delete(k);
    pending.current = next;
    setSp(next, { replace: true });
    setPages(['']);
  };
  return { get, set, query: sp.toString(), pages, setPages, pageToken: pages[pages.length - 1] };
}
