/** Runs `branch-agent …` from the sources as an operator would, and collects what it printed. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the command; `GATEWAY_DATABASE_URL` is left out so the config file decides. */
export function startCli(args: string[]): ChildProcess {
  const env = { ...process.env };
  delete env.GATEWAY_DATABASE_URL;
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env });
}

/** Runs the command to its end. */
export function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = startCli(args);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** The last line a command printed: the key or token `keys` shows once. */
export const lastLine = (out: string): string => out.trim().split('\n').at(-1)!;
