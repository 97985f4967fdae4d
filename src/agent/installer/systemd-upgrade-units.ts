/**
 * The upgrade helper under systemd (upgrade-request.ts): branch-agent-upgrade.path starts
 * branch-agent-upgrade.service when the agent's request file appears, and that oneshot runs
 * `service upgrade-request` as root (as a system unit; as the installing user for a user
 * unit), outside the agent's unit, so stopping the agent does not stop it.
 */
import path from 'node:path';
import type { ServiceSpec } from './service-manager.js';
import { requestFileOf, UPGRADE_HELPER_NAME } from './upgrade-request.js';

const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export interface UpgradeUnits {
  /** File name → content, for the unit folder. */
  files: Record<string, string>;
  /** The unit to enable and start. */
  path: string;
}

export function renderUpgradeUnits(spec: ServiceSpec, opts: { user: string; root: boolean }): UpgradeUnits {
  const service = `${UPGRADE_HELPER_NAME}.service`;
  const pathUnit = `${UPGRADE_HELPER_NAME}.path`;
  const args = [
    'service',
    'upgrade-request',
    '--prefix',
    spec.prefix,
    '--config',
    spec.config,
    '--manager',
    'systemd',
    ...(opts.root ? ['--user', opts.user] : []),
  ];
  const serviceUnit = [
    '# Written by `branch-agent service install`; the next install rewrites it.',
    '[Unit]',
    'Description=Soft Restaurant branch agent: carries out an upgrade the agent requested',
    '',
    '[Service]',
    'Type=oneshot',
    `WorkingDirectory=${spec.prefix}`,
    'Environment=NODE_ENV=production',
    '# The installer of the running release checks the request again and upgrades.',
    `ExecStart=${quote(spec.node)} ${quote(path.join(spec.prefix, 'current', 'bin', 'branch-agent.js'))} ${args.map(quote).join(' ')}`,
    '# Migrations (up to 5 min) and the health wait with a rollback fit in this.',
    'TimeoutStartSec=30min',
    '',
  ];
  const pathUnitText = [
    '# Written by `branch-agent service install`; the next install rewrites it.',
    '[Unit]',
    'Description=Soft Restaurant branch agent: upgrade requests',
    '',
    '[Path]',
    `PathExists=${requestFileOf(spec.downloadDir)}`,
    `Unit=${service}`,
    '',
    '[Install]',
    `WantedBy=${opts.root ? 'multi-user.target' : 'default.target'}`,
    '',
  ];
  return { files: { [service]: serviceUnit.join('\n'), [pathUnit]: pathUnitText.join('\n') }, path: pathUnit };
}
