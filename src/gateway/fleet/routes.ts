/**
 * The fleet endpoints (issue 16): every branch's agent as the gateway last saw it. Gateway-local
 * like the printer registry; they need the `fleet` scope, and show the key's user's branches only.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { branchDetail, branchParams, fleetListQuery, fleetPage } from '../../protocol/fleet.js';
import { problemResponses } from '../openapi.js';
import { ApiError } from '../problems.js';
import type { GatewayStore } from '../store.js';

const tags = ['Fleet'];
const security = [{ apiKey: [] }];

export async function fleetRoutes(app: FastifyInstance, { store }: { store: GatewayStore }): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/sucursales',
    {
      config: { scope: 'fleet' },
      schema: {
        operationId: 'listBranchAgents',
        summary: "List my branches' agents: connected or not, versions, health",
        tags,
        security,
        querystring: fleetListQuery,
        response: { 200: fleetPage, ...problemResponses },
      },
    },
    async (request) => store.fleet.list(request.userId, request.query),
  );

  typed.get(
    '/sucursales/:licenseKey',
    {
      config: { scope: 'fleet' },
      schema: {
        operationId: 'getBranchAgent',
        summary: "One branch's agent, with its disconnections and jobs of the last 24 hours",
        tags,
        security,
        params: branchParams,
        response: { 200: branchDetail, ...problemResponses },
      },
    },
    async (request) => {
      const detail = await store.fleet.detail(request.userId, request.params.licenseKey);
      if (!detail) throw new ApiError('branch_forbidden', `This API key may not use branch ${request.params.licenseKey}.`);
      return detail;
    },
  );
}
