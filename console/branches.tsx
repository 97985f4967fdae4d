/**
 * Every branch of the key's user, as GET /sucursales pages them: the offline ones first, with
 * the API's own filters (state, agent version, search). On a phone each row becomes a card.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Page } from '../src/protocol/common.js';
import type { BranchStatus } from '../src/protocol/fleet.js';
import { call } from './api.js';
import { Sparkline } from './charts.js';
import { formatCount, formatDuration, formatMs, formatOffset } from './format.js';
import { t } from './i18n.js';
import { Freshness, LastError, OnlineBadge, Pager, PosState } from './parts.js';
import { usePoll } from './poll.js';
import { href } from './route.js';

const PAGE_SIZE = 25;

/** Typing settles for this long before the list is asked again. */
function useSettled<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function BranchesView() {
  const [search, setSearch] = useState('');
  const [online, setOnline] = useState('');
  const [version, setVersion] = useState('');
  const [page, setPage] = useState(1);
  const query = { search: useSettled(search.trim()), online, version: useSettled(version.trim()) };
  const polled = usePoll(
    (key, signal) => call<Page<BranchStatus>>(key, 'GET', '/sucursales', { query: { ...query, page, pageSize: PAGE_SIZE }, signal }),
    [query.search, query.online, query.version, page],
  );
  const filter = (set: (value: string) => void) => (event: Event) => {
    set((event.currentTarget as HTMLInputElement | HTMLSelectElement).value);
    setPage(1);
  };
  const now = Date.now();
  const list = polled.data;
  return (
    <>
      <h1 tabIndex={-1}>{t.nav.branches}</h1>
      <form class="filters" aria-label={t.filters.label} role="search" method="post" onSubmit={(e) => e.preventDefault()}>
        <label>
          {t.filters.search}
          <input type="search" value={search} placeholder={t.filters.searchPlaceholder} maxLength={200} onInput={filter(setSearch)} />
        </label>
        <label>
          {t.filters.state}
          <select value={online} onChange={filter(setOnline)}>
            <option value="">{t.filters.all}</option>
            <option value="false">{t.filters.offline}</option>
            <option value="true">{t.filters.online}</option>
          </select>
        </label>
        <label>
          {t.filters.version}
          <input type="text" value={version} placeholder={t.filters.versionPlaceholder} maxLength={50} onInput={filter(setVersion)} />
        </label>
      </form>
      <Freshness polled={polled} />
      {list && (
        <>
          <table class="branches cards">
            <caption>{t.list.caption(list.totalResults)}</caption>
            <thead>
              <tr>
                <th scope="col">{t.list.state}</th>
                <th scope="col">{t.list.branch}</th>
                <th scope="col">{t.list.versions}</th>
                <th scope="col">{t.list.os}</th>
                <th scope="col">{t.list.pos}</th>
                <th scope="col">{t.list.clock}</th>
                <th scope="col">{t.list.uptime}</th>
                <th scope="col">{t.list.lastError}</th>
                <th scope="col">{t.list.jobs}</th>
                <th scope="col">{t.list.latency}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((b) => (
                <BranchRow key={b.licenseKey} branch={b} now={now} />
              ))}
            </tbody>
          </table>
          {list.data.length === 0 && <p class="empty">{t.list.empty}</p>}
          <Pager page={list.page} totalPages={list.totalPages} onPage={setPage} />
        </>
      )}
    </>
  );
}

function BranchRow({ branch: b, now }: { branch: BranchStatus; now: number }) {
  const day = b.last24h;
  return (
    <tr data-license-key={b.licenseKey} data-online={String(b.online)}>
      <td data-label={t.list.state}>
        <OnlineBadge branch={b} />
      </td>
      <th scope="row" data-label={t.list.branch}>
        <a href={href.branch(b.licenseKey)}>{b.name}</a>
        <span class="muted mono">{b.licenseKey}</span>
      </th>
      <td data-label={t.list.versions}>
        <Versions branch={b} />
      </td>
      <td data-label={t.list.os} class="wrap">
        {b.os ?? t.none}
      </td>
      <td data-label={t.list.pos}>
        <PosState state={b.posDatabase} />
      </td>
      <td data-label={t.list.clock}>{formatOffset(b.clockOffsetMs)}</td>
      <td data-label={t.list.uptime}>{formatDuration(b.uptimeSec)}</td>
      <td data-label={t.list.lastError} class="error-cell">
        <LastError error={b.lastError} now={now} />
      </td>
      <td data-label={t.list.jobs}>
        {formatCount(day.jobs)}
        {day.failures > 0 && <span class="failures">{t.failures(day.failures)}</span>}
      </td>
      <td data-label={t.list.latency}>
        <span class="latency">
          p50 {formatMs(day.p50Ms)} · p99 {formatMs(day.p99Ms)}
        </span>
        <Sparkline hourly={day.hourly} now={now} />
      </td>
    </tr>
  );
}

export function Versions({ branch: b }: { branch: Pick<BranchStatus, 'agentVersion' | 'nodeVersion' | 'posVersion'> }) {
  return (
    <dl class="versions">
      <dt>{t.agent}</dt>
      <dd>{b.agentVersion ?? t.none}</dd>
      <dt>Node</dt>
      <dd>{b.nodeVersion ?? t.none}</dd>
      <dt>SR</dt>
      <dd>{b.posVersion ?? t.none}</dd>
    </dl>
  );
}
