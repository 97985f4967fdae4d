#!/usr/bin/env node
/** `branch-agent <command>`: the one entry point of the agent, the gateway and the demo. */
import { Command } from 'commander';
import { serviceCommand } from './agent/installer/service-command.js';
import { defaultConfigPath, loadConfig } from './config/load.js';
import type { GatewayFileConfig } from './config/schema.js';
import { createLogger } from './logging.js';
import { VERSION } from './version.js';

const program = new Command().name('branch-agent').description('Soft Restaurant branch agent, gateway and demo').version(VERSION);

const DEFAULT_CONFIG = defaultConfigPath();

/** Stops `stop` on SIGINT/SIGTERM once; a second signal exits at once. */
function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) process.exit(1);
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

program
  .command('demo')
  .description('run the whole system on loopback with an embedded PostgreSQL and demo data')
  .action(async () => {
    const { runDemo } = await import('./demo/demo.js');
    await runDemo();
  });

program
  .command('run')
  .description('run the branch agent (connects to the gateway, serves jobs on the POS database)')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (opts: { config: string }) => {
    const config = loadConfig(opts.config).agent;
    if (!config) throw new Error(`${opts.config} has no "agent" section`);
    const log = createLogger({ level: config.log.level, name: 'branch-agent', file: config.log.file });
    log.info({ licenseKey: config.licenseKey, version: VERSION }, 'agent starting');
    const { runService } = await import('./agent/service.js');
    const service = await runService(config, opts.config, log);
    onSignals(async () => {
      log.info('agent stopping: finishing running jobs');
      await service.stop();
      log.flush();
    });
  });

function gatewaySection(path: string): GatewayFileConfig {
  const config = loadConfig(path).gateway;
  if (!config) throw new Error(`${path} has no "gateway" section`);
  return config;
}

program
  .command('gateway')
  .description('run the HTTP gateway that clients call and agents connect to')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (opts: { config: string }) => {
    // First of all, before anything is open: where Node can, this restarts the process in place.
    const { GATEWAY_NODE_FLAGS, runWithGatewayNodeFlags } = await import('./gateway/heap-growth.js');
    const flagsSet = runWithGatewayNodeFlags();
    const config = gatewaySection(opts.config);
    const log = createLogger({ level: config.log.level, name: 'gateway' });
    if (!flagsSet) log.warn(`the gateway could not restart itself with ${GATEWAY_NODE_FLAGS.join(' ')}: start Node with them for shorter pauses under load`);
    const { runGateway } = await import('./gateway/server.js');
    const stop = await runGateway(config, log);
    const { leaveStopSignalsToCaller } = await import('./embedded-postgres/exit-hooks.js');
    leaveStopSignalsToCaller();
    onSignals(stop);
  });

program
  .command('migrate')
  .description("create or update the agent's own ba_ tables in the POS database, then exit (the installer runs it before switching releases)")
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (opts: { config: string }) => {
    const { migrateAgentTables } = await import('./agent/migrate.js');
    const result = await migrateAgentTables(opts.config);
    console.log(
      result.applied.length > 0
        ? `Applied to ${result.database}: ${result.applied.join(', ')}`
        : `The agent tables in ${result.database} are up to date; nothing to apply.`,
    );
    console.log(`Soft Restaurant version: ${result.posVersion ?? 'unknown'}`);
  });

program.addCommand(serviceCommand());

program
  .command('doctor')
  .description('check the configuration, the POS database and its tables, the gateway, the token and printers, and say what to do about each problem')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .option('-p, --printer <host:port...>', 'also check that these printers accept connections (TCP, port 9100 by default)')
  .option('--json', 'print the result as JSON')
  .action(async (opts: { config: string; printer?: string[]; json?: boolean }) => {
    const { formatDoctorReport, parsePrinterOption, runDoctor } = await import('./agent/doctor/index.js');
    const report = await runDoctor(opts.config, { printers: (opts.printer ?? []).map(parsePrinterOption) });
    console.log(opts.json ? JSON.stringify(report, null, 2) : formatDoctorReport(report));
    process.exitCode = report.ok ? 0 : 1;
    // Everything is closed by now; should a socket linger, do not hang the terminal.
    setTimeout(() => process.exit(), 2_000).unref();
  });

