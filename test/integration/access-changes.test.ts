/**
 * The listener that keeps a gateway's cached key, branch and printer lookups true to the store, with two real
 * connections to one store: one plays the running gateway, the other `branch-agent keys`.
 */
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME, watchAccessChanges, type AccessWatch } from '../../src/gateway/access-changes.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { printerCreate } from '../../src/protocol/printers.js';
import { newGatewayDatabase } from '../support/databases.js';
import { until } from '../support/until.js';

let gateway: GatewayStore;
let operator: GatewayStore;
let watch: AccessWatch;
const changedBranches: Array<string | undefined> = [];

beforeAll(async () => {
  const url = await newGatewayDatabase();
  gateway = new GatewayStore(url);
  operator = new GatewayStore(url);
  watch = await watchAccessChanges(gateway, (licenseKey) => changedBranches.push(licenseKey), pino({ level: 'silent' }), { reconnectMs: 50, heartbeatMs: 200 });
});
afterAll(async () => {
  await watch?.stop();
  await Promise.all([gateway?.close(), operator?.close()]);
});

describe('watching key and branch changes', () => {
  it('forgets a cached refusal when another process adds that key, and a cached acceptance when it revokes it', async () => {
    const user = await operator.ensureUser('acme');
    expect(await gateway.userForApiKey('key_chosen-before-it-existed')).toBeNull();
    const id = await operator.addApiKey(user, 'key_chosen-before-it-existed');
    await until(async () => (await gateway.userForApiKey('key_chosen-before-it-existed')) === user, 2_000);
    await operator.revokeApiKey(id);
    await until(async () => (await gateway.userForApiKey('key_chosen-before-it-existed')) === null, 2_000);
  });

  it('reports the branch whose token changed', async () => {
    const user = await operator.ensureUser('acme');
    expect(await gateway.branchOwner('ACME000000000001')).toBeNull();
    await operator.upsertBranch(user, 'ACME000000000001', 'agt_first');
    await until(() => changedBranches.includes('ACME000000000001'), 2_000);
    expect(await gateway.branchOwner('ACME000000000001')).toBe(user);
  });

  it('listens again after losing its connection, and then checks every branch', async () => {
    const admin = new pg.Client({ connectionString: gateway.url });
    await admin.connect();
    try {
      // By name, not by its last statement: the heartbeat's `select 1` replaces `listen ...` there.
      const killed = await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1`, [
        LISTENER_APPLICATION_NAME,
      ]);
      expect(killed.rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    // Once listening again it cannot know what it missed: every branch is to be checked.
    await until(() => changedBranches.includes(undefined), 2_000);

    const user = await operator.ensureUser('acme');
    expect(await gateway.userForApiKey('key_after-the-reconnect')).toBeNull();
    await operator.addApiKey(user, 'key_after-the-reconnect');
    await until(async () => (await gateway.userForApiKey('key_after-the-reconnect')) === user, 2_000);
  });
});

describe('cached printers', () => {
  it('are forgotten when another gateway changes them, and at once by the gateway that changed them', async () => {
    const user = await operator.ensureUser('printing');
    await operator.upsertBranch(user, 'PRNT000000000001', 'agt_printing');
    const created = await operator.printers.create(
      user,
      printerCreate.parse({ licenseKey: 'PRNT000000000001', printerIp: '10.0.0.5', displayName: 'Kitchen', kind: 'thermal', widthMm: 80 }),
    );
    const addressIn = async (store: GatewayStore) => (await store.printers.find(user, [created.id]))[0]?.printerIp;
    expect(await addressIn(gateway)).toBe('10.0.0.5');
    expect(await addressIn(operator)).toBe('10.0.0.5');
    // Changed behind the cache's back: a cached printer is answered without a query.
    await operator.db.updateTable('gw_printers').set({ printer_ip: '10.0.0.6' }).where('id', '=', created.id).execute();
    expect(await addressIn(gateway)).toBe('10.0.0.5');

    await operator.printers.update(user, created.id, () => ({ printerIp: '10.0.0.7' }));
    // The operator store does not listen: it forgot on its own.
    expect(await addressIn(operator)).toBe('10.0.0.7');
    await until(async () => (await addressIn(gateway)) === '10.0.0.7', 2_000);
  });

  it('are not found by another user, cached or not', async () => {
    const [owner, other] = [await operator.ensureUser('printer owner'), await operator.ensureUser('someone else')];
    await operator.upsertBranch(owner, 'PRNT000000000002', 'agt_printing_two');
    const created = await operator.printers.create(
      owner,
      printerCreate.parse({ licenseKey: 'PRNT000000000002', printerIp: '10.0.0.8', displayName: 'Bar', kind: 'thermal', widthMm: 58 }),
    );
    expect(await gateway.printers.find(other, [created.id])).toEqual([]);
    expect((await gateway.printers.find(owner, [created.id])).map((p) => p.id)).toEqual([created.id]);
    expect(await gateway.printers.find(other, [created.id])).toEqual([]);
  });
});

describe('how long cached lookups last', () => {
  it('keeps an owner past 30 s while every change is heard, and reads one older than 30 s again once changes are not', async () => {
    let clock = 1_000_000;
    const aging = new GatewayStore(gateway.url, { now: () => clock });
    const heard: Array<string | undefined> = [];
    const agingWatch = await watchAccessChanges(aging, (licenseKey) => heard.push(licenseKey), pino({ level: 'silent' }), {
      reconnectMs: 50,
      heartbeatMs: 200,
    });
    try {
      const [first, second] = [await operator.ensureUser('first owner'), await operator.ensureUser('second owner')];
      await operator.upsertBranch(first, 'AGED000000000001', 'agt_aged');
      await until(() => heard.includes('AGED000000000001'), 2_000);
      expect(await aging.branchOwner('AGED000000000001')).toBe(first);
      // Changed behind the listener's back: nothing announces it, so only a new read would see it.
      const silently = (user: number) => operator.db.updateTable('gw_branches').set({ user_id: user }).where('license_key', '=', 'AGED000000000001').execute();
      await silently(second);
      clock += 60_000;
      expect(await aging.branchOwner('AGED000000000001')).toBe(first);

      await agingWatch.stop();
      expect(await aging.branchOwner('AGED000000000001')).toBe(second);
      await silently(first);
      clock += 29_000;
      expect(await aging.branchOwner('AGED000000000001')).toBe(second);
      clock += 1_000;
      expect(await aging.branchOwner('AGED000000000001')).toBe(first);
    } finally {
      await agingWatch.stop();
      await aging.close();
    }
  });

  it('reads an owner older than 30 s again from the moment its listener loses its connection, before it listens again', async () => {
    let clock = 1_000_000;
    const aging = new GatewayStore(gateway.url, { now: () => clock });
    const admin = new pg.Client({ connectionString: gateway.url });
    await admin.connect();
    const listeners = async () =>
      (
        await admin.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and application_name = $1`, [
          LISTENER_APPLICATION_NAME,
        ])
      ).rows.map((r) => r.pid);
    const others = await listeners();
    // No reconnect within the test: what follows all happens while the listener is lost.
    const heard: Array<string | undefined> = [];
    const agingWatch = await watchAccessChanges(aging, (licenseKey) => heard.push(licenseKey), pino({ level: 'silent' }), {
      reconnectMs: 600_000,
      heartbeatMs: 200,
    });
    try {
      const [first, second] = [await operator.ensureUser('first owner'), await operator.ensureUser('second owner')];
      await operator.upsertBranch(first, 'LOST000000000001', 'agt_lost_one');
      await operator.upsertBranch(first, 'LOST000000000002', 'agt_lost_two');
      // Heard before they are cached: a late announcement would forget them on its own.
      await until(() => heard.includes('LOST000000000001') && heard.includes('LOST000000000002'), 2_000);
      expect(await aging.branchOwner('LOST000000000001')).toBe(first);
      clock += 1_000;
      expect(await aging.branchOwner('LOST000000000002')).toBe(first);

      // Only this store's listener: the file's gateway listens on another connection of the same name.
      const mine = (await listeners()).filter((pid) => !others.includes(pid));
      expect(mine).toHaveLength(1);
      const killed = await admin.query<{ done: boolean }>('select pg_terminate_backend($1) as done', [mine[0]]);
      expect(killed.rows[0]!.done).toBe(true);
      // Changed while nothing listens: nobody will ever announce it to this store.
      const silently = (user: number, licenseKey: string) =>
        operator.db.updateTable('gw_branches').set({ user_id: user }).where('license_key', '=', licenseKey).execute();
      await silently(second, 'LOST000000000001');
      await silently(second, 'LOST000000000002');

      // 30 s after the first was cached, 29 s after the second. Cached while heard, the first is
      // read again as soon as the lost connection is noticed (the poll's bound), not at a reconnect.
      clock += 29_000;
      await until(async () => (await aging.branchOwner('LOST000000000001')) === second, 2_000);
      expect(await aging.branchOwner('LOST000000000002')).toBe(first);
      clock += 1_000;
      expect(await aging.branchOwner('LOST000000000002')).toBe(second);
      // Nor had it listened again meanwhile.
      expect((await listeners()).filter((pid) => !others.includes(pid) && pid !== mine[0])).toEqual([]);
    } finally {
      await agingWatch.stop();
      await Promise.all([aging.close(), admin.end()]);
    }
  });
});
