/** `npm start` as a new user sees it: three branches whose agents are connected, on the demo keys. */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_BRANCHES, DEMO_KEYS, startDemo, type Demo } from '../../src/demo/demo.js';
import { VERSION } from '../../src/version.js';

let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ host: '127.0.0.1', port: 0, log: pino({ level: 'silent' }) });
}, 120_000);

afterAll(async () => {
  await demo?.stop();
});

it("lists the demo's three branches online with their versions across its keys", async () => {
  const listed = [];
  for (const { key } of DEMO_KEYS) {
    const res = await fetch(`${demo.stack.url}/sucursales`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    listed.push(...((await res.json()) as { data: Array<Record<string, unknown>> }).data);
  }
  expect(listed.map((b) => b.licenseKey).sort()).toEqual(DEMO_BRANCHES.map((b) => b.licenseKey).sort());
  for (const branch of listed) {
    expect(branch).toMatchObject({ online: true, agentVersion: VERSION, nodeVersion: process.version, posDatabase: 'ok' });
    expect(branch.posVersion).toEqual(expect.any(String));
  }
});
