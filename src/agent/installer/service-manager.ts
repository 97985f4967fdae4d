/**
 * What the installer needs from a platform's service manager (systemd, WinSW, or none: a
 * background process), and how it runs their commands. Everything else, the whole upgrade
 * algorithm, is the same everywhere (upgrade.ts).
 */
import { spawn } from 'node:child_process';

/**
 * Node.js options of the service's agent, which shares the branch server with SQL Server and the
 * POS: memory counts there more than CPU, and the agent mostly waits on the database.
 * - a young generation of 1 MB (V8's default grows to 16 MB or more) keeps the idle agent from
 *   creeping up after each burst of jobs;
 * - no optimizing compilers (TurboFan, Maglev): their code and feedback stay out of memory, and
 *   JavaScript still runs baseline-compiled. Measured on Node 24 (1,000 requests through the
 *   gateway, 8 at a time): idle RSS 74 MB connected and 85 MB after, against 83 and ~118 MB
 *   with them; the requests took 8.9 s instead of 7.3 s end to end. (--lite-mode saves a few MB
 *   more but turns WebAssembly off, which Node's fetch needs.)
 * - V8's memory-over-speed choices (--optimize-for-size): after the same 1,000 requests the
 *   agent stays at 74–77 MB where it grew to 97–101 MB, in about the same time.
 * - bytecode (and baseline code) dropped after one garbage collection without running, where V8
 *   waits for six: an idle agent collects seldom, so what only ran at start-up (config, migrations,
 *   schema introspection, the CLI) stayed compiled for good. Settled idle RSS 65 MB connected
 *   and 68–69 MB after the requests, against 68–69 and 70 MB; 1,000 requests take as long
 *   (3.5–4.3 s either way), the code they need being compiled again on the next burst.
 * bench/agent-memory.ts measures the agent started this way.
 */
export const AGENT_NODE_OPTIONS = [
  '--max-semi-space-size=1',
  '--no-opt',
  '--no-maglev',
  '--optimize-for-size',
  '--bytecode-old-age=1',
  '--flush-baseline-code',
];

/** How the service runs the agent: `<node> <AGENT_NODE_OPTIONS> <prefix>/current/bin/branch-agent.js run -c <config>`. */
export interface ServiceSpec {
  name: string;
  prefix: string;
  config: string;
  /** Absolute path of node.exe/node, usually under <prefix>/current/runtime/. */
  node: string;
  logDir: string;
  /** Where the agent downloads releases and drops its upgrade requests (upgrade-request.ts). */
  downloadDir: string;
}

export interface ServiceManager {
  readonly kind: 'systemd' | 'winsw' | 'background';
  /**
   * Lets the service read the config folder and nobody else more than needed; runs as soon as
   * the config exists (the template too), before any secret goes into it.
   */
  secureConfig(): Promise<void>;
  /** Creates or updates the service definition; nothing is started. */
  define(): Promise<void>;
  start(): Promise<void>;
  /** Stops gracefully (the agent finishes running jobs); does nothing when it is not running. */
  stop(): Promise<void>;
  /** false when the manager knows the agent's process has gone; undefined when it cannot tell. */
  alive(): boolean | undefined;
  /** One line for `service status`. */
  status(): Promise<string>;
  /** Stops the service and removes its definition. */
  remove(): Promise<void>;
  /** Where the agent's output goes, for messages. */
  readonly logsHint: string;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs an external command; a test passes one that records instead (the Windows adapter on Linux). */
export type Exec = (command: string, args: string[]) => Promise<ExecResult>;

/** How long a command's output may stay open after it exited. */
const OUTPUT_AFTER_EXIT_MS = 2_000;

/**
 * Resolves once the command exited and its output ended, or OUTPUT_AFTER_EXIT_MS after it
 * exited: a process it started may hold the output pipes open long after (under Wine,
 * `schtasks /Create` starts the Task Scheduler's service, which inherits them and runs on), and
 * waiting for them would hang the installer.
 */
export const exec: Exec = (command, args) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const timer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, OUTPUT_AFTER_EXIT_MS);
      child.on('close', () => {
        clearTimeout(timer);
        resolve({ code: code ?? 1, stdout, stderr });
      });
    });
  });

/**
 * A step of the installation that did not take: the command that ran said so by its exit code,
 * or what the installer read back afterwards is not what it asked for. The installer stops on
 * it before switching (exit 1), the running release untouched; the message names the step.
 */
export class InstallStepError extends Error {
  constructor(
    readonly step: string,
    detail: string,
  ) {
    super(`${step} did not take: ${detail}`);
  }
}

/** What a command printed, for a message: its error output, else its output, else a word saying it printed nothing. */
export const printed = (result: ExecResult): string => (result.stderr || result.stdout).trim() || 'it printed nothing';

/** Runs a command that must succeed; as a step of the installation (`step`), its failure is that step's. */
export async function mustExec(run: Exec, command: string, args: string[], step?: string): Promise<ExecResult> {
  const result = await run(command, args);
  if (result.code === 0) return result;
  const detail = `${command} ${args.join(' ')} failed (exit ${result.code}): ${printed(result)}`;
  throw step === undefined ? new Error(detail) : new InstallStepError(step, detail);
}
