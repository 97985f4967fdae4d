/**
 * Held commits: a keyed write reaches the agent while the gateway is still claiming its key, and
 * commits only on the gateway's verdict (src/agent/claim-verdicts.ts). What must hold: nothing a
 * held job wrote lasts unless the gateway won its key.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { type RawBuilder, sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/agent/runner.js';
import type { JobMessage } from '../../src/protocol/messages.js';
import { accountSuite, refresco, tacos } from '../support/accounts.js';
import { testRunner } from '../support/job-runner.js';
import { BRANCH } from '../support/stack.js';
import { until } from '../support/until.js';
import { DEMO_PRINTER_RULE } from '../../src/demo/printers.js';
import { startVirtualPrinter } from '../../src/printing/virtual-printer.js';
import { LOOPBACK } from '../support/printer-ports.js';

const { stack, db, write, openOrder, header, lines, counts } = accountSuite();
let runner: JobRunner;
beforeAll(() => {
  runner = testRunner(stack().agents.get(BRANCH)!.pos);
});

function heldJob(params: Record<string, unknown>, budgetMs = 30_000): JobMessage {
  return {
    type: 'job',
    jobId: randomUUID(),
    op: 'orders.addLines',
    params,
    budgetMs,
    idempotency: { scope: 'held', key: randomUUID(), fingerprint: 'f' },
    hold: true,
  };
}

/** Sessions on the branch database in the state `where` describes. */
async function sessions(where: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and ${where}`.execute(db());
  return Number(rows[0]!.n);
}

/**
 * Transactions left open between statements: a held job waiting for its verdict, or for a moment
 * the agent's change detection, which is why it is polled, not read once.
 */
const waitingTransactions = () => sessions(sql`state = 'idle in transaction'`);

/**
 * Transactions whose last statement recorded an idempotency key and that wait: a held job's. The
 * agent's change detection never writes a key, so it is not counted, as it is in waitingTransactions.
 */
const keyRecordsHeld = () => sessions(sql`state = 'idle in transaction' and query like '%ba_idempotency%'`);

/** Statements waiting on another transaction's lock on a key's record: a copy behind another copy. */
const blockedOnKeyRecord = () => sessions(sql`wait_event_type = 'Lock' and query like '%ba_idempotency%'`);

/** What the branch kept under a held key once its copies have finished: the winner's result alone. */
async function keptUnder(key: string): Promise<unknown[]> {
  const rows = await db().selectFrom('ba_idempotency').select('result').where('scope', '=', 'held').where('idem_key', '=', key).execute();
  return rows.map((r) => JSON.parse(r.result) as unknown);
}

const addRefresco = (folio: number) => ({ folio, productos: [{ ...refresco, movimiento: 1 }] });

describe('the agent holds a held job’s commit for the verdict', () => {
  it('written only once the claim is won, and not visible before', async () => {
    const folio = await openOrder([tacos]);
    const job = heldJob(addRefresco(folio));
    const running = runner.run(job);
    await until(async () => (await waitingTransactions()) > 0);
    expect((await lines(folio)).map((l) => l.idproducto)).toEqual(['3001']);
    runner.claimDecided(job.jobId, true);
    expect((await running).ok).toBe(true);
    expect((await lines(folio)).map((l) => l.idproducto)).toEqual(['3001', '1005']);
  });

  it('rolled back whole when the claim is lost, even when the verdict comes first', async () => {
    const folio = await openOrder([tacos]);
    const before = await counts();
    const job = heldJob(addRefresco(folio));
    const running = runner.run(job);
    runner.claimDecided(job.jobId, false);
    expect(await running).toMatchObject({ ok: false, error: { code: 'idempotency_in_progress' } });
    expect(await counts()).toEqual(before);
  });

  it('rolled back when the connection it came on closes before the verdict', async () => {
    const folio = await openOrder([tacos]);
    const before = await counts();
    const running = runner.run(heldJob(addRefresco(folio)));
    await until(async () => (await waitingTransactions()) > 0);
    runner.connectionLost();
    expect(await running).toMatchObject({ ok: false, error: { code: 'idempotency_in_progress' } });
    expect(await counts()).toEqual(before);
  });

  it('rolled back at the end of its budget when no verdict comes', async () => {
    const folio = await openOrder([tacos]);
    const before = await counts();
    expect(await runner.run(heldJob(addRefresco(folio), 400))).toMatchObject({ ok: false, error: { code: 'agent_timeout' } });
    expect(await counts()).toEqual(before);
    await until(async () => (await waitingTransactions()) === 0);
  });
});

describe('a held print, which no rollback undoes', () => {
  /** A test page's job for a virtual printer, held, under `key` (a new one unless given). */
  function heldPrint(port: number, key: string = randomUUID()): JobMessage {
    const target = {
      printerIp: LOOPBACK,
      printerPort: port,
      displayName: 'Cocina',
      kind: 'thermal',
      widthMm: 80,
      labelWidthMm: 50,
      labelHeightMm: 30,
      labelGapMm: 2,
      labelDpi: 203,
      labelDensity: 8,
      labelSpeed: 4,
    };
    const printerId = randomUUID();
    return {
      ...heldJob({ printerId, printers: { [printerId]: target } }),
      op: 'print.test',
      idempotency: { scope: 'held', key, fingerprint: 'f' },
    };
  }

  it('prints nothing when its claim is lost, and once when it is won', async () => {
    const printer = await startVirtualPrinter({ host: LOOPBACK });
    try {
      const printing = testRunner(stack().agents.get(BRANCH)!.pos, DEMO_PRINTER_RULE);
      const lost = heldPrint(printer.port);
      const losing = printing.run(lost);
      await until(async () => (await keyRecordsHeld()) > 0);
      expect(printer.jobs).toHaveLength(0);
      printing.claimDecided(lost.jobId, false);
      expect(await losing).toMatchObject({ ok: false, error: { code: 'idempotency_in_progress' } });
      expect(await keptUnder(lost.idempotency!.key)).toEqual([]);
      const won = heldPrint(printer.port);
      const winning = printing.run(won);
      printing.claimDecided(won.jobId, true);
      const answer = await winning;
      // What the printer said is recorded just after the answer.
      await printing.drained();
      expect(answer.ok).toBe(true);
      await printer.idle();
      expect(printer.jobs).toHaveLength(1);
      // What a retry of the key will be answered: the winner's own answer.
      expect(answer).toMatchObject({ ok: true, data: { results: [{ status: 'printed' }] } });
      expect(await keptUnder(won.idempotency!.key)).toEqual([answer.ok && answer.data]);
    } finally {
      await printer.close();
    }
  });

  it('records its key while the verdict travels; a copy that loses then leaves the key to the copy that won', async () => {
    const printer = await startVirtualPrinter({ host: LOOPBACK });
    try {
      const printing = testRunner(stack().agents.get(BRANCH)!.pos, DEMO_PRINTER_RULE);
      const key = randomUUID();
      const [lost, won] = [heldPrint(printer.port, key), heldPrint(printer.port, key)];
      const losing = printing.run(lost);
      // The losing copy holds the key's record, uncommitted, waiting for its verdict.
      await until(async () => (await keyRecordsHeld()) > 0);
      const winning = printing.run(won);
      printing.claimDecided(won.jobId, true);
      // Won, but waiting on the other copy's record of the key: nothing printed yet.
      await until(async () => (await blockedOnKeyRecord()) > 0);
      expect(printer.jobs).toHaveLength(0);
      printing.claimDecided(lost.jobId, false);
      expect(await losing).toMatchObject({ ok: false, error: { code: 'idempotency_in_progress' } });
      const answer = await winning;
      // What the printer said is recorded just after the answer.
      await printing.drained();
      expect(answer).toMatchObject({ ok: true, data: { results: [{ status: 'printed' }] } });
      await printer.idle();
      expect(printer.jobs).toHaveLength(1);
      expect(await keptUnder(key)).toEqual([answer.ok && answer.data]);
    } finally {
      await printer.close();
    }
  });
});

describe('through the API', () => {
  it('a retry answered from its record does not let its held copy commit, though the copy would now succeed', async () => {
    // The price of the tacos alone: enough once the drink is cancelled, short before.
    const amount = Number((await header(await openOrder([tacos]))).total);
    const folio = await openOrder([tacos, { ...refresco, movimiento: 2 }]);
    const key = randomUUID();
    const body = { pagos: [{ idFormaDePago: 'EFE', importe: amount }] };
    const short = await write(`/temp_ordenes/{lk}/${folio}/pagar`, body, { key });
    expect(short.status, JSON.stringify(short.body)).toBe(422);
    expect(short.body.code).toBe('payment_insufficient');
    const cancelled = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 2, idProducto: '1005' }] });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);

    // The retry's claim is held up in the gateway's store, so its job is seen waiting at the branch.
    const gatewayDb = new pg.Client({ connectionString: stack().gatewayDatabaseUrl });
    await gatewayDb.connect();
    try {
      await gatewayDb.query('begin');
      await gatewayDb.query('select 1 from gw_idempotency where idem_key = $1 for update', [key]);
      const retry = write(`/temp_ordenes/{lk}/${folio}/pagar`, body, { key });
      await until(async () => (await waitingTransactions()) > 0);
      await gatewayDb.query('commit');
      const replayed = await retry;
      expect(replayed.status).toBe(422);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body).toEqual(short.body);
    } finally {
      await gatewayDb.end();
    }
    await until(async () => (await waitingTransactions()) === 0);
    const h = await header(folio);
    expect([h.pagado, Number(h.efectivo)]).toEqual([false, 0]);
    expect(await db().selectFrom('tempchequespagos').select('folio').where('folio', '=', folio).execute()).toEqual([]);
  });
});
