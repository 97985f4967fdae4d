/**
 * How the console keeps itself current: each view reads the endpoints it shows again every few
 * seconds (agents report every 15 s, so a branch that stops shows within one heartbeat). The
 * next read is scheduled when the last one ended, so a slow gateway is never asked twice at once;
 * a view that goes away cancels its read, and a hidden tab reads nothing. A failed read keeps
 * what was shown and says so.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiProblem } from './api.js';
import { t } from './i18n.js';
import { useSession } from './session.js';

export const POLL_MS = 5_000;

export interface Polled<T> {
  data: T | undefined;
  error: ApiProblem | Error | undefined;
  at: Date | undefined;
}

/**
 * Reads with `load` now and every POLL_MS while `deps` stay the same; a change of `deps` starts
 * over. `load` gets what its last read returned, to read on from there. A 401 (the key was
 * revoked) ends the session.
 */
export function usePoll<T>(
  load: (key: string, signal: AbortSignal, previous: T | undefined) => Promise<T>,
  deps: readonly unknown[],
): Polled<T> & { reload: () => void } {
  const { key, signOut } = useSession();
  const [state, setState] = useState<Polled<T>>({ data: undefined, error: undefined, at: undefined });
  const [round, setRound] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let previous: T | undefined;
    const tick = async () => {
      // A tab nobody looks at asks nothing; it reads again as soon as it is shown.
      if (document.hidden) return document.addEventListener('visibilitychange', resume, { once: true });
      try {
        const data = await load(key, abort.signal, previous);
        previous = data;
        if (!abort.signal.aborted) setState({ data, error: undefined, at: new Date() });
      } catch (error) {
        if (abort.signal.aborted) return;
        if (error instanceof ApiProblem && error.status === 401) return signOut(t.signIn.ended);
        setState((s) => ({ ...s, error: error as Error }));
      }
      if (!abort.signal.aborted) timer = setTimeout(() => void tick(), POLL_MS);
    };
    const resume = () => void tick();
    void tick();
    return () => {
      abort.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', resume);
    };
  }, [key, ...deps, round]);
  return { ...state, reload: () => setRound((r) => r + 1) };
}
