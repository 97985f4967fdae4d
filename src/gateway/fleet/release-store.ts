/**
 * Published agent releases (gw_releases, gw_release_chunks): the signed manifest and the tarball
 * in 1 MiB chunks, so that publishing and downloading stream and several gateways on one store
 * serve the same bytes.
 */
import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation } from '../../database-errors.js';
import type { ReleaseManifest, ReleasePlatform } from '../../protocol/releases.js';
import type { GatewayDatabase } from '../store-schema.js';

const CHUNK_BYTES = 1024 * 1024;

export class ReleaseExistsError extends Error {}
export class ReleaseHashMismatchError extends Error {}

export interface StoredRelease extends ReleaseManifest {
  sizeBytes: number;
  createdAt: Date;
}

export class ReleaseStore {
  constructor(private readonly db: Kysely<GatewayDatabase>) {}

  /**
   * Stores a release in one transaction: its bytes must hash to the manifest's sha256, else
   * nothing is kept. A version and platform are published once; a release is never replaced.
   */
  async add(manifest: ReleaseManifest, bytes: AsyncIterable<Buffer>): Promise<StoredRelease> {
    const { version, platform } = manifest;
    try {
      return await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('gw_releases').values({ version, platform, sha256: manifest.sha256, signature: manifest.signature, size_bytes: 0 }).execute();
        const hash = createHash('sha256');
        let size = 0;
        let seq = 0;
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        const flush = async () => {
          if (pendingBytes === 0) return;
          await trx
            .insertInto('gw_release_chunks')
            .values({ version, platform, seq: seq++, data: Buffer.concat(pending) })
            .execute();
          pending = [];
          pendingBytes = 0;
        };
        for await (const piece of bytes) {
          hash.update(piece);
          size += piece.length;
          for (let at = 0; at < piece.length;) {
            const take = piece.subarray(at, at + CHUNK_BYTES - pendingBytes);
            pending.push(take);
            pendingBytes += take.length;
            at += take.length;
            if (pendingBytes === CHUNK_BYTES) await flush();
          }
        }
        await flush();
        if (hash.digest('hex') !== manifest.sha256) throw new ReleaseHashMismatchError(`the tarball's sha256 is not the manifest's ${manifest.sha256}`);
        const row = await trx
          .updateTable('gw_releases')
          .set({ size_bytes: size })
          .where('version', '=', version)
          .where('platform', '=', platform)
          .returning('created_at')
          .executeTakeFirstOrThrow();
        return { ...manifest, sizeBytes: size, createdAt: row.created_at };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ReleaseExistsError(`release ${version} for ${platform} is already published`);
      throw error;
    }
  }

  async get(version: string, platform: ReleasePlatform): Promise<StoredRelease | undefined> {
    const row = await this.db.selectFrom('gw_releases').selectAll().where('version', '=', version).where('platform', '=', platform).executeTakeFirst();
    return row && toRelease(row);
  }

  /** The platforms a version is published for. */
  async platforms(version: string): Promise<ReleasePlatform[]> {
    const rows = await this.db.selectFrom('gw_releases').select('platform').where('version', '=', version).orderBy('platform').execute();
    return rows.map((r) => r.platform as ReleasePlatform);
  }

  async list(): Promise<StoredRelease[]> {
    const rows = await this.db.selectFrom('gw_releases').selectAll().orderBy('created_at', 'desc').orderBy('platform').execute();
    return rows.map(toRelease);
  }

  /** The tarball, a chunk at a time. */
  async *bytes(version: string, platform: ReleasePlatform): AsyncGenerator<Buffer> {
    for (let seq = 0; ; seq++) {
      const chunk = await this.db
        .selectFrom('gw_release_chunks')
        .select('data')
        .where('version', '=', version)
        .where('platform', '=', platform)
        .where('seq', '=', seq)
        .executeTakeFirst();
      if (!chunk) return;
      yield chunk.data;
    }
  }
}

function toRelease(row: Selectable<GatewayDatabase['gw_releases']>): StoredRelease {
  return {
    version: row.version,
    platform: row.platform as ReleasePlatform,
    sha256: row.sha256,
    signature: row.signature,
    sizeBytes: Number(row.size_bytes),
    createdAt: new Date(row.created_at),
  };
}
