/** Release signatures and maintenance windows: pure functions the upgrade path trusts. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inWindow } from '../../src/agent/upgrades.js';
import { signRelease, verifyRelease } from '../../src/protocol/releases.js';

const keys = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const privatePem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const publicPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const manifest = signRelease({ version: '1.4.0', platform: 'linux', sha256: 'a'.repeat(64) }, privatePem);

describe('release signatures', () => {
  it('verify with the publisher key only', () => {
    expect(verifyRelease(manifest, publicPem)).toBe(true);
    expect(verifyRelease(manifest, other.publicKey)).toBe(false);
  });

  it('cover the version, the platform and the hash: none can be changed under the signature', () => {
    expect(verifyRelease({ ...manifest, version: '1.5.0' }, publicPem)).toBe(false);
    expect(verifyRelease({ ...manifest, platform: 'win32' }, publicPem)).toBe(false);
    expect(verifyRelease({ ...manifest, sha256: 'b'.repeat(64) }, publicPem)).toBe(false);
  });

  it('refuse a key that is not Ed25519 or not a key at all', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(verifyRelease(manifest, rsa.publicKey)).toBe(false);
    expect(verifyRelease(manifest, 'not a key')).toBe(false);
  });
});

describe('inWindow', () => {
  const at = (hhmm: string) => new Date(`2026-03-01T${hhmm}:00`);

  it('takes the start and leaves the end out', () => {
    const window = { desde: '02:00', hasta: '05:00' };
    expect([at('01:59'), at('02:00'), at('04:59'), at('05:00')].map((d) => inWindow(d, window))).toEqual([false, true, true, false]);
  });

  it('spans midnight when the end comes before the start', () => {
    const window = { desde: '22:00', hasta: '03:00' };
    expect([at('21:59'), at('22:00'), at('00:30'), at('02:59'), at('03:00'), at('12:00')].map((d) => inWindow(d, window))).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('is always open without a window', () => {
    expect(inWindow(at('13:13'), null)).toBe(true);
  });
});
