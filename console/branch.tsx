/**
 * One branch: its agent as last seen, its last 24 hours (jobs hour by hour and by operation,
 * connections), and its latest events from the event feed (which needs the `read` scope).
 */
import type { BranchDetail } from '../src/protocol/fleet.js';
import type { FeedPage } from '../src/protocol/events.js';
import { ApiProblem, call, explain } from './api.js';
import { Versions } from './branches.js';
import { Sparkline } from './charts.js';
import { formatAgo, formatCount, formatDateTime, formatDuration, formatMs, formatOffset } from './format.js';
import { t } from './i18n.js';
import { Freshness, LastError, OnlineBadge, PosState } from './parts.js';
import { usePoll } from './poll.js';
import { href } from './route.js';

type FeedEvent = FeedPage['data'][number];

const SHOWN_EVENTS = 20;

export function BranchView({ licenseKey }: { licenseKey: string }) {
  const polled = usePoll((key, signal) => call<BranchDetail>(key, 'GET', `/sucursales/${encodeURIComponent(licenseKey)}`, { signal }), [licenseKey]);
  const b = polled.data;
  const now = Date.now();
  return (
    <>
      <p class="back">
        <a href={href.branches}>← {t.branch.back}</a>
      </p>
      <h1 tabIndex={-1}>
        {b?.name ?? licenseKey} {b && <OnlineBadge branch={b} />}
      </h1>
      <p class="muted mono">{licenseKey}</p>
      <Freshness polled={polled} />
      {b && (
        <>
          <section aria-labelledby="facts">
            <h2 id="facts">{t.branch.facts}</h2>
            <dl class="facts">
              <dt>{t.branch.connectedSince}</dt>
              <dd>{b.connectedSince ? formatDateTime(b.connectedSince) : t.none}</dd>
              <dt>{t.branch.lastSeen}</dt>
              <dd>{b.lastSeen ? `${formatDateTime(b.lastSeen)} (${formatAgo(b.lastSeen, now)})` : t.none}</dd>
              <dt>{t.list.uptime}</dt>
              <dd>{formatDuration(b.uptimeSec)}</dd>
              <dt>{t.list.versions}</dt>
              <dd>
                <Versions branch={b} />
              </dd>
              <dt>{t.list.os}</dt>
              <dd>{b.os ?? t.none}</dd>
              <dt>{t.branch.worker}</dt>
              <dd class="mono">{b.workerId ?? t.none}</dd>
              <dt>{t.list.pos}</dt>
              <dd>
                <PosState state={b.posDatabase} />
              </dd>
              <dt>{t.list.clock}</dt>
              <dd>{formatOffset(b.clockOffsetMs)}</dd>
              <dt>{t.branch.jobsRunning}</dt>
              <dd>{b.jobsRunning ?? t.none}</dd>
              <dt>{t.list.lastError}</dt>
              <dd class="error-cell">
                <LastError error={b.lastError} now={now} />
              </dd>
            </dl>
          </section>
          <Day branch={b} now={now} />
          <Connections branch={b} />
        </>
      )}
      <RecentEvents licenseKey={licenseKey} />
    </>
  );
}

