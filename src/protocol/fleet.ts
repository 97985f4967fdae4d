/**
 * The fleet API (GET /sucursales, GET /sucursales/{licenseKey}): each branch's agent as the
 * gateway last saw it. Gateway-local: answered from the gateway's store, never by a job.
 */
import { z } from 'zod';
import { licenseKey, pageResult, paging, search } from './common.js';

export const fleetListQuery = z.object({
  online: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('only the branches whose agent is (true) or is not (false) connected'),
  version: z.string().max(50).optional().describe('only the branches whose agent runs this version'),
  search,
  ...paging(),
});

export const branchParams = z.object({ licenseKey });

const timestamp = z.string().describe('ISO 8601, UTC');

/** A branch that reconnects all day would otherwise list thousands. */
export const MAX_LISTED_CONNECTIONS = 50;

/** One hour of a branch's jobs; only hours that had jobs are listed. */
export const activityHour = z.object({
  hour: timestamp.describe('the start of the hour'),
  jobs: z.number().int(),
  failures: z.number().int(),
  p50Ms: z.number().int(),
  p99Ms: z.number().int(),
});

/** A branch's jobs over the last 24 hours, all operations together, and hour by hour. */
export const branchActivity = z.object({
  jobs: z.number().int(),
  failures: z.number().int().describe('jobs that did not end ok'),
  p50Ms: z.number().int().nullable().describe('null without jobs'),
  p99Ms: z.number().int().nullable().describe('null without jobs'),
  hourly: z.array(activityHour).describe('the hours that had jobs, oldest first'),
});

export const branchStatus = z.object({
  licenseKey: z.string(),
  name: z.string(),
  /** Connected now: it said hello and has been heard from within three heartbeats. */
  online: z.boolean(),
  workerId: z.string().nullable(),
  agentVersion: z.string().nullable(),
  nodeVersion: z.string().nullable(),
  os: z.string().nullable(),
  posVersion: z.string().nullable().describe('Soft Restaurant version (configuracion.versiondb)'),
  posDatabase: z.enum(['ok', 'unreachable']).nullable().describe("the POS database, as the agent's last heartbeat found it"),
  connectedSince: timestamp.nullable(),
  lastSeen: timestamp.nullable(),
  uptimeSec: z.number().int().nullable().describe('since the agent process started'),
  jobsRunning: z.number().int().nullable(),
  clockOffsetMs: z.number().int().nullable().describe("the branch server's clock minus the gateway's, within the link's one-way delay"),
  lastError: z.object({ message: z.string(), at: timestamp }).nullable(),
  last24h: branchActivity,
});

export const operationStats = z.object({
  op: z.string(),
  jobs: z.number().int(),
  failures: z.number().int(),
  p50Ms: z.number().int(),
  p99Ms: z.number().int(),
});

export const agentConnection = z.object({
  workerId: z.string(),
  connectedAt: timestamp,
  disconnectedAt: timestamp.nullable().describe('null while connected'),
});

export const branchDetail = branchStatus.extend({
  last24h: branchActivity.extend({
    disconnections: z.number().int(),
    operations: z.array(operationStats),
    connections: z.array(agentConnection).describe(`the latest ${MAX_LISTED_CONNECTIONS} connections of the last 24 hours, newest first`),
  }),
});

export const fleetPage = pageResult(branchStatus);

export type FleetListQuery = z.output<typeof fleetListQuery>;
export type BranchStatus = z.infer<typeof branchStatus>;
export type BranchDetail = z.infer<typeof branchDetail>;
export type OperationStats = z.infer<typeof operationStats>;
export type BranchActivity = z.infer<typeof branchActivity>;
export type AgentConnection = z.infer<typeof agentConnection>;
export type ActivityHour = z.infer<typeof activityHour>;
