/**
 * Rollouts and their branches' progress (gw_rollouts, gw_rollout_targets). A branch is in at
 * most one unfinished rollout (a partial unique index says so); a target only moves forward,
 * and a final state is never left, so a late or repeated report changes nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { isUniqueViolation } from '../../database-errors.js';
import { toPage, type Page } from '../../protocol/common.js';
import {
  FINAL_TARGET_STATES,
  TARGET_STATES,
  type RolloutCreate,
  type RolloutListQuery,
  type RolloutRecord,
  type RolloutSummary,
  type TargetState,
} from '../../protocol/rollouts.js';
import type { GatewayDatabase } from '../store-schema.js';
import { toStorableText } from '../unstorable-text.js';

export class RolloutConflictError extends Error {}

/** A branch's unfinished part of a running rollout: what the driver offers its agent. */
export interface ActiveTarget {
  rolloutId: string;
  version: string;
  state: TargetState;
  window: { desde: string; hasta: string } | null;
}

const ACTIVE: TargetState[] = ['pending', 'downloading', 'installing'];

/** The same `porcentaje` of the same branches picks the same ones for one rollout, spread evenly otherwise. */
function pickShare(rolloutId: string, licenseKeys: string[], percent: number): string[] {
  const rank = (k: string) => createHash('sha256').update(`${rolloutId}:${k}`).digest('hex');
  return [...licenseKeys].sort((a, b) => (rank(a) < rank(b) ? -1 : 1)).slice(0, Math.ceil((licenseKeys.length * percent) / 100));
}

type RolloutRow = Selectable<GatewayDatabase['gw_rollouts']>;

function countStates(tally: Array<{ state: TargetState; n: number }>): RolloutSummary['counts'] {
  const counts = Object.fromEntries(TARGET_STATES.map((s) => [s, 0])) as RolloutSummary['counts'];
  for (const { state, n } of tally) counts[state] += n;
  return counts;
}

function toSummary(rollout: RolloutRow, counts: RolloutSummary['counts']): RolloutSummary {
  return {
    id: rollout.id,
    version: rollout.version,
    state: rollout.state,
    ventana: rollout.window_from && rollout.window_to ? { desde: rollout.window_from, hasta: rollout.window_to } : null,
    maxFallasPorcentaje: rollout.max_failure_pct,
    createdAt: new Date(rollout.created_at).toISOString(),
    counts,
  };
}

export class RolloutStore {
  constructor(private readonly db: Kysely<GatewayDatabase>) {}

