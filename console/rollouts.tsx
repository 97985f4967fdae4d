/**
 * Rollouts: start one (a published version to all, a share or chosen branches, in a window,
 * with a failure threshold) and the history, newest first, with each one's progress by state.
 */
import { useRef, useState } from 'preact/hooks';
import type { Page } from '../src/protocol/common.js';
import type { BranchStatus } from '../src/protocol/fleet.js';
import type { RolloutRecord, RolloutSummary } from '../src/protocol/rollouts.js';
import { ApiProblem, call, explain, newIdempotencyKey } from './api.js';
import { StateBar, StateCounts } from './charts.js';
import { formatDateTime } from './format.js';
import { t } from './i18n.js';
import { formText, Freshness, Pager } from './parts.js';
import { usePoll } from './poll.js';
import { href } from './route.js';
import { useSession } from './session.js';

const PAGE_SIZE = 20;

export function RolloutsView() {
  const [page, setPage] = useState(1);
  const polled = usePoll(
    (key, signal) => call<Page<RolloutSummary>>(key, 'GET', '/sucursales/actualizaciones', { query: { page, pageSize: PAGE_SIZE }, signal }),
    [page],
  );
  const list = polled.data;
  return (
    <>
      <h1 tabIndex={-1}>{t.rollouts.heading}</h1>
      <StartRollout />
      <section aria-labelledby="history">
        <h2 id="history">{t.rollouts.list}</h2>
        <Freshness polled={polled} />
        {list && list.data.length === 0 && <p class="empty">{t.rollouts.empty}</p>}
        {list && list.data.length > 0 && (
          <table class="rollouts cards">
            <thead>
              <tr>
                <th scope="col">{t.rollouts.created}</th>
                <th scope="col">{t.rollouts.version}</th>
                <th scope="col">{t.rollouts.state}</th>
                <th scope="col">{t.rollouts.progress}</th>
                <th scope="col">{t.rollouts.windowLabel}</th>
                <th scope="col">{t.rollouts.threshold}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((r) => (
                <tr key={r.id} data-rollout={r.id} data-state={r.state}>
                  <td data-label={t.rollouts.created}>{formatDateTime(r.createdAt)}</td>
                  <th scope="row" data-label={t.rollouts.version}>
                    <a href={href.rollout(r.id)}>{r.version}</a>
                  </th>
                  <td data-label={t.rollouts.state}>
                    <span class={`badge rollout-${r.state}`}>{t.rollouts.states[r.state]}</span>
                  </td>
                  <td data-label={t.rollouts.progress} class="progress">
                    <StateBar counts={r.counts} />
                    <StateCounts counts={r.counts} />
                  </td>
                  <td data-label={t.rollouts.windowLabel}>{windowText(r)}</td>
                  <td data-label={t.rollouts.threshold}>{r.maxFallasPorcentaje} %</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {list && <Pager page={list.page} totalPages={list.totalPages} onPage={setPage} />}
      </section>
    </>
  );
}

export const windowText = (r: Pick<RolloutSummary, 'ventana'>) => (r.ventana ? `${r.ventana.desde}–${r.ventana.hasta}` : t.rollouts.anyTime);

type Target = 'all' | 'share' | 'chosen';

function StartRollout() {
  const { key } = useSession();
  const [target, setTarget] = useState<Target>('all');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [inWindow, setInWindow] = useState(false);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  const attempt = useRef<{ json: string; key: string } | undefined>(undefined);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const text = (name: string) => formText(form, name);
    if (target === 'chosen' && chosen.size === 0) return setProblem(t.rollouts.chooseOne);
    const body = {
      version: text('version'),
      ...(target === 'share' ? { porcentaje: Number(text('porcentaje')) } : {}),
      ...(target === 'chosen' ? { licenseKeys: [...chosen] } : {}),
      ...(inWindow ? { ventana: { desde: text('desde'), hasta: text('hasta') } } : {}),
      maxFallasPorcentaje: Number(text('maxFallasPorcentaje')),
    };
    // Sending the same rollout again (after a lost answer) reuses its key: the gateway starts it once.
    const json = JSON.stringify(body);
    if (attempt.current?.json !== json) attempt.current = { json, key: newIdempotencyKey() };
    setBusy(true);
    setProblem(undefined);
    try {
      const rollout = await call<RolloutRecord>(key, 'POST', '/sucursales/actualizaciones', { body, idempotencyKey: attempt.current.key });
      location.hash = href.rollout(rollout.id);
    } catch (error) {
      // The gateway names the field, never the value it refused: the version is the one typed here.
      setProblem(error instanceof ApiProblem && error.code === 'release_not_found' ? t.problems.releaseNotFound(body.version) : explain(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <details class="start">
      <summary>{t.rollouts.start}</summary>
      <form class="start-rollout" method="post" aria-label={t.rollouts.start} onSubmit={(e) => void submit(e)}>
        <label>
          {t.rollouts.version}
          <input name="version" required maxLength={50} placeholder={t.rollouts.versionPlaceholder} autoComplete="off" spellcheck={false} />
        </label>
        <fieldset>
          <legend>{t.rollouts.target}</legend>
          {(['all', 'share', 'chosen'] as const).map((value) => (
            <label class="choice" key={value}>
              <input type="radio" name="target" value={value} checked={target === value} onChange={() => setTarget(value)} />
              {t.rollouts[value]}
            </label>
          ))}
          {target === 'share' && (
            <label>
              {t.rollouts.sharePercent}
              <input name="porcentaje" type="number" min={1} max={100} required defaultValue="10" />
            </label>
          )}
          {target === 'chosen' && <BranchPicker chosen={chosen} onChange={setChosen} />}
        </fieldset>
        <label class="choice">
          <input type="checkbox" checked={inWindow} onChange={(e) => setInWindow(e.currentTarget.checked)} />
          {t.rollouts.window}
        </label>
        {inWindow && (
          <div class="row">
            <label>
              {t.rollouts.from}
              <input name="desde" type="time" required defaultValue="02:00" />
            </label>
            <label>
              {t.rollouts.until}
              <input name="hasta" type="time" required defaultValue="05:00" />
            </label>
          </div>
        )}
        <label>
          {t.rollouts.maxFailures}
          <input name="maxFallasPorcentaje" type="number" min={0} max={100} required defaultValue="20" />
        </label>
        {problem && (
          <p class="failing" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {t.rollouts.submit}
        </button>
      </form>
    </details>
  );
}

/** The key's branches to tick, as many as one page of the API holds. */
function BranchPicker({ chosen, onChange }: { chosen: Set<string>; onChange: (chosen: Set<string>) => void }) {
  const polled = usePoll((key, signal) => call<Page<BranchStatus>>(key, 'GET', '/sucursales', { query: { pageSize: 500 }, signal }), []);
  const toggle = (licenseKey: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(licenseKey);
    else next.delete(licenseKey);
    onChange(next);
  };
  if (!polled.data) return <Freshness polled={polled} />;
  return (
    <div class="picker">
      {polled.data.data.map((b) => (
        <label class="choice" key={b.licenseKey}>
          <input type="checkbox" value={b.licenseKey} checked={chosen.has(b.licenseKey)} onChange={(e) => toggle(b.licenseKey, e.currentTarget.checked)} />
          {b.name} <span class="muted mono">{b.licenseKey}</span>
        </label>
      ))}
    </div>
  );
}
