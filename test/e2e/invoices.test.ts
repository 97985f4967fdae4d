/**
 * GET /facturas/{licenseKey}/{numCheque}/xml through the whole path: the CFDI XML of the
 * invoice of a closed (history) or still temporary account, sent as application/xml; which
 * invoice wins when there are several; and the problems when there is none.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstalledSchema } from '../../src/pos/columns.js';
import type { PosDb } from '../../src/pos/schema.js';
import { BRANCH, OTHER_USERS_BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let db: PosDb;
let schema: InstalledSchema;

const COMPANY = '0000000001';
const OTHER_COMPANY = '0000000002';

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  schema = stack.agents.get(BRANCH)!.pos.schema;
});
afterAll(async () => {
  await stack?.stop();
});

/** A CFDI 4.0 skeleton with non-ASCII text, as SR stores it after stamping. */
const cfdi = (folio: number, name = 'Juan Pérez Ñúñez') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0" Serie="F" Folio="${folio}" Total="116.00">` +
  `<cfdi:Receptor Nombre="${name}" Rfc="XAXX010101000"/></cfdi:Comprobante>`;

let nextInvoice = 90_001;

async function invoice(opts: { idempresa?: string; fecha?: Date; cancelada?: boolean; xml?: string | null } = {}): Promise<number> {
  const idfactura = nextInvoice++;
  const xml = opts.xml === undefined ? cfdi(idfactura) : opts.xml;
  await db
    .insertInto('facturas')
    .values(
      schema.completeRow('facturas', {
        idfactura,
        serie: 'F',
        folio: idfactura,
        fecha: opts.fecha ?? new Date(),
        idempresa: opts.idempresa ?? COMPANY,
        cancelada: opts.cancelada ?? false,
        femexxmlvalido: xml,
      }),
    )
    .execute();
  return idfactura;
}

/** An account already moved to the history tables by a shift close. */
async function closedAccount(numcheque: number, opts: { seriefolio?: string; idempresa?: string } = {}): Promise<number> {
  const row = await db
    .insertInto('cheques')
    .values(
      schema.completeRow('cheques', {
        numcheque,
        seriefolio: opts.seriefolio ?? 'A',
        idempresa: opts.idempresa ?? COMPANY,
        fecha: new Date(),
        cierre: new Date(),
        pagado: true,
        cancelado: false,
        impreso: true,
        facturado: true,
      }),
    )
    .returning('folio')
    .executeTakeFirstOrThrow();
  return Number(row.folio);
}

/** A printed account still in the temporary tables (its shift not closed yet). */
async function tempAccount(numcheque: number): Promise<number> {
  const row = await db
    .insertInto('tempcheques')
    .values(
      schema.completeRow('tempcheques', {
        numcheque,
        seriefolio: 'A',
        idempresa: COMPANY,
        fecha: new Date(),
        cierre: new Date(),
        pagado: true,
        cancelado: false,
        impreso: true,
        facturado: true,
      }),
    )
    .returning('folio')
    .executeTakeFirstOrThrow();
  return Number(row.folio);
}

const linkClosed = (folio: number, idfactura: number) => db.insertInto('foliosfacturados').values({ idfactura, folio, porcentajefac: 100 }).execute();
const linkTemp = (folio: number, idfactura: number) => db.insertInto('tempfoliosfacturados').values({ idfactura, folio, porcentajefac: 100 }).execute();

const xmlOf = (numCheque: number | string, query = `idEmpresa=${COMPANY}`, branch = BRANCH) =>
  stack.api('GET', `/facturas/${branch}/${numCheque}/xml?${query}`);

