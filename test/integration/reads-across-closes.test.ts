/**
 * readAcrossCloses on a real branch database: a read during which a shift close commits is run
 * again, and one that keeps meeting closes gives up with pos_busy rather than answer a mix. The
 * close is stood in for by what every close commits, a shift's `cierre`: the e2e race of the
 * day's orders against a real close is in test/e2e/settlement-close-races.test.ts.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PosContext } from '../../src/pos/context.js';
import { readAcrossCloses } from '../../src/pos/reads-across-closes.js';
import { openPos, type PosRuntime } from '../../src/pos/runtime.js';
import { PosFixtures } from '../support/fixtures.js';
import { newPosDatabase } from '../support/databases.js';

let pos: PosRuntime;
let ctx: PosContext;
let fixtures: PosFixtures;
let nextShift = 9000;

beforeAll(async () => {
  pos = await openPos(await newPosDatabase(), pino({ level: 'silent' }));
  ctx = { db: pos.db, dialect: pos.dialect, schema: pos.schema, log: pino({ level: 'silent' }), now: new Date() };
  fixtures = await PosFixtures.for(pos.db);
});
afterAll(async () => {
  await pos?.close();
});

const closeAShift = () => fixtures.shift({ idturno: nextShift++, apertura: new Date(2026, 0, 1, 8), cierre: new Date(2026, 0, 1, 16) });

it('runs a read once when no shift closes meanwhile', async () => {
  let runs = 0;
  expect(await readAcrossCloses(ctx, async () => ++runs)).toBe(1);
  expect(runs).toBe(1);
});

it('runs a read again when a shift closed while it ran, and answers the second run', async () => {
  let runs = 0;
  const answer = await readAcrossCloses(ctx, async () => {
    runs++;
    if (runs === 1) await closeAShift();
    return runs;
  });
  expect(answer).toBe(2);
  expect(runs).toBe(2);
});

it('answers pos_busy after three runs that each met a close', async () => {
  let runs = 0;
  const read = readAcrossCloses(ctx, async () => {
    runs++;
    await closeAShift();
  });
  await expect(read).rejects.toMatchObject({ code: 'pos_busy' });
  expect(runs).toBe(3);
});
