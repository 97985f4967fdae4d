/**
 * An agent whose config names no `upgrades.publicKeyFile` refuses remote upgrades
 * (docs/operations.md, "Publishing a release and rolling it out"): it cannot check a
 * release's signature, so a rollout to it reports `failed` with that reason, and nothing is
 * downloaded or handed to the installer (which it has: the key alone is missing). Whole stack,
 * as test/e2e/rollouts.test.ts, with agents configured without the key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { publishRelease } from '../../src/gateway/fleet/release-files.js';
import { signRelease, type ReleasePlatform } from '../../src/protocol/releases.js';
import { VERSION } from '../../src/version.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

const publisher = generateKeyPairSync('ed25519');
const platform = process.platform as ReleasePlatform;
const dir = mkdtempSync(join(tmpdir(), 'rollouts-without-key-'));
const downloads = join(dir, 'downloads');
let installerReached = false;
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({
    agent: {
      connection: { backoffBaseMs: 20, backoffMaxMs: 200 },
      upgrades: {
        downloadDir: downloads,
        pollMs: 50,
        installer: () => {
          installerReached = true;
          return Promise.reject(new Error('the installer was reached'));
        },
      },
    },
  });
  // A release signed as it should be: only the agent's missing key stands in the way.
  const tarball = randomBytes(64 * 1024);
  const file = join(dir, 'release-9.0.0.tar.gz');
  writeFileSync(file, tarball);
  const privateKey = publisher.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(
    `${file}.manifest.json`,
    JSON.stringify(signRelease({ version: '9.0.0', platform, sha256: createHash('sha256').update(tarball).digest('hex') }, privateKey)),
  );
  await publishRelease(stack.store, file);
});

afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Rollout {
  id: string;
  state: string;
  branches: Array<{ licenseKey: string; state: string; reason: string | null }>;
}

it('reports the rollout failed with the reason, downloads nothing and keeps running its version', async () => {
  const started = await stack.api('POST', '/sucursales/actualizaciones', {
    body: { version: '9.0.0', licenseKeys: [BRANCH] },
    headers: { 'idempotency-key': randomUUID() },
  });
  expect(started.status, started.text).toBe(201);
  const id = (started.body as Rollout).id;

  let rollout: Rollout;
  const end = Date.now() + 10_000;
  for (;;) {
    const res = await stack.api('GET', `/sucursales/actualizaciones/${id}`);
    expect(res.status, res.text).toBe(200);
    rollout = res.body as Rollout;
    if (rollout.state === 'done' || Date.now() > end) break;
    await sleep(50);
  }
  expect(rollout.state).toBe('done');
  expect(rollout.branches).toEqual([
    expect.objectContaining({
      licenseKey: BRANCH,
      state: 'failed',
      reason: 'the agent has no upgrades.publicKeyFile in its config, so it cannot check a release',
    }),
  ]);
  expect(installerReached).toBe(false);
  expect(existsSync(downloads) ? readdirSync(downloads) : []).toEqual([]);
  expect(stack.gateway.hub.agentFor(BRANCH)?.agentVersion).toBe(VERSION);
});
