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
});

export const operationStats = z.object({
  op: z.string(),
  jobs: z.number().int(),
  failures: z.number().int(),
  p50Ms: z.number().int(),
  p99Ms: z.number().int(),
});

export const branchDetail = branchStatus.extend({
  last24h: z.object({
    disconnections: z.number().int(),
    operations: z.array(operationStats),
  }),
});

export const fleetPage = pageResult(branchStatus);

export type FleetListQuery = z.output<typeof fleetListQuery>;
export type BranchStatus = z.infer<typeof branchStatus>;
export type BranchDetail = z.infer<typeof branchDetail>;
export type OperationStats = z.infer<typeof operationStats>;
