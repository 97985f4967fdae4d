/**
 * API keys and agent tokens: made here, shown once, and stored only as their SHA-256, which is
 * also what every lookup and the rate limiter key on. (A key is 24 random bytes: a slow hash
 * would add nothing against guessing and cost every request.)
 */
import { createHash, randomBytes } from 'node:crypto';

export function sha256(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`;
}
