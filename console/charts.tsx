/**
 * The console's two small charts, hand-written SVG: a sparkline of a branch's p99 hour by hour
 * (hours without jobs leave a gap, hours with failures get a red mark beneath) and a stacked bar
 * of a rollout's branches by state. Both carry their numbers in text too: colour never says
 * anything alone.
 */
import type { ActivityHour } from '../src/protocol/fleet.js';
import type { TargetState } from '../src/protocol/rollouts.js';
import { formatMs } from './format.js';
import { t } from './i18n.js';

/** In the order a branch goes through them; the messages name every state once (their type says so). */
export const TARGET_STATES = Object.keys(t.rollouts.targets) as TargetState[];

const HOUR = 3_600_000;
const SLOTS = 25; // the current hour and the 24 before it

export function Sparkline({ hourly, now, width = 120, height = 28 }: { hourly: ActivityHour[]; now: number; width?: number; height?: number }) {
  const last = Math.floor(now / HOUR);
  const slots = new Map(hourly.map((h) => [SLOTS - 1 - (last - Math.floor(Date.parse(h.hour) / HOUR)), h]));
  const max = Math.max(1, ...hourly.map((h) => h.p99Ms));
  const x = (slot: number) => (slot / (SLOTS - 1)) * (width - 4) + 2;
  const y = (ms: number) => height - 6 - (ms / max) * (height - 10);
  const runs: Array<Array<[number, number]>> = [];
  for (let slot = 0; slot < SLOTS; slot++) {
    const h = slots.get(slot);
    if (!h) continue;
    const point: [number, number] = [x(slot), y(h.p99Ms)];
    if (slots.has(slot - 1)) runs.at(-1)!.push(point);
    else runs.push([point]);
  }
  const label = hourly.length === 0 ? t.sparklineEmpty : t.sparkline(formatMs(max));
  return (
    <svg class="sparkline" role="img" aria-label={label} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
      <title>{label}</title>
      <line class="baseline" x1={2} x2={width - 2} y1={height - 6} y2={height - 6} />
      {runs.map((run) =>
        run.length === 1 ? (
          <circle class="line" cx={run[0]![0]} cy={run[0]![1]} r={1.5} />
        ) : (
          <polyline class="line" points={run.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ')} />
        ),
      )}
      {[...slots]
        .filter(([, h]) => h.failures > 0)
        .map(([slot]) => (
          <rect class="failure" x={x(slot) - 1.5} y={height - 4} width={3} height={4} />
        ))}
    </svg>
  );
}

export function StateBar({ counts }: { counts: Record<TargetState, number> }) {
  const total = TARGET_STATES.reduce((sum, s) => sum + counts[s], 0);
  let at = 0;
  return (
    <svg class="state-bar" aria-hidden="true" viewBox="0 0 100 8" preserveAspectRatio="none">
      <rect class="track" width={100} height={8} />
      {total > 0 &&
        TARGET_STATES.filter((s) => counts[s] > 0).map((s) => {
          const width = (counts[s] / total) * 100;
          const rect = <rect class={`s-${s}`} x={at} width={width} height={8} />;
          at += width;
          return rect;
        })}
    </svg>
  );
}

/** The counts in words beside the bar: "Hecha 3 · Fallida 1". */
export function StateCounts({ counts }: { counts: Record<TargetState, number> }) {
  return (
    <ul class="state-counts">
      {TARGET_STATES.filter((s) => counts[s] > 0).map((s) => (
        <li key={s} data-state={s}>
          <span class={`dot s-${s}`} aria-hidden="true" />
          {t.rollouts.targets[s]} <strong>{counts[s]}</strong>
        </li>
      ))}
    </ul>
  );
}
