/**
 * Windows: a service through WinSW (the copy node-windows ships, in the release's
 * service-install\winsw\). WinSW runs as <prefix>\service\<name>.exe and reads <name>.xml beside
 * it; `install`, `start`, `stop`, `status` and `uninstall` are its commands. The service runs as
 * LocalSystem, so the config folder is made readable by Administrators and SYSTEM only. Beside
 * it the upgrade helper's scheduled task (windows-upgrade-task.ts), which carries out the remote
 * upgrades the agent requests.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AGENT_NODE_OPTIONS, InstallStepError, mustExec, printed, type Exec, type ServiceManager, type ServiceSpec } from './service-manager.js';
import { UPGRADE_HELPER_NAME } from './upgrade-request.js';
import { configAclProblem, saveAclArgs, sddlOfSavedAcl, secureFolderArgs } from './windows-acl.js';
import { createTaskArgs, deleteTaskArgs, queryTaskArgs, renderUpgradeTaskXml, taskProblem, taskXmlBytes } from './windows-upgrade-task.js';

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

/** The words `winsw status` answers with; anything else means WinSW itself did not run. */
const STATES = ['NonExistent', 'Stopped', 'Started'];

/** The steps, as the installer names them when one does not take. */
const STEP = {
  secure: 'Securing the config folder',
  service: 'Installing the Windows service (WinSW)',
  task: 'Registering the upgrade task',
  stop: 'Stopping the agent',
  start: 'Starting the agent',
  remove: 'Removing the Windows service',
} as const;

/**
 * Every command's exit code is checked, and what each one was asked to do is read back: a
 * Windows tool that exits 0 without doing it (Wine's icacls and `schtasks /Query` are such
 * stand-ins; a half-broken Windows can be too) ends the install at that step.
 */
export function winswService(spec: ServiceSpec, opts: { winsw: string }, run: Exec): ServiceManager {
  const paths = pathsFor(spec.prefix);
  const dir = paths.join(spec.prefix, 'service');
  const exe = paths.join(dir, `${spec.name}.exe`);
  const configDir = paths.dirname(spec.config);
  const winsw = (step: string, command: string) => mustExec(run, exe, [command], step);
  const state = async (step: string) => {
    const result = await run(exe, ['status']);
    const word = result.stdout.trim();
    if (result.code !== 0 || !STATES.includes(word))
      throw new InstallStepError(step, `WinSW could not tell the service's state: ${exe} status exited ${result.code} (${printed(result)})`);
    return word;
  };
  /** The task as the Task Scheduler holds it, or '' when it has none. */
  const registeredTask = async () => {
    const result = await run('schtasks', queryTaskArgs);
    return result.code === 0 ? result.stdout : '';
  };
  const serviceRegistered = async () => {
    const result = await run('sc', ['query', spec.name]);
    return result.code === 0 && result.stdout.includes(spec.name) ? undefined : `sc query ${spec.name} exited ${result.code} (${printed(result)})`;
  };

  return {
    kind: 'winsw',
    logsHint: spec.logDir,
    async secureConfig() {
      // Secrets live in the config: only Administrators (S-1-5-32-544) and SYSTEM (S-1-5-18) read it.
      const step = `${STEP.secure} ${configDir}`;
      await mustExec(run, 'icacls', secureFolderArgs(configDir), step);
      const saved = path.join(tmpdir(), `branch-agent-acl-${process.pid}-${Date.now()}.txt`);
      try {
        await mustExec(run, 'icacls', saveAclArgs(configDir, saved), step);
        const problem = configAclProblem(existsSync(saved) ? sddlOfSavedAcl(readFileSync(saved)) : undefined);
        if (problem) throw new InstallStepError(step, `icacls exited 0, but ${problem}`);
      } finally {
        rmSync(saved, { force: true });
      }
    },
    async define() {
      mkdirSync(dir, { recursive: true });
      mkdirSync(spec.logDir, { recursive: true });
      // The running wrapper cannot be replaced; the pinned one never needs to be.
      if (!existsSync(exe)) {
        if (!existsSync(opts.winsw))
          throw new InstallStepError(
            STEP.service,
            `WinSW not found at ${opts.winsw}: use a release made by make-release.sh --platform win32, or pass --winsw <exe>`,
          );
        copyFileSync(opts.winsw, exe);
        if (existsSync(`${opts.winsw}.config`)) copyFileSync(`${opts.winsw}.config`, `${exe}.config`);
      }
      const file = paths.join(dir, `${spec.name}.xml`);
      const definition = renderWinswXml(spec);
      if (!existsSync(file) || readFileSync(file, 'utf8') !== definition) writeFileSync(file, definition);
      if ((await state(STEP.service)) === 'NonExistent') await winsw(STEP.service, 'install');
      const missing = await serviceRegistered();
      if (missing) throw new InstallStepError(STEP.service, `the service manager does not know ${spec.name}: ${missing}`);
      mkdirSync(spec.downloadDir, { recursive: true });
      // Registered again only when it changed: a remote upgrade runs this from within the task.
      const taskFile = paths.join(dir, `${UPGRADE_HELPER_NAME}.xml`);
      const task = taskXmlBytes(renderUpgradeTaskXml(spec));
      const unchanged = existsSync(taskFile) && readFileSync(taskFile).equals(task);
      if (unchanged && taskProblem(await registeredTask(), spec) === undefined) return;
      writeFileSync(taskFile, task);
      try {
        await mustExec(run, 'schtasks', createTaskArgs(taskFile), STEP.task);
        const problem = taskProblem(await registeredTask(), spec);
        if (problem) throw new InstallStepError(STEP.task, `schtasks /Create exited 0, but ${problem}`);
      } catch (error) {
        rmSync(taskFile, { force: true });
        throw error;
      }
    },
    start: async () => void (await winsw(STEP.start, 'start')),
    async stop() {
      if ((await state(STEP.stop)) !== 'Started') return;
      await winsw(STEP.stop, 'stop');
      const after = await state(STEP.stop);
      if (after !== 'Stopped') throw new InstallStepError(STEP.stop, `${exe} stop exited 0, but WinSW says the service is ${after}`);
    },
    // The service manager restarts a crashed agent: only the health answer tells.
    alive: () => undefined,
    async status() {
      const result = await run(exe, ['status']);
      const word = result.stdout.trim();
      return `Windows service ${spec.name} (WinSW): ${result.code === 0 && STATES.includes(word) ? word : `unknown (${exe} status exited ${result.code}: ${printed(result)})`}`;
    },
    async remove() {
      const deleted = await run('schtasks', deleteTaskArgs);
      if (taskProblem(await registeredTask(), spec) === undefined)
        throw new InstallStepError(STEP.remove, `the upgrade task is still registered: schtasks /Delete exited ${deleted.code} (${printed(deleted)})`);
      rmSync(paths.join(dir, `${UPGRADE_HELPER_NAME}.xml`), { force: true });
      const current = await state(STEP.remove);
      if (current === 'NonExistent') return;
      if (current === 'Started') await winsw(STEP.remove, 'stop');
      await winsw(STEP.remove, 'uninstall');
      if ((await serviceRegistered()) === undefined)
        throw new InstallStepError(STEP.remove, `${exe} uninstall exited 0, but sc query still finds ${spec.name}`);
    },
  };
}
