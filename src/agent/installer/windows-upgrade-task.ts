/**
 * The upgrade helper on Windows (upgrade-request.ts): a scheduled task, registered by the
 * installer with `schtasks /Create /TN branch-agent-upgrade /XML <file>`, that runs
 * `service upgrade-request` as SYSTEM when the agent starts it with `schtasks /Run`. It has no
 * trigger: it runs only when asked. A task runs outside the service's job object, so WinSW
 * stopping the agent does not end it.
 *
 * Why `schtasks /Run` is allowed: the WinSW service runs as LocalSystem, and SYSTEM may run any
 * task. (Were the service given a less-privileged <serviceaccount>, that account would need read
 * and execute on the task's security descriptor; the helper's checks are written for that case
 * already and trust nothing in the request.)
 */
import path from 'node:path';
import type { ServiceSpec } from './service-manager.js';
import { UPGRADE_HELPER_NAME } from './upgrade-request.js';

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const pathsFor = (prefix: string) => (/^[A-Za-z]:\\/.test(prefix) ? path.win32 : path);

/** The Task Scheduler definition (schema 1.2), as text; schtasks reads it as UTF-16 (taskXmlBytes). */
export function renderUpgradeTaskXml(spec: ServiceSpec): string {
  const { args } = taskAction(spec);
  return `<?xml version="1.0" encoding="UTF-16"?>
<!-- Written by \`branch-agent service install\`; the next install rewrites it. -->
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>Soft Restaurant branch agent: carries out an upgrade the agent requested (started by the agent with schtasks /Run).</Description>
    <URI>\\${UPGRADE_HELPER_NAME}</URI>
  </RegistrationInfo>
  <Principals>
    <Principal id="Author">
      <UserId>S-1-5-18</UserId>
      <RunLevel>HighestAvailable</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>false</StartWhenAvailable>
    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>
    <IdleSettings>
      <StopOnIdleEnd>false</StopOnIdleEnd>
      <RestartOnIdle>false</RestartOnIdle>
    </IdleSettings>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
    <RunOnlyIfIdle>false</RunOnlyIfIdle>
    <WakeToRun>false</WakeToRun>
    <ExecutionTimeLimit>PT30M</ExecutionTimeLimit>
    <Priority>7</Priority>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>${xml(spec.node)}</Command>
      <Arguments>${xml(args)}</Arguments>
      <WorkingDirectory>${xml(spec.prefix)}</WorkingDirectory>
    </Exec>
  </Actions>
</Task>
`;
}

/** The task's command line: what the Task Scheduler must hold after /Create. */
function taskAction(spec: ServiceSpec): { command: string; args: string } {
  const cli = pathsFor(spec.prefix).join(spec.prefix, 'current', 'bin', 'branch-agent.js');
  return { command: spec.node, args: `"${cli}" service upgrade-request --prefix "${spec.prefix}" --config "${spec.config}" --manager winsw` };
}

const unxml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** The text of the first <tag> in `xml`, unescaped. */
const element = (xml: string, tag: string) => {
  const found = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
  return found === undefined ? undefined : unxml(found).trim();
};

/**
 * Why the task `schtasks /Query /TN <name> /XML` printed is not ours, or undefined when it runs
 * our action as SYSTEM. The Task Scheduler exports the SID it was given, or the account's name
 * ("SYSTEM": its domain may be localized, the name is not).
 */
export function taskProblem(exported: string, spec: ServiceSpec): string | undefined {
  // Should it come as UTF-16 (the encoding its declaration names) read as UTF-8, its ASCII keeps only NULs between.
  const text = exported.replace(/\0/g, '');
  if (!text.includes('<Task')) return `schtasks /Query /TN ${UPGRADE_HELPER_NAME} /XML shows no task (${text.trim() || 'it printed nothing'})`;
  const user = element(text, 'UserId');
  if (!user || !/^(S-1-5-18|(.+\\)?SYSTEM)$/i.test(user)) return `the task runs as ${user ?? 'nobody named'}, not SYSTEM (S-1-5-18)`;
  const { command, args } = taskAction(spec);
  const registered = { command: element(text, 'Command'), args: element(text, 'Arguments') };
  if (registered.command?.toLowerCase() !== command.toLowerCase() || registered.args !== args)
    return `the task runs ${registered.command ?? 'nothing'} ${registered.args ?? ''}, not ${command} ${args}`;
  return undefined;
}

/** UTF-16 LE with its byte order mark, the encoding the declaration names. */
export function taskXmlBytes(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

/** The installer's command that registers (or replaces) the task. */
export const createTaskArgs = (file: string) => ['/Create', '/TN', UPGRADE_HELPER_NAME, '/XML', file, '/F'];
export const deleteTaskArgs = ['/Delete', '/TN', UPGRADE_HELPER_NAME, '/F'];
/** Reads the registered task back as the Task Scheduler holds it. */
export const queryTaskArgs = ['/Query', '/TN', UPGRADE_HELPER_NAME, '/XML'];
