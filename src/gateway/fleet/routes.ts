/**
 * The fleet endpoints (issue 16): every branch's agent as the gateway last saw it. Gateway-local
 * like the printer registry; they need the `fleet` scope, and show the key's user's branches only.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { branchDetail, branchParams, fleetListQuery, fleetPage } from '../../protocol/fleet.js';
import { rolloutCreate, rolloutListQuery, rolloutPage, rolloutParams, rolloutRecord } from '../../protocol/rollouts.js';
import { answerOnce, idempotencyHeaders, idempotencyKeyOf, type KeyedWrites } from '../idempotency.js';
import { problemResponses } from '../openapi.js';
import { ApiError } from '../problems.js';
import type { GatewayStore } from '../store.js';
import type { RolloutDriver } from './rollout-driver.js';
import { RolloutConflictError } from './rollout-store.js';

const tags = ['Fleet'];
const security = [{ apiKey: [] }];

async function conflictAsProblem<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof RolloutConflictError) throw new ApiError('rollout_conflict', error.message);
    throw error;
  }
}

const notFound = () => new ApiError('rollout_not_found', "No rollout with this id was started with this API key's user.");

export interface FleetRoutesOptions {
  store: GatewayStore;
  rollouts: RolloutDriver;
  /** Starting a rollout is a write: it takes an Idempotency-Key like every other. */
  keyed: KeyedWrites;
}

export async function fleetRoutes(app: FastifyInstance, { store, rollouts, keyed }: FleetRoutesOptions): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/sucursales',
    {
      config: { scope: 'fleet' },
      schema: {
        operationId: 'listBranchAgents',
        summary: "List my branches' agents: connected or not, versions, health",
        description: 'Offline branches first, then by license key; each with its jobs of the last 24 hours, whole and hour by hour.',
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
      if (!detail) throw new ApiError('branch_forbidden', 'This API key may not use the branch in licenseKey.');
      return detail;
    },
  );

  typed.post(
    '/sucursales/actualizaciones',
    {
      config: { scope: 'fleet' },
      schema: {
        operationId: 'startRollout',
        summary: 'Upgrade some or all of my branches to a published release',
        description:
          'Each agent upgrades itself through its installer when no job runs and, with `ventana`, inside that daily window in branch time; one that cannot start the new version is rolled back to the old. The rollout pauses when more than `maxFallasPorcentaje` of its branches failed or rolled back.',
        tags,
        security,
        headers: idempotencyHeaders('required'),
        body: rolloutCreate,
        response: { 201: rolloutRecord, ...problemResponses },
      },
    },
    async (request, reply) =>
      answerOnce(keyed, request, reply, idempotencyKeyOf(request)!, async () => {
        const { userId, body } = request;
        const mine = await store.branchesOfUser(userId);
        const chosen = body.licenseKeys ?? mine;
        const foreign = chosen.filter((k) => !mine.includes(k));
        if (foreign.length > 0)
          throw new ApiError('branch_forbidden', 'This API key may not use some of the branches in licenseKeys (listed again here).', { licenseKeys: foreign });
        if ((await store.releases.platforms(body.version)).length === 0) {
          throw new ApiError('release_not_found', 'The release in version is not published: branch-agent releases add <tarball> publishes it.');
        }
        const rollout = await conflictAsProblem(store.rollouts.create(userId, body, chosen));
        await rollouts.started(rollout.branches.map((b) => b.licenseKey));
        return { status: 201, body: (await store.rollouts.get(userId, rollout.id)) ?? rollout };
      }),
  );

  typed.get(
    '/sucursales/actualizaciones',
    {
      config: { scope: 'fleet' },
      schema: {
        operationId: 'listRollouts',
        summary: 'List my rollouts, newest first, with their branches counted by state',
        tags,
        security,
        querystring: rolloutListQuery,
        response: { 200: rolloutPage, ...problemResponses },
      },
    },
    async (request) => store.rollouts.list(request.userId, request.query),
  );

  typed.post(
    '/sucursales/actualizaciones/:id/pausa',
    {
      config: { scope: 'fleet' },
      schema: {
        operationId: 'pauseRollout',
        summary: 'Pause a rollout: no more branches are told of it',
        description:
          'As a rollout past its `maxFallasPorcentaje` pauses itself. Agents already told carry on with their upgrade; the branches not yet reached are free for a new rollout. Pausing a paused rollout changes nothing; one that ended is a 409 `rollout_conflict`.',
        tags,
        security,
        params: rolloutParams,
        response: { 200: rolloutRecord, ...problemResponses },
      },
    },
    async (request) => {
      const rollout = await conflictAsProblem(store.rollouts.pause(request.userId, request.params.id));
      if (!rollout) throw notFound();
      return rollout;
    },
  );

  typed.get(
    '/sucursales/actualizaciones/:id',
    {
      config: { scope: 'fleet' },
      schema: {
        operationId: 'getRollout',
        summary: "A rollout and each branch's state",
        tags,
        security,
        params: rolloutParams,
        response: { 200: rolloutRecord, ...problemResponses },
      },
    },
    async (request) => {
      const rollout = await store.rollouts.get(request.userId, request.params.id);
      if (!rollout) throw notFound();
      return rollout;
    },
  );
}