function Day({ branch: b, now }: { branch: BranchDetail; now: number }) {
  const day = b.last24h;
  return (
    <section aria-labelledby="day">
      <h2 id="day">{t.branch.day}</h2>
      <dl class="figures">
        <div>
          <dt>{t.branch.jobs}</dt>
          <dd>{formatCount(day.jobs)}</dd>
        </div>
        <div>
          <dt>{t.branch.failures}</dt>
          <dd>{formatCount(day.failures)}</dd>
        </div>
        <div>
          <dt>p50</dt>
          <dd>{formatMs(day.p50Ms)}</dd>
        </div>
        <div>
          <dt>p99</dt>
          <dd>{formatMs(day.p99Ms)}</dd>
        </div>
        <div>
          <dt>{t.branch.disconnections}</dt>
          <dd>{formatCount(day.disconnections)}</dd>
        </div>
      </dl>
      {day.jobs === 0 ? (
        <p class="empty">{t.branch.noJobs}</p>
      ) : (
        <>
          <h3>{t.branch.hourly}</h3>
          <Sparkline hourly={day.hourly} now={now} width={480} height={64} />
          <p class="axis muted">
            <span>{t.branch.dayAgo}</span>
            <span>{t.branch.now}</span>
          </p>
          <h3>{t.branch.operations}</h3>
          <table class="compact">
            <thead>
              <tr>
                <th scope="col">{t.branch.operation}</th>
                <th scope="col" class="num">
                  {t.branch.jobs}
                </th>
                <th scope="col" class="num">
                  {t.branch.failures}
                </th>
                <th scope="col" class="num">
                  p50
                </th>
                <th scope="col" class="num">
                  p99
                </th>
              </tr>
            </thead>
            <tbody>
              {day.operations.map((o) => (
                <tr key={o.op}>
                  <th scope="row" class="mono">
                    {o.op}
                  </th>
                  <td class="num">{formatCount(o.jobs)}</td>
                  <td class={o.failures > 0 ? 'num failures' : 'num'}>{formatCount(o.failures)}</td>
                  <td class="num">{formatMs(o.p50Ms)}</td>
                  <td class="num">{formatMs(o.p99Ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function Connections({ branch: b }: { branch: BranchDetail }) {
  const connections = b.last24h.connections;
  return (
    <section aria-labelledby="connections">
      <h2 id="connections">{t.branch.connections}</h2>
      {connections.length === 0 ? (
        <p class="empty">{t.branch.noConnections}</p>
      ) : (
        <table class="compact">
          <thead>
            <tr>
              <th scope="col">{t.branch.from}</th>
              <th scope="col">{t.branch.until}</th>
              <th scope="col">{t.branch.duration}</th>
              <th scope="col">{t.branch.worker}</th>
            </tr>
          </thead>
          <tbody>
            {connections.map((c) => (
              <tr key={`${c.connectedAt}-${c.workerId}`}>
                <td>{formatDateTime(c.connectedAt)}</td>
                <td>{c.disconnectedAt ? formatDateTime(c.disconnectedAt) : t.branch.stillConnected}</td>
                <td>{formatDuration(((c.disconnectedAt ? Date.parse(c.disconnectedAt) : Date.now()) - Date.parse(c.connectedAt)) / 1000)}</td>
                <td class="mono">{c.workerId}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface Feed {
  cursor: string | null;
  events: FeedEvent[];
}

/** The newest events first; then each read asks only for what followed the last one seen. */
function RecentEvents({ licenseKey }: { licenseKey: string }) {
  const polled = usePoll<Feed>(
    async (key, signal, previous) => {
      const query = previous ? { after: previous.cursor ?? undefined, limit: 100 } : { last: SHOWN_EVENTS };
      const page = await call<FeedPage>(key, 'GET', `/eventos/${encodeURIComponent(licenseKey)}`, { query, signal });
      return { cursor: page.nextCursor ?? previous?.cursor ?? null, events: [...(previous?.events ?? []), ...page.data].slice(-SHOWN_EVENTS) };
    },
    [licenseKey],
  );
  const noRead = polled.error instanceof ApiProblem && polled.error.code === 'scope_missing';
  const events = polled.data?.events ?? [];
  return (
    <section aria-labelledby="events">
      <h2 id="events">{t.branch.events}</h2>
      {noRead ? (
        <p class="empty">{t.branch.eventsNeedRead}</p>
      ) : polled.error && !polled.data ? (
        <p class="failing">{explain(polled.error)}</p>
      ) : polled.data && events.length === 0 ? (
        <p class="empty">{t.branch.noEvents}</p>
      ) : (
        <table class="compact events">
          <thead>
            <tr>
              <th scope="col">{t.branch.when}</th>
              <th scope="col">{t.branch.eventType}</th>
              <th scope="col">{t.branch.origin}</th>
            </tr>
          </thead>
          <tbody>
            {[...events].reverse().map((e) => (
              <tr key={e.id}>
                <td>{formatDateTime(e.timestamp)}</td>
                <td class="mono">{e.type}</td>
                <td>{t.branch.origins[e.origin]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
