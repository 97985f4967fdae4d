/** Small pieces several views share. Everything from the API is passed as text children. */
import type { BranchStatus } from '../src/protocol/fleet.js';
import { explain } from './api.js';
import { formatAgo, formatTime } from './format.js';
import { t } from './i18n.js';
import type { Polled } from './poll.js';

/** A form's text field, trimmed. */
export function formText(form: HTMLFormElement, name: string): string {
  const value = new FormData(form).get(name);
  return typeof value === 'string' ? value.trim() : '';
}

/** When the view last read the gateway, or that the last read failed (what is shown stays). */
export function Freshness({ polled }: { polled: Polled<unknown> }) {
  if (polled.error) {
    return (
      <p class="freshness failing" role="status">
        {polled.data === undefined ? explain(polled.error) : `${t.refresh.failing} ${explain(polled.error)}`}
      </p>
    );
  }
  return <p class="freshness">{polled.at ? t.refresh.updated(formatTime(polled.at)) : t.refresh.loading}</p>;
}

export function OnlineBadge({ branch }: { branch: Pick<BranchStatus, 'online' | 'agentVersion'> }) {
  const state = branch.online ? 'online' : branch.agentVersion === null ? 'never' : 'offline';
  return <span class={`badge ${state}`}>{t.state[state]}</span>;
}

export function PosState({ state }: { state: BranchStatus['posDatabase'] }) {
  if (state === null) return <>{t.none}</>;
  return <span class={`pos ${state}`}>{t.pos[state]}</span>;
}

export function LastError({ error, now }: { error: BranchStatus['lastError']; now: number }) {
  if (!error) return <>{t.none}</>;
  return (
    <span class="last-error">
      <span class="message">{error.message}</span>{' '}
      <time class="muted" dateTime={error.at}>
        {formatAgo(error.at, now)}
      </time>
    </span>
  );
}

export function Pager({ page, totalPages, onPage }: { page: number; totalPages: number; onPage: (page: number) => void }) {
  if (totalPages <= 1) return null;
  return (
    <nav class="pager" aria-label={t.paging.label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t.paging.previous}
      </button>
      <span>{t.paging.page(page, totalPages)}</span>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        {t.paging.next}
      </button>
    </nav>
  );
}
