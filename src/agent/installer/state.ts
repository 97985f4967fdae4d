/**
 * <prefix>/state/last-upgrade.json: what the last install, upgrade or rollback did, for
 * `service status`, for `service rollback` (the release to go back to) and for the agent to
 * report to the gateway (issue 16).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Layout } from './layout.js';

export type Outcome = 'installed' | 'config-template' | 'not-switched' | 'rolled-back' | 'unhealthy';

export interface UpgradeRecord {
  action: 'install' | 'upgrade' | 'rollback';
  outcome: Outcome;
  exitCode: number;
  /** The release running before, and the one asked for. */
  from?: string;
  to: string;
  /** The release `current` points at afterwards. */
  current?: string;
  reason?: string;
  /** The agent's request it answers (upgrade-request.ts): the agent tells its answer from older ones by it. */
  requestedAt?: string;
  startedAt: string;
  finishedAt: string;
}

const file = (layout: Layout) => path.join(layout.state, 'last-upgrade.json');

export function readLastUpgrade(layout: Layout): UpgradeRecord | undefined {
  try {
    return JSON.parse(readFileSync(file(layout), 'utf8')) as UpgradeRecord;
  } catch {
    return undefined;
  }
}

export function writeLastUpgrade(layout: Layout, record: UpgradeRecord): void {
  const tmp = `${file(layout)}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n');
  renameSync(tmp, file(layout));
}
