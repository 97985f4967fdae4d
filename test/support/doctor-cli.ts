/**
 * `doctor` and `migrate` exactly as src/cli.ts wires them, runnable with tsx before (and
 * independently of) the CLI: `npx tsx test/support/doctor-cli.ts doctor -c config.json`.
 */
import { Command } from 'commander';
import { formatDoctorReport, parsePrinterOption, runDoctor } from '../../src/agent/doctor/index.js';
import { migrateAgentTables } from '../../src/agent/migrate.js';

const program = new Command().name('doctor-cli');

program
  .command('doctor')
  .option('-c, --config <file>', 'configuration file', 'config.json')
  .option('-p, --printer <host:port...>', 'also check that these printers accept connections (TCP, port 9100 by default)')
  .option('--json', 'print the result as JSON')
  .action(async (opts: { config: string; printer?: string[]; json?: boolean }) => {
    const report = await runDoctor(opts.config, { printers: (opts.printer ?? []).map(parsePrinterOption) });
    console.log(opts.json ? JSON.stringify(report, null, 2) : formatDoctorReport(report));
    process.exitCode = report.ok ? 0 : 1;
    setTimeout(() => process.exit(), 2_000).unref();
  });

program
  .command('migrate')
  .option('-c, --config <file>', 'configuration file', 'config.json')
  .action(async (opts: { config: string }) => {
    const result = await migrateAgentTables(opts.config);
    console.log(
      result.applied.length > 0
        ? `Applied to ${result.database}: ${result.applied.join(', ')}`
        : `Agent tables up to date in ${result.database}; nothing to apply.`,
    );
    console.log(`Soft Restaurant version: ${result.posVersion ?? 'unknown'}`);
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
