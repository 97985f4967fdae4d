/**
 * Windows: a service through WinSW (the copy node-windows ships, in the release's
 * service-install\winsw\). WinSW runs as <prefix>\service\<name>.exe and reads <name>.xml beside
 * it; `install`, `start`, `stop`, `status` and `uninstall` are its commands. The service runs as
 * LocalSystem, so the config folder is made readable by Administrators and SYSTEM only. Beside
 * it the upgrade helper's scheduled task (windows-upgrade-task.ts), which carries out the remote
 * upgrades the agent requests.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AGENT_NODE_OPTIONS, mustExec, type Exec, type ServiceManager, type ServiceSpec } from './service-manager.js';
import { UPGRADE_HELPER_NAME } from './upgrade-request.js';
import { createTaskArgs, deleteTaskArgs, renderUpgradeTaskXml, taskXmlBytes } from './windows-upgrade-task.js';

/** Windows paths for a Windows prefix, whatever machine renders them (the tests run on Linux). */
const pathsFor = (prefix: string) => (/^[A-Za-z]:\\/.test(prefix) ? path.win32 : path);

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The service definition, <name>.xml (WinSW's configuration file). */
export function renderWinswXml(spec: ServiceSpec): string {
  const cli = pathsFor(spec.prefix).join(spec.prefix, 'current', 'bin', 'branch-agent.js');
  return `<!-- Written by \`branch-agent service install\`; the next install rewrites it. -->
<service>
  <id>${xml(spec.name)}</id>
  <name>Soft Restaurant branch agent</name>
  <description>Connects this branch's Soft Restaurant to the cloud gateway (outbound WebSocket) and runs its jobs on the POS database.</description>
  <!-- Absolute: a service does not see the installing user's PATH. Through \`current\`, so an
       upgrade switches the junction and restarts, and this file stays as it is. -->
  <executable>${xml(spec.node)}</executable>
  <arguments>${AGENT_NODE_OPTIONS.join(' ')} "${xml(cli)}" run -c "${xml(spec.config)}"</arguments>
  <workingdirectory>${xml(spec.prefix)}</workingdirectory>
  <env name="NODE_ENV" value="production"/>
  <!-- At boot, after the rest (SQL Server first); the agent also retries the database itself. -->
  <startmode>Automatic</startmode>
  <delayedAutoStart>true</delayedAutoStart>
  <!-- Restart whenever the agent exits with an error, forever (the last action repeats). -->
  <onfailure action="restart" delay="5 sec"/>
  <onfailure action="restart" delay="10 sec"/>
  <onfailure action="restart" delay="30 sec"/>
  <resetfailure>1 hour</resetfailure>
  <!-- WinSW stops with Ctrl+C; the agent finishes running jobs (up to 10 s). After 30 s it is killed. -->
  <stoptimeout>30 sec</stoptimeout>
  <!-- Output (pino JSON lines) rolled at 10 MB, 8 files kept. -->
  <logpath>${xml(spec.logDir)}</logpath>
  <log mode="roll-by-size">
    <sizeThreshold>10240</sizeThreshold>
    <keepFiles>8</keepFiles>
  </log>
</service>
`;
}

export function winswService(spec: ServiceSpec, opts: { winsw: string }, run: Exec): ServiceManager {
  const paths = pathsFor(spec.prefix);
  const dir = paths.join(spec.prefix, 'service');
  const exe = paths.join(dir, `${spec.name}.exe`);
  const winsw = (command: string) => mustExec(run, exe, [command]);
  const state = async () => (await run(exe, ['status'])).stdout.trim();

  return {
    kind: 'winsw',
    logsHint: spec.logDir,
    async secureConfig() {
      // Secrets live in the config: only Administrators (S-1-5-32-544) and SYSTEM (S-1-5-18) read it.
      await mustExec(run, 'icacls', [paths.dirname(spec.config), '/inheritance:r', '/grant:r', '*S-1-5-32-544:(OI)(CI)F', '/grant:r', '*S-1-5-18:(OI)(CI)F']);
    },
    async define() {
      mkdirSync(dir, { recursive: true });
      mkdirSync(spec.logDir, { recursive: true });
      // The running wrapper cannot be replaced; the pinned one never needs to be.
      if (!existsSync(exe)) {
        if (!existsSync(opts.winsw))
          throw new Error(`WinSW not found at ${opts.winsw}: use a release made by make-release.sh --platform win32, or pass --winsw <exe>`);
        copyFileSync(opts.winsw, exe);
        if (existsSync(`${opts.winsw}.config`)) copyFileSync(`${opts.winsw}.config`, `${exe}.config`);
      }
      const file = paths.join(dir, `${spec.name}.xml`);
      const definition = renderWinswXml(spec);
      if (!existsSync(file) || readFileSync(file, 'utf8') !== definition) writeFileSync(file, definition);
      if ((await state()) === 'NonExistent') await winsw('install');
      mkdirSync(spec.downloadDir, { recursive: true });
      // Registered again only when it changed: a remote upgrade runs this from within the task.
      const taskFile = paths.join(dir, `${UPGRADE_HELPER_NAME}.xml`);
      const task = taskXmlBytes(renderUpgradeTaskXml(spec));
      const unchanged = existsSync(taskFile) && readFileSync(taskFile).equals(task);
      if (!unchanged || (await run('schtasks', ['/Query', '/TN', UPGRADE_HELPER_NAME])).code !== 0) {
        writeFileSync(taskFile, task);
        try {
          await mustExec(run, 'schtasks', createTaskArgs(taskFile));
        } catch (error) {
          rmSync(taskFile, { force: true });
          throw error;
        }
      }
    },
    start: async () => void (await winsw('start')),
    async stop() {
      if ((await state()) === 'Started') await winsw('stop');
    },
    // The service manager restarts a crashed agent: only the health answer tells.
    alive: () => undefined,
    status: async () => `Windows service ${spec.name} (WinSW): ${(await state()) || 'unknown'}`,
    async remove() {
      await run('schtasks', deleteTaskArgs);
      rmSync(paths.join(dir, `${UPGRADE_HELPER_NAME}.xml`), { force: true });
      const current = await state();
      if (current === 'NonExistent') return;
      if (current === 'Started') await winsw('stop');
      await winsw('uninstall');
    },
  };
}
