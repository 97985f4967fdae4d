/**
 * What docs/operations.md says of webhook secrets and their retries: sealed with AES-256-GCM
 * under a key outside the store (a copy of the store alone signs nothing), the key file made
 * readable by its owner only, and retries 5 s, 10 s, 20 s … at most an hour apart, given up a
 * day after the event.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nextAttemptAt } from '../../src/gateway/webhook-delivery.js';
import { newWebhookSecret, openSecret, sealSecret, webhookKeyFile } from '../../src/gateway/webhook-secrets.js';

const dir = mkdtempSync(path.join(tmpdir(), 'webhook-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('webhook secrets', () => {
  it('are sealed: the stored text holds nothing of the secret, and opens only under its key', () => {
    const key = webhookKeyFile(dir);
    const secret = newWebhookSecret();
    const sealed = sealSecret(key, secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length, 20));
    expect(sealed).not.toContain(secret);
    expect(openSecret(key, sealed)).toBe(secret);
    expect(() => openSecret(Buffer.alloc(32, 7), sealed)).toThrow();
    const tampered = sealed.slice(0, -4) + (sealed.endsWith('AAA=') ? 'BBB=' : 'AAA=');
    expect(() => openSecret(key, tampered)).toThrow();
  });

  it('keep their key in a file only its owner can read, made once and read back after', () => {
    const file = path.join(dir, 'webhook.key');
    const key = webhookKeyFile(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(webhookKeyFile(dir).equals(key)).toBe(true);
  });
});

describe('webhook retries', () => {
  const event = new Date('2026-01-01T00:00:00Z');
  const at = (attempts: number, afterEventMs: number) => nextAttemptAt(attempts, event, event.getTime() + afterEventMs)?.getTime();

  it('wait 5 s, then twice as long each time, at most an hour', () => {
    expect([1, 2, 3, 4].map((n) => at(n, 0))).toEqual([5_000, 10_000, 20_000, 40_000].map((ms) => event.getTime() + ms));
    expect(at(20, 0)).toBe(event.getTime() + 3_600_000);
  });

  it('are given up when the next would come more than a day after the event', () => {
    expect(at(20, 20 * 3_600_000)).toBe(event.getTime() + 21 * 3_600_000);
    expect(at(20, 23.5 * 3_600_000)).toBeUndefined();
  });
});
