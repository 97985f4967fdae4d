/**
 * Agent releases and their signatures (issue 16). A release is the tarball make-release.sh
 * builds; its manifest names the version and platform, the tarball's sha256 and an Ed25519
 * signature over all three, made with the publisher's private key. Agents trust only the public
 * key in their own config: the gateway stores and serves releases but cannot forge one, and a
 * signed old release cannot be passed off as a newer version or another platform.
 */
import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

export const RELEASE_PLATFORMS = ['linux', 'win32'] as const;
export type ReleasePlatform = (typeof RELEASE_PLATFORMS)[number];

/** Versions as package.json writes them (semver, with an optional pre-release or build). */
export const releaseVersion = z
  .string()
  .max(50)
  .regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'must be a version such as 1.4.0');

export const releaseManifest = z.object({
  version: releaseVersion,
  platform: z.enum(RELEASE_PLATFORMS),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'),
  /** Ed25519 signature of `signedText(...)`, base64. */
  signature: z.string().regex(/^[A-Za-z0-9+/]{86}==$/, 'must be a base64 Ed25519 signature'),
});

export type ReleaseManifest = z.infer<typeof releaseManifest>;

/** What the signature covers: every field an agent acts on. */
export function signedText(m: Pick<ReleaseManifest, 'version' | 'platform' | 'sha256'>): Buffer {
  return Buffer.from(`branch-agent release\nversion ${m.version}\nplatform ${m.platform}\nsha256 ${m.sha256}\n`, 'utf8');
}

export function signRelease(m: Pick<ReleaseManifest, 'version' | 'platform' | 'sha256'>, privateKeyPem: string): ReleaseManifest {
  return { ...m, signature: sign(null, signedText(m), privateKeyPem).toString('base64') };
}

/** Whether the manifest was signed by the holder of this public key's private key. */
export function verifyRelease(m: ReleaseManifest, publicKey: string | KeyObject): boolean {
  try {
    const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
    return key.asymmetricKeyType === 'ed25519' && verify(null, signedText(m), key, Buffer.from(m.signature, 'base64'));
  } catch {
    return false;
  }
}

/** The platform a running agent needs a release for. */
export function platformOf(nodePlatform: string): ReleasePlatform | undefined {
  return (RELEASE_PLATFORMS as readonly string[]).includes(nodePlatform) ? (nodePlatform as ReleasePlatform) : undefined;
}
