/** What one poll of a change detector queues, as "type folio" (an account's folio, when it has one), taken out of the outbox. */
import type { ChangeDetector } from '../../src/pos/events/detector.js';
import { forgetEvents, pendingEvents } from '../../src/pos/events/outbox.js';
import type { PosDb } from '../../src/pos/schema.js';

export async function polledEvents(detector: ChangeDetector, db: PosDb): Promise<string[]> {
  await detector.poll();
  const events = await pendingEvents(db, 100);
  await forgetEvents(
    db,
    events.map((e) => e.id),
  );
  return events.map((e) => `${e.type} ${(e.data as { folio?: number } | null)?.folio ?? ''}`.trim());
}
