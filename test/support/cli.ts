/** Runs `branch-agent …` from the sources as an operator would, and collects what it printed. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the command; `GATEWAY_DATABASE_URL` is left out so the config file decides. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const childEnv = { ...process.env, ...env };
  delete childEnv.GATEWAY_DATABASE_URL;
  return startNode(['--import', 'tsx', 'src/cli.ts', ...args], childEnv);
}

/** Starts node in the project's root with these arguments and this whole environment. */
export function startNode(args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn(process.execPath, args, { cwd: ROOT, env });
}

/** Runs the child to its end and collects what it printed. */
export function collect(child: ChildProcess): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Runs the command to its end. */
export const runCli = (args: string[], env: NodeJS.ProcessEnv = {}) => collect(startCli(args, env));

/** The last line a command printed: the key or token `keys` shows once. */
export const lastLine = (out: string): string => out.trim().split('\n').at(-1)!;
