#!/usr/bin/env node
/** `branch-agent <command>`: the one entry point of the agent, the gateway and the demo. */
import { Command } from 'commander';
import { VERSION } from './version.js';

const program = new Command()
  .name('branch-agent')
  .description('Soft Restaurant branch agent, gateway and demo')
  .version(VERSION);

program
  .command('demo')
  .description('run the whole system on loopback with an embedded PostgreSQL and demo data')
  .action(async () => {
    const { runDemo } = await import('./demo/demo.js');
    await runDemo();
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
