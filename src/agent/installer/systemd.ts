/**
 * systemd: a unit running `<node> <prefix>/current/bin/branch-agent.js run`, restarted always.
 * As root a system unit run by a dedicated account (created here); as another user a user unit
 * (`loginctl enable-linger` starts it at boot). Beside it the upgrade helper's units
 * (systemd-upgrade-units.ts), which carry out the remote upgrades the agent requests.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import path from 'node:path';
import { envFileOf } from './config-file.js';
import { renderUpgradeUnits } from './systemd-upgrade-units.js';
import { AGENT_NODE_OPTIONS, mustExec, type Exec, type ServiceManager, type ServiceSpec } from './service-manager.js';

export interface SystemdOptions {
  /** The account of a system unit (root only). */
  user: string;
  root: boolean;
  /** Where unit files go; default /etc/systemd/system as root, the user's unit folder otherwise. */
  unitDir?: string;
}

const quote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function renderUnit(spec: ServiceSpec, opts: SystemdOptions): string {
  const lines = [
    '# Written by `branch-agent service install`; the next install rewrites it.',
    '[Unit]',
    'Description=Soft Restaurant branch agent',
    'Wants=network-online.target',
    'After=network-online.target',
    '# When SQL Server runs on this machine, start after it (ignored where it does not exist).',
    'After=mssql-server.service',
    '# Never give up restarting: the agent must come back by itself however often it fails.',
    'StartLimitIntervalSec=0',
    '',
    '[Service]',
    'Type=simple',
    ...(opts.root ? [`User=${opts.user}`, `Group=${opts.user}`] : []),
    `WorkingDirectory=${spec.prefix}`,
    'Environment=NODE_ENV=production',
    `EnvironmentFile=-${envFileOf(spec.config)}`,
    '# Through `current`: an upgrade switches it and restarts; this file does not change.',
    `ExecStart=${quote(spec.node)} ${AGENT_NODE_OPTIONS.join(' ')} ${quote(path.join(spec.prefix, 'current', 'bin', 'branch-agent.js'))} run -c ${quote(spec.config)}`,
    'Restart=always',
    'RestartSec=5',
    '# On SIGTERM the agent finishes running jobs (up to 10 s) and exits; 30 s leaves room for that.',
    'KillMode=mixed',
    'TimeoutStopSec=30',
    ...(opts.root
      ? [
          '# The system is read-only for the agent but for its config folder (lock file) and the prefix.',
          'NoNewPrivileges=true',
          'ProtectSystem=full',
          `ReadWritePaths=-${path.dirname(spec.config)} -${spec.prefix}`,
        ]
      : []),
    '',
    '[Install]',
    `WantedBy=${opts.root ? 'multi-user.target' : 'default.target'}`,
  ];
  return lines.join('\n') + '\n';
}

export function systemdService(spec: ServiceSpec, opts: SystemdOptions, run: Exec): ServiceManager {
  const unitDir =
    opts.unitDir ?? (opts.root ? '/etc/systemd/system' : path.join(process.env.XDG_CONFIG_HOME ?? path.join(homedir(), '.config'), 'systemd', 'user'));
  const scope = opts.root ? [] : ['--user'];
  const systemctl = (...args: string[]) => mustExec(run, 'systemctl', [...scope, ...args]);

  return {
    kind: 'systemd',
    logsHint: `journalctl ${opts.root ? '-u' : '--user -u'} ${spec.name}`,
    async secureConfig() {
      if (!opts.root) return;
      if ((await run('id', ['-u', opts.user])).code !== 0) {
        await mustExec(run, 'useradd', [
          '--system',
          '--user-group',
          '--home-dir',
          spec.prefix,
          '--no-create-home',
          '--shell',
          '/usr/sbin/nologin',
          '--comment',
          'Soft Restaurant branch agent',
          opts.user,
        ]);
      }
      await mustExec(run, 'chgrp', [opts.user, spec.config]);
      await mustExec(run, 'chmod', ['g+r', spec.config]);
      if (path.basename(path.dirname(spec.config)) === 'branch-agent') {
        // Its own folder (/etc/branch-agent): the agent may create its lock file there, and the
        // sticky bit keeps it from replacing the config.
        await mustExec(run, 'chgrp', [opts.user, path.dirname(spec.config)]);
        await mustExec(run, 'chmod', ['1770', path.dirname(spec.config)]);
      }
    },
    async define() {
      // The agent writes its logs, its pid, its downloads and upgrade requests; the code it runs stays root's.
      mkdirSync(spec.downloadDir, { recursive: true });
      if (opts.root) {
        await mustExec(run, 'chown', ['-R', `${opts.user}:${opts.user}`, path.join(spec.prefix, 'logs'), path.join(spec.prefix, 'run')]);
        await mustExec(run, 'chown', [`${opts.user}:${opts.user}`, spec.downloadDir]);
      }
      const helper = renderUpgradeUnits(spec, opts);
      const files = { [`${spec.name}.service`]: renderUnit(spec, opts), ...helper.files };
      let changed = false;
      mkdirSync(unitDir, { recursive: true });
      for (const [name, text] of Object.entries(files)) {
        const file = path.join(unitDir, name);
        if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
        writeFileSync(file, text, { mode: 0o644 });
        changed = true;
      }
      if (changed) await systemctl('daemon-reload');
      await systemctl('enable', `${spec.name}.service`);
      await systemctl('enable', '--now', helper.path);
    },
    start: async () => void (await systemctl('start', `${spec.name}.service`)),
    stop: async () => void (await systemctl('stop', `${spec.name}.service`)),
    // systemd restarts a crashed agent by itself: only the health answer tells.
    alive: () => undefined,
    async status() {
      const active = await run('systemctl', [...scope, 'is-active', `${spec.name}.service`]);
      return `systemd ${opts.root ? 'system' : `user (${userInfo().username})`} unit ${spec.name}: ${active.stdout.trim() || 'unknown'}`;
    },
    async remove() {
      const helper = renderUpgradeUnits(spec, opts);
      await run('systemctl', [...scope, 'disable', '--now', helper.path]);
      await run('systemctl', [...scope, 'disable', '--now', `${spec.name}.service`]);
      for (const name of [`${spec.name}.service`, ...Object.keys(helper.files)]) rmSync(path.join(unitDir, name), { force: true });
      await systemctl('daemon-reload');
    },
  };
}
