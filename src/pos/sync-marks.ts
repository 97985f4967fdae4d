/**
 * National Soft's cloud sync queue (`nsplatformcontrol`), written the way Soft Restaurant writes
 * it (order-lifecycle rows 35-37, shift-close rows 245-247): one row per entity, keyed by the
 * entity row's own `WorkspaceId` and an entity type. A new entity is queued as a creation (1);
 * one already queued and synced is queued again with the operation, unless a deletion (3) is
 * pending. A row still waiting to sync is left as it is: it will carry the latest state anyway.
 */
import type { PosContext } from './context.js';

/** `EntityType` of a shift (turnos), as SR writes it (order-lifecycle row 37). */
export const SYNC_ENTITY_SHIFT = 16;
/**
 * `EntityType` of a product. No public material gives SR's code for products (1 is taxes, 16
 * shifts); this is an assumption, documented in docs/SR-FIDELITY.md.
 */
export const SYNC_ENTITY_PRODUCT = 2;

export const SYNC_CREATE = 1;
export const SYNC_UPDATE = 2;
const SYNC_DELETE = 3;

const SYNC_COLUMNS = ['WorkspaceId', 'EntityType', 'OperationType', 'IsSync', 'Attempts', 'CreateDate'] as const;

/**
 * SR stamps the queue with GETUTCDATE(); our datetime parameters carry branch wall-clock time, so
 * this is the local Date whose fields are the UTC time. Made from the fields: shifting the instant
 * by the offset of now lands an hour off in the hours before a change of clocks: at 19:00 on
 * 7 March in Tijuana (03:00 UTC) the shifted instant is past the change, and 04:00 was sent.
 */
export function utcWallClock(now: Date): Date {
  return new Date(
    now.getUTCFullYear(),
    now.getUTCMonth(),
    now.getUTCDate(),
    now.getUTCHours(),
    now.getUTCMinutes(),
    now.getUTCSeconds(),
    now.getUTCMilliseconds(),
  );
}

/** Queues the entity for National Soft's sync; nothing on installations without the queue's columns (SR 10). */
export async function markForSync(ctx: PosContext, entityType: number, workspaceId: string, operation: typeof SYNC_CREATE | typeof SYNC_UPDATE): Promise<void> {
  if (ctx.schema.missingColumns('nsplatformcontrol', SYNC_COLUMNS).length > 0) return;
  const createDate = utcWallClock(ctx.now);
  const queued = await ctx.db
    .selectFrom('nsplatformcontrol')
    .select('Id')
    .where('WorkspaceId', '=', workspaceId)
    .where('EntityType', '=', entityType)
    .executeTakeFirst();
  if (!queued) {
    await ctx.db
      .insertInto('nsplatformcontrol')
      .values(
        ctx.schema.completeRow('nsplatformcontrol', {
          WorkspaceId: workspaceId,
          EntityType: entityType,
          OperationType: SYNC_CREATE,
          IsSync: false,
          Attempts: 0,
          CreateDate: createDate,
        }),
      )
      .execute();
    return;
  }
  await ctx.db
    .updateTable('nsplatformcontrol')
    .set({ OperationType: operation, IsSync: false, Attempts: 0, CreateDate: createDate })
    .where('WorkspaceId', '=', workspaceId)
    .where('EntityType', '=', entityType)
    .where('IsSync', '=', true)
    .where('OperationType', '!=', SYNC_DELETE)
    .execute();
}
