/**
 * `branch-agent service install|upgrade|rollback|status|uninstall`: the command line of the
 * installer (upgrade.ts). install.sh and install.ps1 only find the runtime and call it.
 * `service upgrade-request` is the upgrade helper's (upgrade-helper.ts), not an operator's.
 */
import { Command, Option } from 'commander';
import path from 'node:path';
import type { InstallerOptions } from './upgrade.js';

const windows = process.platform === 'win32';
const DEFAULT_PREFIX = windows ? path.join(process.env.ProgramFiles ?? 'C:\\Program Files', 'branch-agent') : '/opt/branch-agent';
const DEFAULT_CONFIG = windows ? path.join(process.env.ProgramData ?? 'C:\\ProgramData', 'branch-agent', 'config.json') : '/etc/branch-agent/config.json';

interface Flags {
  prefix: string;
  config: string;
  manager: InstallerOptions['manager'];
  node?: string;
  healthTimeout: string;
  settle: string;
  keep: string;
  user: string;
  winsw?: string;
}

function positive(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} needs a whole number, at least ${min}`);
  return n;
}

function installerOptions(flags: Flags): InstallerOptions {
  return {
    prefix: flags.prefix,
    config: flags.config,
    manager: flags.manager,
    node: flags.node,
    healthTimeoutMs: positive('health-timeout', flags.healthTimeout, 1) * 1000,
    settleMs: positive('settle', flags.settle, 0) * 1000,
    keep: positive('keep', flags.keep, 1),
    user: flags.user,
    winsw: flags.winsw,
  };
}

function withOptions(command: Command): Command {
  return command
    .option('--prefix <dir>', 'install root: releases/, current, state/, logs/, run/', DEFAULT_PREFIX)
    .option('--config <file>', 'the agent configuration (secrets may go to branch-agent.env beside it)', DEFAULT_CONFIG)
    .addOption(
      new Option('--manager <kind>', 'service manager: background runs a plain process, restarted by nobody')
        .choices(['systemd', 'winsw', 'background'])
        .default(windows ? 'winsw' : 'systemd'),
    )
    .option('--node <path>', "Node.js for the service and the migrations (default: the release's runtime/)")
    .option('--health-timeout <seconds>', 'how long the new release has to become healthy', '60')
    .option('--settle <seconds>', 'how long it must stay healthy before it counts', '5')
    .option('--keep <n>', 'releases to keep', '3')
    .option('--user <name>', 'systemd as root: the service account (created)', 'branch-agent')
    .option('--winsw <exe>', "Windows: the WinSW executable (default: the release's service-install\\winsw\\winsw.exe)");
}

function report(result: { exitCode: number; message: string }): void {
  if (result.exitCode === 0) console.log(result.message);
  else console.error(`\n${result.exitCode === 2 ? '' : 'ERROR: '}${result.message}`);
  process.exitCode = result.exitCode;
}

export function serviceCommand(): Command {
  const service = new Command('service').description(
    'install, upgrade, roll back or remove the agent as a service. Exit codes: 0 installed and healthy; 1 stopped before switching; 2 config template written; 3 rolled back; 4 unhealthy, nothing to roll back to',
  );
  withOptions(service.command('install').description('install this release (or upgrade an installed one to it)')).action(async (flags: Flags) => {
    const { upgrade } = await import('./upgrade.js');
    const { runningReleaseDir } = await import('./release.js');
    report(await upgrade({ ...installerOptions(flags), releaseDir: runningReleaseDir() }));
  });
  withOptions(service.command('upgrade').description('upgrade to the release in a tarball from make-release.sh').argument('<tarball>')).action(
    async (tarball: string, flags: Flags) => {
      const { upgrade } = await import('./upgrade.js');
      report(await upgrade({ ...installerOptions(flags), tarball }));
    },
  );
  withOptions(
    service
      .command('upgrade-request')
      .description(
        "carry out the remote upgrade the agent requested (run by the installer's branch-agent-upgrade systemd unit or scheduled task, as root or SYSTEM): checks the request's signature, hash and file again, then upgrades",
      ),
  ).action(async (flags: Flags) => {
    const { takeUpgradeRequest } = await import('./upgrade-helper.js');
    const result = await takeUpgradeRequest(installerOptions(flags));
    if (result) report(result);
    else console.log('No upgrade request.');
  });
  withOptions(service.command('rollback').description('go back to the release that ran before the last upgrade')).action(async (flags: Flags) => {
    const { rollback } = await import('./upgrade.js');
    report(await rollback(installerOptions(flags)));
  });
  withOptions(service.command('status').description('the service, the installed releases and the last upgrade')).action(async (flags: Flags) => {
    const { status } = await import('./upgrade.js');
    for (const line of await status(installerOptions(flags))) console.log(line);
  });
  withOptions(service.command('uninstall').description('stop the agent and remove the service (releases and config stay)')).action(async (flags: Flags) => {
    const { uninstall } = await import('./upgrade.js');
    console.log(await uninstall(installerOptions(flags)));
  });
  return service;
}
