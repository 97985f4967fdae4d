/** The branch agent: POS database + job runner + gateway connection, started and stopped as one. */
import { setTimeout as sleep } from 'node:timers/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ping, type PosDbConfig } from '../pos/db.js';
import { operations } from './operations.js';
import { openPos, type PosRuntime } from '../pos/runtime.js';
import { agentDefaults } from '../config/schema.js';
import type { PrinterRule } from '../protocol/printer-rule.js';
import { HELD_COMMIT } from '../protocol/messages.js';
import { VERSION } from '../version.js';
import { GatewayConnection, type ConnectionOptions } from './connection.js';
import { EventPump } from './event-pump.js';
import { HealthReporter } from './health-report.js';
import { JobRunner } from './runner.js';
import { startScheduler } from './scheduler.js';
import { UpgradeRunner, type UpgradeOptions } from './upgrades.js';

/** How often an agent tells the gateway its health unless its config says otherwise. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** What an agent runs with; an option left out takes the config schema's default (agentDefaults). */
export interface AgentConfig {
  licenseKey: string;
  workerId?: string;
  gatewayUrl: string;
  /** Gateways of a cluster, tried in turn after `gatewayUrl` when it goes away. */
  gatewayUrls?: readonly string[];
  token: string;
  database: PosDbConfig;
  concurrency?: number;
  /** Where printers may be (the config default unless given): checked again here before any socket opens. */
  printers?: PrinterRule;
  idempotencyRetentionHours?: number;
  /** How often the POS is polled for changes. */
  events?: { pollIntervalMs?: number };
  /** Heartbeat and reconnect timings (docs/architecture.md, Wire protocol); tests shorten them. */
  connection?: Pick<ConnectionOptions, 'backoffBaseMs' | 'backoffMaxMs' | 'pingIntervalMs' | 'deadAfterMs' | 'stableAfterMs'> & {
    /** How often the agent reports its health to the gateway (default 15 s). */
    heartbeatIntervalMs?: number;
  };
  /** Remote upgrades: without a public key or an installer every order is answered `failed` with why. */
  upgrades?: Partial<Pick<UpgradeOptions, 'publicKey' | 'downloadDir' | 'installer' | 'installerRecord' | 'pollMs'>>;
  /** The branch server's wall clock (Date.now unless given): the times written to the POS and reported to the gateway. */
  wallClock?: () => number;
}

export interface Agent {
  workerId: string;
  /** Resolves when the POS database answers a trivial query. */
  pingDatabase(): Promise<void>;
  pos: PosRuntime;
  runner: JobRunner;
  connection: GatewayConnection;
  events: EventPump;
  /** Stops taking jobs, lets running ones finish (up to `graceMs`), then closes everything. */
  stop(graceMs?: number): Promise<void>;
}

export async function startAgent(config: AgentConfig, log: Logger): Promise<Agent> {
  const defaults = agentDefaults();
  const workerId = config.workerId ?? `${hostname()}-${config.licenseKey}`;
  const pos = await openPos(config.database, log);
  const runner = new JobRunner({
    pos,
    operations,
    log,
    concurrency: config.concurrency ?? defaults.concurrency,
    printerRule: config.printers ?? defaults.printers,
    idempotencyRetentionMs: (config.idempotencyRetentionHours ?? defaults.idempotencyRetentionHours) * 3_600_000,
    wallClock: config.wallClock,
  });
  const pingDatabase = () => ping(pos.db);
  const health = new HealthReporter({ pingDatabase, jobsRunning: () => runner.running, wallClock: config.wallClock });
  let accepting = true;
  const events: EventPump = new EventPump({
    pos,
    licenseKey: config.licenseKey,
    log,
    send: (message) => connection.send(message),
    pollIntervalMs: config.events?.pollIntervalMs ?? defaults.events.pollIntervalMs,
  });
  const { heartbeatIntervalMs = DEFAULT_HEARTBEAT_MS, ...connectionTimings } = config.connection ?? {};
  const connection: GatewayConnection = new GatewayConnection({
    gatewayUrls: [...new Set([config.gatewayUrl, ...(config.gatewayUrls ?? [])])],
    token: config.token,
    log,
    ...connectionTimings,
    hello: () => ({
      type: 'hello',
      licenseKey: config.licenseKey,
      workerId,
      agentVersion: VERSION,
      posVersion: pos.posVersion,
      ...health.identity(),
      health: health.snapshot(),
      features: [HELD_COMMIT],
    }),
    onUpgrade: (order) => upgrades.handle(order),
    onJob: (job) => {
      if (!accepting) return;
      void runner.run(job).then((result) => {
        health.noteResult(result);
        if (!connection.send(result)) log.warn({ jobId: job.jobId, op: job.op, ok: result.ok }, 'result not delivered: gateway disconnected');
      });
    },
    onClaim: (jobId, won) => runner.claimDecided(jobId, won),
    onEventsAck: (ids) => events.acknowledged(ids),
  });
  const upgrades = new UpgradeRunner({
    licenseKey: config.licenseKey,
    currentVersion: VERSION,
    gatewayUrl: () => connection.gatewayUrl,
    token: config.token,
    publicKey: config.upgrades?.publicKey,
    downloadDir: config.upgrades?.downloadDir ?? join(tmpdir(), `branch-agent-${config.licenseKey}-downloads`),
    installer: config.upgrades?.installer,
    installerRecord: config.upgrades?.installerRecord,
    pollMs: config.upgrades?.pollMs,
    isIdle: () => runner.running === 0,
    report: (message) => connection.send(message),
    log,
    wallClock: config.wallClock,
  });
  const stopScheduler = startScheduler({ pos, log });
  connection.onChange((connected) => {
    if (!connected) runner.connectionLost();
    events.connectionChanged(connected);
  });
  const heartbeat = setInterval(() => {
    if (!connection.connected) return;
    void health.check().then((report) => connection.send({ type: 'heartbeat', ...report }));
  }, heartbeatIntervalMs);
  heartbeat.unref();
  connection.start();
  events.start();

  return {
    workerId,
    pingDatabase,
    pos,
    runner,
    connection,
    events,
    async stop(graceMs = 10_000) {
      accepting = false;
      clearInterval(heartbeat);
      upgrades.stop();
      stopScheduler();
      await events.stop();
      await Promise.race([runner.drained(), sleep(graceMs, undefined, { ref: false })]);
      await connection.stop();
      await pos.close();
    },
  };
}