  /** Starts a rollout to `licenseKeys` (the user's, checked by the caller) or a share of them. */
  async create(userId: number, input: RolloutCreate, licenseKeys: string[]): Promise<RolloutRecord> {
    const id = randomUUID();
    const targets = input.porcentaje === undefined ? licenseKeys : pickShare(id, licenseKeys, input.porcentaje);
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('gw_rollouts')
          .values({
            id,
            user_id: userId,
            version: input.version,
            state: targets.length === 0 ? 'done' : 'running',
            window_from: input.ventana?.desde ?? null,
            window_to: input.ventana?.hasta ?? null,
            max_failure_pct: input.maxFallasPorcentaje,
          })
          .execute();
        if (targets.length === 0) return;
        await this.#takeOver(trx, targets);
        const versions = await trx.selectFrom('gw_agent_status').select(['license_key', 'agent_version']).where('license_key', 'in', targets).execute();
        const from = new Map(versions.map((v) => [v.license_key, v.agent_version]));
        await trx
          .insertInto('gw_rollout_targets')
          .values(targets.map((k) => ({ rollout_id: id, license_key: k, state: 'pending' as const, reason: null, from_version: from.get(k) ?? null })))
          .execute();
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new RolloutConflictError('A branch of this rollout is in an unfinished one.');
      throw error;
    }
    return (await this.get(userId, id))!;
  }

  /**
   * Branches a paused rollout had not started on move to the new one; a branch still being sent
   * a running rollout, or downloading or installing one, is a conflict. The branches' rows are
   * locked first, so two rollouts created at once cannot both take a branch.
   */
  async #takeOver(trx: Kysely<GatewayDatabase>, licenseKeys: string[]): Promise<void> {
    await trx.selectFrom('gw_branches').select('license_key').where('license_key', 'in', licenseKeys).orderBy('license_key').forUpdate().execute();
    const held = await trx
      .selectFrom('gw_rollout_targets as t')
      .innerJoin('gw_rollouts as r', 'r.id', 't.rollout_id')
      .select(['t.rollout_id', 't.license_key', 't.state', 'r.state as rolloutState'])
      .where('t.license_key', 'in', licenseKeys)
      .where('t.state', 'in', ACTIVE)
      .execute();
    const busy = held.filter((h) => h.rolloutState === 'running' || h.state !== 'pending');
    if (busy.length > 0) {
      throw new RolloutConflictError(
        `Branches in an unfinished rollout: ${busy.map((b) => `${b.license_key} (rollout ${b.rollout_id}, ${b.state})`).join(', ')}.`,
      );
    }
    for (const h of held) await trx.deleteFrom('gw_rollout_targets').where('rollout_id', '=', h.rollout_id).where('license_key', '=', h.license_key).execute();
  }

  async get(userId: number, id: string): Promise<RolloutRecord | undefined> {
    const rollout = await this.db.selectFrom('gw_rollouts').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    if (!rollout) return undefined;
    const targets = await this.db.selectFrom('gw_rollout_targets').selectAll().where('rollout_id', '=', id).orderBy('license_key').execute();
    const counts = countStates(targets.map((t) => ({ state: t.state, n: 1 })));
    return {
      ...toSummary(rollout, counts),
      branches: targets.map((t) => ({
        licenseKey: t.license_key,
        state: t.state,
        reason: t.reason,
        fromVersion: t.from_version,
        updatedAt: new Date(t.updated_at).toISOString(),
      })),
    };
  }

  /** The user's rollouts, newest first, with their counts by state. */
  async list(userId: number, query: RolloutListQuery): Promise<Page<RolloutSummary>> {
    const mine = this.db.selectFrom('gw_rollouts').where('user_id', '=', userId);
    const { n } = await mine.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const rollouts = await mine
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute();
    const tally =
      rollouts.length === 0
        ? []
        : await this.db
            .selectFrom('gw_rollout_targets')
            .select((eb) => ['rollout_id', 'state', eb.fn.countAll<string>().as('n')])
            .where(
              'rollout_id',
              'in',
              rollouts.map((r) => r.id),
            )
            .groupBy(['rollout_id', 'state'])
            .execute();
    const counts = (id: string) => countStates(tally.filter((t) => t.rollout_id === id).map((t) => ({ state: t.state, n: Number(t.n) })));
    return toPage(
      rollouts.map((r) => toSummary(r, counts(r.id))),
      Number(n),
      query.page,
      query.pageSize,
    );
  }

  /**
   * Pauses a running rollout as its failures would: no branch is told of it any more, while those
   * already told carry on (an agent's upgrade cannot be called back). Undefined when the rollout is
   * not the user's; a paused one stays paused; one that ended is a conflict.
   */
  async pause(userId: number, id: string): Promise<RolloutRecord | undefined> {
    const found = await this.db.transaction().execute(async (trx) => {
      const rollout = await trx.selectFrom('gw_rollouts').select('state').where('id', '=', id).where('user_id', '=', userId).forUpdate().executeTakeFirst();
      if (rollout?.state === 'done') throw new RolloutConflictError('The rollout has ended: every branch of it is done, failed or rolled back.');
      if (rollout?.state === 'running') await trx.updateTable('gw_rollouts').set({ state: 'paused' }).where('id', '=', id).execute();
      return rollout !== undefined;
    });
    return found ? this.get(userId, id) : undefined;
  }

  /** Each branch's unfinished target in a running rollout, for those that have one: one read for them all. */
  async activeFor(licenseKeys: readonly string[]): Promise<Map<string, ActiveTarget>> {
    if (licenseKeys.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('gw_rollout_targets as t')
      .innerJoin('gw_rollouts as r', 'r.id', 't.rollout_id')
      .select(['t.license_key', 't.rollout_id', 'r.version', 't.state', 'r.window_from', 'r.window_to'])
      .where(sql<boolean>`t.license_key = any(${licenseKeys}::text[])`)
      .where('t.state', 'in', ACTIVE)
      .where('r.state', '=', 'running')
      .execute();
    return new Map(
      rows.map((row) => [
        row.license_key,
        {
          rolloutId: row.rollout_id,
          version: row.version,
          state: row.state,
          window: row.window_from && row.window_to ? { desde: row.window_from, hasta: row.window_to } : null,
        },
      ]),
    );
  }

  /**
   * Records the branches' progress (one branch's report, or every branch a new rollout cannot
   * reach), then ends the rollout when every branch has ended, or pauses it when more than its
   * share of failures is reached. The rollout row is locked for the count, so two reports at once
   * cannot both miss the threshold. The reason is an agent's text (or names its reported
   * platform): NUL or a lone surrogate, which PostgreSQL refuses, is kept as U+FFFD, or the
   * failure went unrecorded and uncounted, and the rollout never paused nor ended.
   */
  async progress(rolloutId: string, licenseKeys: readonly string[], state: TargetState, reported: string | null): Promise<void> {
    const reason = reported === null ? null : toStorableText(reported);
    await this.db.transaction().execute(async (trx) => {
      const rollout = await trx.selectFrom('gw_rollouts').select(['state', 'max_failure_pct']).where('id', '=', rolloutId).forUpdate().executeTakeFirst();
      if (!rollout) return;
      const updated = await trx
        .updateTable('gw_rollout_targets')
        // The store's clock: a branch's steps are recorded by whichever instance holds its agent.
        .set({ state, reason, updated_at: sql<Date>`now()` })
        .where('rollout_id', '=', rolloutId)
        .where(sql<boolean>`license_key = any(${licenseKeys}::text[])`)
        .where('state', 'not in', FINAL_TARGET_STATES)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0 || rollout.state === 'done') return;
      const tally = await trx
        .selectFrom('gw_rollout_targets')
        .select((eb) => [
          eb.fn.countAll<string>().as('total'),
          sql<string>`count(*) filter (where state in ('failed', 'rolled_back'))`.as('failed'),
          sql<string>`count(*) filter (where state in ('pending', 'downloading', 'installing'))`.as('open'),
        ])
        .where('rollout_id', '=', rolloutId)
        .executeTakeFirstOrThrow();
      const next = Number(tally.open) === 0 ? 'done' : Number(tally.failed) * 100 > rollout.max_failure_pct * Number(tally.total) ? 'paused' : rollout.state;
      if (next !== rollout.state) await trx.updateTable('gw_rollouts').set({ state: next }).where('id', '=', rolloutId).execute();
    });
  }
}