program
  .command('print-preview')
  .description('render a sample ticket (or a print-order JSON file) to a PNG and print its text, without a printer')
  .option('-w, --width <mm>', 'paper width of a thermal printer: 48 to 112 (58 and 80 are usual)', '80')
  .option('-k, --kind <kind>', 'thermal (ESC/POS) or label (TSPL)', 'thermal')
  .option('-s, --sample <name>', 'kitchen or test', 'kitchen')
  .option('-t, --ticket <file>', 'a JSON print-order body (POST /print/{licenseKey}/orden) instead of a sample')
  .option('-o, --out <file>', 'where the PNG goes', 'ticket-preview.png')
  .action(async (opts: { width: string; kind: string; sample: 'kitchen' | 'test'; ticket?: string; out: string }) => {
    const { runPrintPreview } = await import('./printing/preview-cli.js');
    await runPrintPreview({ widthMm: opts.width, kind: opts.kind, sample: opts.sample, ticket: opts.ticket, out: opts.out });
  });

const keys = program.command('keys').description('manage users, API keys and branches in the gateway store');

/** Runs `use` with the gateway store of the config, also while the gateway itself is running. */
async function withGatewayStore(configPath: string, use: (store: import('./gateway/store.js').GatewayStore) => Promise<void>): Promise<void> {
  const { openGatewayStore } = await import('./gateway/open-store.js');
  const { store, close } = await openGatewayStore(gatewaySection(configPath), createLogger({ level: 'warn' }), { shareRunning: true });
  try {
    await use(store);
  } finally {
    await close();
  }
}

keys
  .command('add-api-key')
  .description('create an API key for a user (created if new); prints the key once')
  .requiredOption('-u, --user <name>', 'user that owns the key')
  .option('-l, --label <text>', 'a note to recognise the key', '')
  .option('-s, --scope <scope...>', 'what the key may do: read, write, fleet (default: read write)')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (opts: { user: string; label: string; scope?: string[]; config: string }) => {
    const { newSecret } = await import('./gateway/secrets.js');
    const { DEFAULT_SCOPES, isScope, SCOPES } = await import('./gateway/scopes.js');
    const scopes = opts.scope ?? DEFAULT_SCOPES;
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) throw new Error(`unknown scope ${unknown.join(', ')}: use ${SCOPES.join(', ')}`);
    await withGatewayStore(opts.config, async (store) => {
      const key = newSecret('key');
      const id = await store.addApiKey(await store.ensureUser(opts.user), key, opts.label, scopes.filter(isScope));
      console.log(`API key ${id} for ${opts.user} (shown once, stored hashed; revoke with \`keys revoke-api-key --id ${id}\`):\n${key}`);
    });
  });

keys
  .command('revoke-api-key')
  .description('revoke an API key at once, on every running gateway')
  .requiredOption('--id <n>', 'the id `keys list` shows')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (opts: { id: string; config: string }) => {
    const id = Number(opts.id);
    if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`--id must be a key id from \`keys list\`, not "${opts.id}"`);
    await withGatewayStore(opts.config, async (store) => {
      if (!(await store.revokeApiKey(id))) throw new Error(`No active API key has id ${id} (see \`keys list\`).`);
      console.log(`API key ${id} revoked.`);
    });
  });

keys
  .command('list')
  .description('list API keys (without the keys, which are not kept) and branches')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (opts: { config: string }) => {
    await withGatewayStore(opts.config, async (store) => {
      const { formatAccessListing } = await import('./gateway/access-listing.js');
      console.log(formatAccessListing(await store.listApiKeys(), await store.listBranches()));
    });
  });

