/**
 * No service manager (containers, tests, machines without systemd): the agent runs as a
 * detached background process, its pid in <prefix>/run/branch-agent.pid and its output appended
 * to <prefix>/logs/branch-agent.log. Nothing restarts it after a crash or a reboot.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readEnvFile } from './config-file.js';
import { AGENT_NODE_OPTIONS, type ServiceManager, type ServiceSpec } from './service-manager.js';

const STOP_TIMEOUT_MS = 30_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function backgroundProcess(spec: ServiceSpec): ServiceManager {
  const pidFile = path.join(spec.prefix, 'run', `${spec.name}.pid`);
  const logFile = path.join(spec.logDir, `${spec.name}.log`);

  /** The agent's pid, if it runs; a pid reused by an unrelated process after a reboot is not ours. */
  const agentPid = (): number | undefined => {
    if (!existsSync(pidFile)) return undefined;
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
    const cmdline = `/proc/${pid}/cmdline`;
    if (existsSync(cmdline) && !readFileSync(cmdline, 'utf8').includes('branch-agent.js')) return undefined;
    return pid;
  };

  return {
    kind: 'background',
    logsHint: logFile,
    // Runs as the installing user, who owns the config.
    async secureConfig() {},
    async define() {
      mkdirSync(path.dirname(pidFile), { recursive: true });
      mkdirSync(spec.logDir, { recursive: true });
    },
    async start() {
      const out = openSync(logFile, 'a');
      try {
        // Its own session, no terminal, output to the log: the agent outlives the installer.
        const child = spawn(spec.node, [...AGENT_NODE_OPTIONS, path.join(spec.prefix, 'current', 'bin', 'branch-agent.js'), 'run', '-c', spec.config], {
          cwd: spec.prefix,
          env: { ...process.env, ...readEnvFile(spec.config) },
          detached: true,
          stdio: ['ignore', out, out],
          windowsHide: true,
        });
        if (child.pid === undefined) throw new Error(`could not start ${spec.node}`);
        writeFileSync(pidFile, `${child.pid}\n`);
        child.unref();
      } finally {
        closeSync(out);
      }
    },
    async stop() {
      const pid = agentPid();
      if (pid !== undefined) {
        process.kill(pid, 'SIGTERM');
        const deadline = Date.now() + STOP_TIMEOUT_MS;
        while (isAlive(pid) && Date.now() < deadline) await sleep(100);
        if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      }
      rmSync(pidFile, { force: true });
    },
    alive: () => agentPid() !== undefined,
    async status() {
      const pid = agentPid();
      return pid === undefined ? 'background process: not running' : `background process: running, pid ${pid}`;
    },
    async remove() {
      await this.stop();
    },
  };
}
