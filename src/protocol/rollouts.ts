/**
 * Rollouts (issue 16): a release sent to some or all of the user's branches, each branch's
 * agent upgrading itself through the installer when it is idle and inside the maintenance
 * window, and the rollout pausing itself when too many of them fail.
 */
import { z } from 'zod';
import { integer, licenseKey, pageResult, paging } from './common.js';
import { releaseVersion } from './releases.js';

const clockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day, HH:MM');

/**
 * In the branch's own time, as its server's clock says. `hasta` before `desde` spans midnight
 * (22:00 to 05:00); `desde` equal to `hasta` is refused, as it says nothing.
 */
export const maintenanceWindow = z
  .object({ desde: clockTime, hasta: clockTime })
  .refine((w) => w.desde !== w.hasta, { message: 'desde and hasta must differ', path: ['hasta'] });

export const rolloutCreate = z
  .object({
    version: releaseVersion,
    licenseKeys: z
      .array(licenseKey)
      .min(1)
      .max(1000)
      .refine((keys) => new Set(keys).size === keys.length, 'must not repeat a branch')
      .optional()
      .describe('these branches; without it and without porcentaje, all of the key’s branches'),
    porcentaje: integer((n) => n.min(1).max(100))
      .optional()
      .describe("this share of the key's branches, rounded up, chosen the same way for the same rollout"),
    ventana: maintenanceWindow.optional().describe('upgrade only inside this daily window, in branch time'),
    maxFallasPorcentaje: integer((n) => n.min(0).max(100))
      .default(20)
      .describe('the rollout pauses once more than this share of its branches failed or rolled back'),
  })
  .strict()
  .refine((r) => r.licenseKeys === undefined || r.porcentaje === undefined, { message: 'send licenseKeys or porcentaje, not both', path: ['porcentaje'] });

export const rolloutParams = z.object({ id: z.uuid() });

export const TARGET_STATES = ['pending', 'downloading', 'installing', 'done', 'rolled_back', 'failed'] as const;
export type TargetState = (typeof TARGET_STATES)[number];
export const FINAL_TARGET_STATES: readonly TargetState[] = ['done', 'rolled_back', 'failed'];

export const rolloutTarget = z.object({
  licenseKey: z.string(),
  state: z.enum(TARGET_STATES),
  /** Why it failed or was rolled back; null otherwise. */
  reason: z.string().nullable(),
  /** The version the branch ran when the rollout reached it. */
  fromVersion: z.string().nullable(),
  updatedAt: z.string(),
});

export const rolloutSummary = z.object({
  id: z.uuid(),
  version: z.string(),
  /** running: being sent; paused (past its failures, or by hand): sent to no more branches; done: every branch ended. */
  state: z.enum(['running', 'paused', 'done']),
  ventana: z.object({ desde: z.string(), hasta: z.string() }).nullable(),
  maxFallasPorcentaje: z.number().int(),
  createdAt: z.string(),
  counts: z.record(z.enum(TARGET_STATES), z.number().int()),
});

export const rolloutRecord = rolloutSummary.extend({ branches: z.array(rolloutTarget) });

export const rolloutListQuery = z.object(paging());

/** Newest first; each with its counts by state, without its branches. */
export const rolloutPage = pageResult(rolloutSummary);

export type RolloutCreate = z.output<typeof rolloutCreate>;
export type RolloutRecord = z.infer<typeof rolloutRecord>;
export type RolloutSummary = z.infer<typeof rolloutSummary>;
export type RolloutListQuery = z.output<typeof rolloutListQuery>;
export type MaintenanceWindow = z.infer<typeof maintenanceWindow>;
