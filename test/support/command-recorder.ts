/** An installer's command runner that runs nothing, for tests of the commands it would run. */
import type { Exec } from '../../src/agent/installer/service-manager.js';

/** Records every command; answers as the tools do when all goes well. */
export function recorder(answers: Record<string, number> = {}) {
  const calls: string[] = [];
  const exec: Exec = (command, args) => {
    const line = `${command} ${args.join(' ')}`;
    calls.push(line);
    return Promise.resolve({ code: answers[line] ?? 0, stdout: '', stderr: answers[line] ? 'ERROR: Access is denied.' : '' });
  };
  return { calls, exec };
}