keys
  .command('add-branch')
  .description("register a branch (licenseKey) for a user and print its agent's token; an existing branch gets a new token and its old one stops working")
  .requiredOption('-u, --user <name>', 'user that owns the branch')
  .requiredOption('-k, --license-key <key>', '16-character Soft Restaurant license key')
  .option('-n, --name <text>', 'branch name', '')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (opts: { user: string; licenseKey: string; name: string; config: string }) => {
    const { licenseKey } = await import('./protocol/common.js');
    const key = licenseKey.parse(opts.licenseKey);
    const { newSecret } = await import('./gateway/secrets.js');
    await withGatewayStore(opts.config, async (store) => {
      const token = newSecret('agt');
      await store.upsertBranch(await store.ensureUser(opts.user), key, token, opts.name);
      console.log(`Agent token for branch ${key} (shown once, stored hashed; put it in the agent's config):\n${token}`);
    });
  });

const releases = program.command('releases').description('sign agent releases and publish them to the gateway for rollouts');

releases
  .command('keygen')
  .description('make the Ed25519 key pair releases are signed with: <prefix>.key (keep it off the gateway) and <prefix>.pub (for the agents)')
  .argument('<prefix>', 'path and name of the two files')
  .action(async (prefix: string) => {
    const { writeKeyPair } = await import('./gateway/fleet/release-files.js');
    const files = await writeKeyPair(prefix);
    console.log(`Private key: ${files.privateKey}\nPublic key:  ${files.publicKey} (agent config: upgrades.publicKeyFile)`);
  });

releases
  .command('sign')
  .description('sign a release tarball; writes <tarball>.manifest.json beside it')
  .argument('<tarball>', 'what scripts/make-release.sh built')
  .argument('<version>', 'the version it holds')
  .argument('<platform>', 'linux or win32')
  .requiredOption('-k, --key <file>', 'the private key from `releases keygen`')
  .action(async (tarball: string, version: string, platform: string, opts: { key: string }) => {
    const { signTarball } = await import('./gateway/fleet/release-files.js');
    const { RELEASE_PLATFORMS, platformOf } = await import('./protocol/releases.js');
    const target = platformOf(platform);
    if (!target) throw new Error(`platform must be one of ${RELEASE_PLATFORMS.join(', ')}, not "${platform}"`);
    const manifest = await signTarball(tarball, version, target, opts.key);
    console.log(`Signed ${manifest.version} for ${manifest.platform} (sha256 ${manifest.sha256}).`);
  });

releases
  .command('add')
  .description('publish a signed release tarball in the gateway store')
  .argument('<tarball>', 'the tarball; its manifest is <tarball>.manifest.json unless --manifest says')
  .option('-m, --manifest <file>', 'the signed manifest')
  .option('-p, --public-key <file>', 'refuse a manifest this key did not sign')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (tarball: string, opts: { manifest?: string; publicKey?: string; config: string }) => {
    const { publishRelease } = await import('./gateway/fleet/release-files.js');
    await withGatewayStore(opts.config, async (store) => {
      const release = await publishRelease(store, tarball, { manifest: opts.manifest, publicKeyFile: opts.publicKey });
      console.log(`Published ${release.version} for ${release.platform}: ${(release.sizeBytes / 1048576).toFixed(1)} MB, sha256 ${release.sha256}.`);
    });
  });

releases
  .command('list')
  .description('list published releases')
  .option('-c, --config <file>', 'configuration file', DEFAULT_CONFIG)
  .action(async (opts: { config: string }) => {
    await withGatewayStore(opts.config, async (store) => {
      for (const r of await store.releases.list()) {
        console.log(`${r.version}\t${r.platform}\t${(r.sizeBytes / 1048576).toFixed(1)} MB\t${r.createdAt.toISOString()}\t${r.sha256}`);
      }
    });
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
