/**
 * Webhook signing secrets. Unlike API keys they cannot be stored hashed: the gateway needs the
 * secret itself to sign every delivery. They are stored sealed with AES-256-GCM under the
 * gateway's webhook key, which lives outside the store (the config's `webhookKey`, the
 * WEBHOOK_KEY environment variable, or a file in `dataDir` readable by the gateway only), so a
 * copy of the store alone signs nothing. Gateways sharing a store must share the key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a `whsec_` secret, as the HMAC takes them. */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
}

export function sealSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !data) throw new Error('not a sealed webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
}

/** A 32-byte key given as base64, or an error saying what is wrong with it. */
export function parseWebhookKey(text: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error('the webhook key must be 32 bytes in base64 (openssl rand -base64 32)');
  return key;
}

/** The key in `<dataDir>/webhook.key`, made (mode 0600) the first time. */
export function webhookKeyFile(dataDir: string): Buffer {
  const file = path.join(dataDir, 'webhook.key');
  if (existsSync(file)) return parseWebhookKey(readFileSync(file, 'utf8'));
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