describe('GET /facturas/{numCheque}/xml', () => {
  it('sends the XML of the invoice of a closed account as application/xml', async () => {
    const idfactura = await invoice();
    await linkClosed(await closedAccount(88_000_001), idfactura);
    const res = await xmlOf(88_000_001);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.text).toBe(cfdi(idfactura));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="factura-${idfactura}.xml"`);
    const jobId = res.headers.get('x-job-id');
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    // Dispatched like every other route: the gateway's job log has it.
    let logged;
    for (let i = 0; i < 50 && !logged; i++) {
      logged = await stack.store.db.selectFrom('gw_job_log').selectAll().where('job_id', '=', jobId!).executeTakeFirst();
      if (!logged) await sleep(20);
    }
    expect(logged).toMatchObject({ op: 'invoices.xml', license_key: BRANCH, outcome: 'ok', worker_id: `agent-${BRANCH}` });
  });

  it('finds the invoice of an account still in the temporary tables', async () => {
    const idfactura = await invoice();
    await linkTemp(await tempAccount(88_000_002), idfactura);
    const res = await xmlOf(88_000_002);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(cfdi(idfactura));
  });

  it('prefers the invoice in force over a newer cancelled one, then the most recent', async () => {
    const folio = await closedAccount(88_000_003);
    const older = await invoice({ fecha: new Date(2024, 0, 1) });
    const inForce = await invoice({ fecha: new Date(2024, 0, 2) });
    const cancelled = await invoice({ fecha: new Date(2024, 0, 3), cancelada: true });
    for (const id of [older, inForce, cancelled]) await linkClosed(folio, id);
    const res = await xmlOf(88_000_003);
    expect(res.text).toBe(cfdi(inForce));
  });

  it('still sends a cancelled invoice when it is the only one', async () => {
    const cancelled = await invoice({ cancelada: true });
    await linkClosed(await closedAccount(88_000_004), cancelled);
    const res = await xmlOf(88_000_004);
    expect(res.status).toBe(200);
    expect(res.text).toBe(cfdi(cancelled));
  });

  it('serie tells apart accounts with the same ticket number in different series', async () => {
    const inA = await invoice({ fecha: new Date(2024, 0, 2) });
    const inB = await invoice({ fecha: new Date(2024, 0, 1) });
    await linkClosed(await closedAccount(88_000_005, { seriefolio: 'A' }), inA);
    await linkClosed(await closedAccount(88_000_005, { seriefolio: 'B' }), inB);
    expect((await xmlOf(88_000_005, `idEmpresa=${COMPANY}&serie=B`)).text).toBe(cfdi(inB));
    expect((await xmlOf(88_000_005, `idEmpresa=${COMPANY}&serie=A`)).text).toBe(cfdi(inA));
  });
});

describe('GET /facturas/{numCheque}/xml: no invoice', () => {
  it('404 invoice_not_found as problem+json for a ticket number without an account', async () => {
    const res = await xmlOf(88_999_999);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'invoice_not_found', status: 404, instance: `/facturas/${BRANCH}/88999999/xml` });
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('404 for an account that was never invoiced', async () => {
    await closedAccount(88_000_010);
    expect((await xmlOf(88_000_010)).body.code).toBe('invoice_not_found');
  });

  it('404 when the account or the invoice belongs to another company', async () => {
    const foreignInvoice = await invoice({ idempresa: OTHER_COMPANY });
    await linkClosed(await closedAccount(88_000_011), foreignInvoice);
    expect((await xmlOf(88_000_011)).body.code).toBe('invoice_not_found');
    expect((await xmlOf(88_000_011, `idEmpresa=${OTHER_COMPANY}`)).body.code).toBe('invoice_not_found');

    const ours = await invoice();
    await linkClosed(await closedAccount(88_000_012), ours);
    expect((await xmlOf(88_000_012, `idEmpresa=${OTHER_COMPANY}`)).status).toBe(404);
  });

  it.each([
    ['no XML', null],
    ['an empty XML', '  '],
  ])('404 for an invoice with %s', async (_name, xml) => {
    const numCheque = 88_000_020 + (xml === null ? 0 : 1);
    await linkClosed(await closedAccount(numCheque), await invoice({ xml }));
    const res = await xmlOf(numCheque);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('invoice_not_found');
    expect(res.body.detail).toMatch(/has no CFDI XML/);
  });
});

describe('GET /facturas/{numCheque}/xml: requests refused', () => {
  it.each([
    ['a numCheque that is not a number', 'abc', `idEmpresa=${COMPANY}`, 'params.numCheque'],
    ['numCheque 0', '0', `idEmpresa=${COMPANY}`, 'params.numCheque'],
    ['no idEmpresa', '1', '', 'querystring.idEmpresa'],
    ['an idEmpresa longer than 15', '1', `idEmpresa=${'9'.repeat(16)}`, 'querystring.idEmpresa'],
  ])('400 validation_failed for %s', async (_name, numCheque, query, path) => {
    const res = await xmlOf(numCheque, query);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('401 without a key, 403 on a branch of another user, 400 on a malformed licenseKey', async () => {
    const anonymous = await stack.api('GET', `/facturas/${BRANCH}/1/xml?idEmpresa=${COMPANY}`, { key: null });
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'unauthorized']);
    const forbidden = await xmlOf(1, `idEmpresa=${COMPANY}`, OTHER_USERS_BRANCH);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'branch_forbidden']);
    expect((await xmlOf(1, `idEmpresa=${COMPANY}`, 'NOT-A-LICENSE')).status).toBe(400);
  });

  it('503 agent_offline when the branch agent is not connected', async () => {
    await stack.agents.get(BRANCH)!.stop(2000);
    try {
      for (let i = 0; i < 100 && stack.gateway.hub.agentFor(BRANCH); i++) await sleep(20);
      const res = await xmlOf(88_000_001);
      expect([res.status, res.body.code]).toEqual([503, 'agent_offline']);
    } finally {
      await stack.startAgent(BRANCH);
      for (let i = 0; i < 200 && !stack.gateway.hub.agentFor(BRANCH); i++) await sleep(20);
    }
  });
});
