/**
 * Where agents download a release they were told to install: `GET /agent/releases/{version}/
 * {platform}` with their own token, as on the WebSocket. Not part of the public API (hidden from
 * /openapi.json); the bytes are streamed from the store a chunk at a time, without a length the
 * chunks might not add up to: the agent checks what it got against the signed hash anyway.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { platformOf } from '../../protocol/releases.js';
import { ApiError } from '../problems.js';
import { sha256 } from '../secrets.js';
import type { GatewayStore } from '../store.js';

export async function releaseDownloads(app: FastifyInstance, { store }: { store: GatewayStore }): Promise<void> {
  app.get<{ Params: { version: string; platform: string } }>('/agent/releases/:version/:platform', { schema: { hide: true } }, async (request, reply) => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token || !(await store.branchForAgentTokenHash(sha256(token)))) throw new ApiError('unauthorized', 'An agent token is required.');
    const platform = platformOf(request.params.platform);
    const release = platform && (await store.releases.get(request.params.version, platform));
    if (!release) throw new ApiError('release_not_found', 'The release in the path is not published for that platform.');
    return reply
      .type('application/gzip')
      .header('x-release-sha256', release.sha256)
      .send(Readable.from(store.releases.bytes(release.version, release.platform)));
  });
}
