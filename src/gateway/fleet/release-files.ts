/**
 * The publisher's side of releases, as the `releases` commands run it: an Ed25519 key pair, the
 * signed manifest written beside a tarball, and publishing both to the gateway store.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { releaseManifest, signRelease, verifyRelease, type ReleaseManifest, type ReleasePlatform } from '../../protocol/releases.js';
import type { StoredRelease } from './release-store.js';
import type { GatewayStore } from '../store.js';

/** Writes `<prefix>.key` (private, readable by its owner only) and `<prefix>.pub` (for the agents' config). */
export async function writeKeyPair(prefix: string): Promise<{ privateKey: string; publicKey: string }> {
  const pair = generateKeyPairSync('ed25519');
  const privateKey = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  await writeFile(`${prefix}.key`, privateKey, { mode: 0o600, flag: 'wx' });
  await writeFile(`${prefix}.pub`, publicKey, { flag: 'wx' });
  return { privateKey: `${prefix}.key`, publicKey: `${prefix}.pub` };
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export const manifestPathOf = (tarball: string) => `${tarball}.manifest.json`;

/** Signs a tarball as `version` for `platform` and writes its manifest beside it. */
export async function signTarball(tarball: string, version: string, platform: ReleasePlatform, privateKeyFile: string): Promise<ReleaseManifest> {
  const unsigned = releaseManifest.omit({ signature: true }).parse({ version, platform, sha256: await fileSha256(tarball) });
  const manifest = signRelease(unsigned, await readFile(privateKeyFile, 'utf8'));
  await writeFile(manifestPathOf(tarball), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Stores a signed release. With the publisher's public key, a manifest it did not sign is refused
 * here already rather than by every agent.
 */
export async function publishRelease(store: GatewayStore, tarball: string, opts: { manifest?: string; publicKeyFile?: string } = {}): Promise<StoredRelease> {
  const manifest = releaseManifest.parse(JSON.parse(await readFile(opts.manifest ?? manifestPathOf(tarball), 'utf8')));
  if (opts.publicKeyFile && !verifyRelease(manifest, await readFile(opts.publicKeyFile, 'utf8'))) {
    throw new Error(`The manifest of ${tarball} is not signed by the key in ${opts.publicKeyFile}.`);
  }
  return store.releases.add(manifest, createReadStream(tarball) as AsyncIterable<Buffer>);
}
