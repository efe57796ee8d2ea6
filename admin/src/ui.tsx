import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';

/** Loads once per change of `key` (a string of the inputs), and again on reload(); the last answer wins. */
export function useLoad<T>(load: () => Promise<T>, key: string): { data: T | undefined; error: Error | undefined; loading: boolean; reload: () => void } {
  // `of` says which key and round the state answers, and loading is derived from it during render: the render that
  // follows a key change (the next page, a new filter) already says "loading". A flag set in the effect below came
  // one render late, which labelled the old rows with the new page's range (a flaky admin-console test: "Rows 21–40"
  // over rows 1–20).
  const [state, setState] = useState<{ data?: T; error?: Error; of?: string }>({});
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const of = `${round} ${key}`;
  useEffect(() => {
    let current = true;
    loadRef.current().then(
      (data) => current && setState({ data, of }),
      (error: unknown) => current && setState({ error: error instanceof Error ? error : new Error(String(error)), of }),
    );
    return () => {
      current = false;
    };
  }, [of]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: state.data, error: state.error, loading: state.of !== of, reload };
}

export function ErrorNote({ error }: { error: Error | undefined | null }): ReactNode {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error.message}
    </p>
  );
}

export function Loading({ on }: { on: boolean }): ReactNode {
  return on ? <p aria-live="polite" className="muted">Loading…</p> : null;
}

/**
 * The deepest offset the server pages to (src/persistence/log-page.ts MAX_LOG_OFFSET; test/pins/admin-pager.pin.test.ts
 * fails when the two differ): past it the server answers BAD_USER_INPUT, so "Next page" stops there.
 */
const MAX_LOG_OFFSET = 10_000;

/** Previous / next over offset paging; `count` is how many rows the current page has. */
export function Pager(props: { offset: number; size: number; count: number; loading: boolean; onOffset: (o: number) => void; label: string }): ReactNode {
  const { offset, size, count, loading, onOffset, label } = props;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={loading || offset === 0} onClick={() => onOffset(Math.max(0, offset - size))}>
        Previous page
      </button>
      {/* The range is said only for rows that have arrived, never for the page being read. */}
      <span aria-live="polite">{loading ? 'Reading rows…' : `Rows ${count === 0 ? 0 : offset + 1}–${offset + count}`}</span>
      <button type="button" disabled={loading || count < size || offset + size > MAX_LOG_OFFSET} onClick={() => onOffset(offset + size)}>
        Next page
      </button>
    </nav>
  );
}

export function Json({ value, label }: { value: unknown; label: string }): ReactNode {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {value === undefined || value === null ? 'none' : JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** Runs an action, tracking busy state and its error; resolves to whether it succeeded. */
export function useAction(): { busy: boolean; error: Error | undefined; run: (f: () => Promise<unknown>) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const run = useCallback(async (f: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await f();
      return true;
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}
