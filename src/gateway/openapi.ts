/**
 * The API description (/openapi.json, /docs), generated from the zod schemas that validate the
 * requests, and what every route declares beyond them: its errors, as the problem documents the
 * server sends.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { problemSchema } from '../protocol/problem.js';
import { VERSION } from '../version.js';

const problem = { 'application/problem+json': { schema: problemSchema } };

/**
 * The error responses of every API route: RFC 9457 problems, as application/problem+json. Typed
 * loosely: they document what the error handler sends, not what a handler returns.
 */
export const problemResponses: Record<'4xx' | '5xx', unknown> = {
  '4xx': { description: 'The request was refused (RFC 9457 problem details; `code` says why)', content: problem },
  '5xx': { description: 'The gateway, the agent or a printer failed (RFC 9457 problem details; `code` says which)', content: problem },
};

export async function describeApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: { title: 'Soft Restaurant branch gateway', version: VERSION, description: 'Read and change every branch POS through one HTTP API.' },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
