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
  const cli = pathsFor(spec.prefix).join(spec.prefix, 'current', 'bin', 'branch-agent.js');
  const args = `"${cli}" service upgrade-request --prefix "${spec.prefix}" --config "${spec.config}" --manager winsw`;
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

/** UTF-16 LE with its byte order mark, the encoding the declaration names. */
export function taskXmlBytes(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

/** The installer's command that registers (or replaces) the task. */
export const createTaskArgs = (file: string) => ['/Create', '/TN', UPGRADE_HELPER_NAME, '/XML', file, '/F'];
export const deleteTaskArgs = ['/Delete', '/TN', UPGRADE_HELPER_NAME, '/F'];
