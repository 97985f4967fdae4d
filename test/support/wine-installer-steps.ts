/**
 * Run by Windows' node.exe under Wine (test/integration/wine-agent.test.ts bundles it with
 * esbuild): each Windows step of the installer against Wine's own tools, one at a time, so that
 * each is reached even though an earlier one cannot take there. Where a step needs an earlier
 * one to have worked, that one is answered by a stand-in in JavaScript (WinSW, which needs .NET,
 * and `sc`), and the step's own tool is Wine's. Writes one JSON object per step to the file
 * named by its first argument: the step, and the error the installer stopped with (or none).
 *
 * Usage: node.exe wine-installer-steps.mjs <result.json> <prefix> <config> <winsw.exe>
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { layoutOf, stageCurrent } from '../../src/agent/installer/layout.js';
import { exec, type Exec } from '../../src/agent/installer/service-manager.js';
import { winswService } from '../../src/agent/installer/winsw.js';
import { serviceSpecAt } from './windows-service-spec.js';

const [resultFile, prefix, config, winswExe] = process.argv.slice(2) as [string, string, string, string];
const spec = serviceSpecAt(prefix, config, process.execPath);

/** WinSW as it answers when it runs: the service installed once asked. */
let installed = false;
const winswStandIn: Exec = async (command, args) => {
  if (!command.endsWith(`${spec.name}.exe`)) return exec(command, args);
  if (args[0] === 'install') installed = true;
  return { code: 0, stdout: args[0] === 'status' ? (installed ? 'Stopped' : 'NonExistent') : '', stderr: '' };
};
/** And `sc query`, as it answers for the service WinSW installed. */
const scStandIn: Exec = async (command, args) =>
  command === 'sc' ? { code: 0, stdout: `SERVICE_NAME: ${args[1]}\r\n        STATE              : 1  STOPPED`, stderr: '' } : winswStandIn(command, args);

const outcome = async (step: string, action: () => Promise<unknown>) => {
  try {
    await action();
    return { step, error: null };
  } catch (error) {
    return { step, error: error instanceof Error ? error.message : String(error) };
  }
};

mkdirSync(path.dirname(config), { recursive: true });
const layout = layoutOf(prefix);
mkdirSync(path.join(layout.releases, '1.0.0'), { recursive: true });
const results = [
  await outcome('icacls', () => winswService(spec, { winsw: winswExe }, exec).secureConfig()),
  await outcome('winsw', () => winswService(spec, { winsw: winswExe }, exec).define()),
  await outcome('sc', () => winswService(spec, { winsw: winswExe }, winswStandIn).define()),
  await outcome('schtasks', () => winswService(spec, { winsw: winswExe }, scStandIn).define()),
  await outcome('junction', async () => stageCurrent(layout, '1.0.0')),
];
writeFileSync(resultFile, JSON.stringify({ results, currentExists: existsSync(layout.current) }, null, 2));
