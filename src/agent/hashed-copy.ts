/**
 * A release tarball written to disk and hashed in the same pass: the sha256 is of the bytes
 * written, so a file checked this way is the file installed.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Writes `source` to `file` (mode 0600 unless given); answers the sha256 of what was written, in hex. */
export async function copyHashed(source: Readable, file: string, mode = 0o600): Promise<string> {
  const hash = createHash('sha256');
  source.on('data', (chunk: Buffer) => hash.update(chunk));
  await pipeline(source, createWriteStream(file, { mode }));
  return hash.digest('hex');
}
