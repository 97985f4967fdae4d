/** One rollout: its progress by state, the branches that failed or rolled back and why, and Pause. */
import { useState } from 'preact/hooks';
import type { RolloutRecord } from '../src/protocol/rollouts.js';
import { ApiProblem, call, explain } from './api.js';
import { StateBar, StateCounts } from './charts.js';
import { formatDateTime } from './format.js';
import { t } from './i18n.js';
import { Freshness } from './parts.js';
import { usePoll } from './poll.js';
import { href } from './route.js';
import { windowText } from './rollouts.js';
import { useSession } from './session.js';

type Branch = RolloutRecord['branches'][number];

export function RolloutView({ id }: { id: string }) {
  const { key } = useSession();
  const polled = usePoll((key, signal) => call<RolloutRecord>(key, 'GET', `/sucursales/actualizaciones/${encodeURIComponent(id)}`, { signal }), [id]);
  const [problem, setProblem] = useState<string>();
  const r = polled.data;
  const pause = async () => {
    setProblem(undefined);
    try {
      await call<RolloutRecord>(key, 'POST', `/sucursales/actualizaciones/${encodeURIComponent(id)}/pausa`);
      polled.reload();
    } catch (error) {
      setProblem(error instanceof ApiProblem && error.code === 'rollout_conflict' ? t.problems.ended : explain(error));
    }
  };
  const failed = r?.branches.filter((b) => b.state === 'failed' || b.state === 'rolled_back') ?? [];
  return (
    <>
      <p class="back">
        <a href={href.rollouts}>← {t.rollouts.back}</a>
      </p>
      <h1 tabIndex={-1}>
        {r ? t.rollouts.title(r.version) : t.rollouts.heading}{' '}
        {r && (
          <span class={`badge rollout-${r.state}`} data-rollout-state={r.state}>
            {t.rollouts.states[r.state]}
          </span>
        )}
      </h1>
      <Freshness polled={polled} />
      {r && (
        <>
          <dl class="facts">
            <dt>{t.rollouts.created}</dt>
            <dd>{formatDateTime(r.createdAt)}</dd>
            <dt>{t.rollouts.windowLabel}</dt>
            <dd>{windowText(r)}</dd>
            <dt>{t.rollouts.threshold}</dt>
            <dd>{r.maxFallasPorcentaje} %</dd>
          </dl>
          <section aria-labelledby="progress" class="progress">
            <h2 id="progress">{t.rollouts.progress}</h2>
            <StateBar counts={r.counts} />
            <StateCounts counts={r.counts} />
            {r.state === 'running' && (
              <p>
                <button type="button" onClick={() => void pause()}>
                  {t.rollouts.pause}
                </button>{' '}
                <span class="muted">{t.rollouts.pauseHint}</span>
              </p>
            )}
            {problem && (
              <p class="failing" role="alert">
                {problem}
              </p>
            )}
          </section>
          {failed.length > 0 && (
            <section aria-labelledby="failed">
              <h2 id="failed">{t.rollouts.failed}</h2>
              <Targets branches={failed} />
            </section>
          )}
          <section aria-labelledby="all-branches">
            <h2 id="all-branches">{t.rollouts.branches}</h2>
            <Targets branches={r.branches} />
          </section>
        </>
      )}
    </>
  );
}

function Targets({ branches }: { branches: Branch[] }) {
  return (
    <table class="compact targets cards">
      <thead>
        <tr>
          <th scope="col">{t.list.branch}</th>
          <th scope="col">{t.rollouts.state}</th>
          <th scope="col">{t.rollouts.reason}</th>
          <th scope="col">{t.rollouts.fromVersion}</th>
          <th scope="col">{t.rollouts.updated}</th>
        </tr>
      </thead>
      <tbody>
        {branches.map((b) => (
          <tr key={b.licenseKey} data-license-key={b.licenseKey} data-state={b.state}>
            <th scope="row" data-label={t.list.branch}>
              <a class="mono" href={href.branch(b.licenseKey)}>
                {b.licenseKey}
              </a>
            </th>
            <td data-label={t.rollouts.state}>
              <span class={`dot s-${b.state}`} aria-hidden="true" /> {t.rollouts.targets[b.state]}
            </td>
            <td data-label={t.rollouts.reason} class="reason">
              {b.reason ?? t.none}
            </td>
            <td data-label={t.rollouts.fromVersion}>{b.fromVersion ?? t.none}</td>
            <td data-label={t.rollouts.updated}>{formatDateTime(b.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
