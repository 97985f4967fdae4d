/**
 * The printer registry (docs/api.md, Printers: List my printers, Register, Get, Update, List printers of a
 * branch). Gateway-local routes: no job goes to an agent. Printers belong to the API key's user;
 * a printer of another user is answered as not found. Registered inside the authenticated API
 * plugin, so X-Api-Key, the rate limit and the problem format apply as everywhere.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  branchParams,
  branchPrinterList,
  PAPER_WIDTH_MM,
  printerCreate,
  printerIdParams,
  printerList,
  printerListQuery,
  printerRecord,
  printerUpdate,
  type PrinterRecord,
  type StoredPrinter,
  WIDTH_REQUIRED,
  withThermalLabelDefaults,
} from '../protocol/printers.js';
import { addressRefusal, portRefusal, type PrinterRule } from '../protocol/printer-rule.js';
import type { AgentHub } from './hub.js';
import { problemResponses } from './openapi.js';
import { ApiError, validationProblem } from './problems.js';
import type { GatewayStore } from './store.js';
import { authorizeBranch } from './branch-access.js';

export interface PrinterRoutesOptions {
  store: GatewayStore;
  hub: AgentHub;
  /** Where printers may be (protocol/printer-rule.ts); the agent checks it again. */
  rule: PrinterRule;
}

/** 400 naming each field the rule refuses, as the printer would be once changed. */
function checkRule(printer: { printerIp: string; printerPort: number }, rule: PrinterRule): void {
  const issues = [
    { path: ['printerIp'], message: addressRefusal(printer.printerIp, rule) },
    { path: ['printerPort'], message: portRefusal(printer.printerPort, rule) },
  ].filter((i): i is { path: string[]; message: string } => i.message !== undefined);
  if (issues.length > 0) throw validationProblem(issues);
}

const tags = ['Printers'];
const security = [{ apiKey: [] }];

/**
 * The width rule of printerCreate (checkWidthRule: a thermal printer needs widthMm)
 * is a refinement, which JSON Schema cannot see; stated here so the description tells it too.
 */
const documentedPrinterCreate = printerCreate.meta({
  oneOf: [
    {
      properties: { kind: { type: 'string', enum: ['thermal'] }, widthMm: { type: 'integer', minimum: PAPER_WIDTH_MM.min, maximum: PAPER_WIDTH_MM.max } },
      required: ['kind', 'widthMm'],
    },
    { properties: { kind: { type: 'string', enum: ['label'] } }, required: ['kind'] },
  ],
});

/** On a change the rule is checked on the printer as it would become. */
const documentedPrinterUpdate = printerUpdate.meta({
  description:
    'The fields sent replace the stored ones. A change that would leave a thermal printer without widthMm is refused (400). ' +
    'A thermal printer keeps its label fields at their defaults, whatever is sent.',
});

function printerNotFound(): ApiError {
  return new ApiError('printer_not_found', 'No printer with the id in the path is registered for this API key.');
}

export async function printerRoutes(app: FastifyInstance, { store, hub, rule }: PrinterRoutesOptions): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  /** The workerId of the branch's connected agent (the one that prints), or null while it is offline. */
  const workerIdOf = (licenseKey: string): string | null => hub.agentFor(licenseKey)?.workerId ?? null;

  const toRecord = ({ id, ...rest }: StoredPrinter): PrinterRecord => ({ id, workerId: workerIdOf(rest.licenseKey), ...rest });

  typed.get(
    '/print/printers',
    {
      schema: {
        operationId: 'listMyPrinters',
        summary: 'List my printers',
        tags,
        security,
        querystring: printerListQuery,
        response: { 200: printerList, ...problemResponses },
      },
    },
    async (request) => {
      const { licenseKey } = request.query;
      if (licenseKey !== undefined) await authorizeBranch(store, request.userId, licenseKey);
      const data = (await store.printers.list(request.userId, licenseKey)).map(toRecord);
      return { totalResults: data.length, data };
    },
  );

  typed.post(
    '/print/printers',
    {
      schema: {
        operationId: 'registerPrinter',
        summary: 'Register a printer of one of my branches',
        tags,
        security,
        body: documentedPrinterCreate,
        response: { 201: printerRecord, ...problemResponses },
      },
    },
    async (request, reply) => {
      await authorizeBranch(store, request.userId, request.body.licenseKey);
      checkRule(request.body, rule);
      const printer = await store.printers.create(request.userId, withThermalLabelDefaults(request.body));
      return reply.code(201).send(toRecord(printer));
    },
  );

  typed.get(
    '/print/printers/:id',
    {
      schema: {
        operationId: 'getPrinter',
        summary: 'Get a printer',
        tags,
        security,
        params: printerIdParams,
        response: { 200: printerRecord, ...problemResponses },
      },
    },
    async (request) => {
      const printer = await store.printers.get(request.userId, request.params.id);
      if (!printer) throw printerNotFound();
      return toRecord(printer);
    },
  );

  for (const method of ['PATCH', 'PUT'] as const) {
    typed.route({
      method,
      url: '/print/printers/:id',
      schema: {
        operationId: method === 'PATCH' ? 'updatePrinter' : 'replacePrinterFields',
        summary: method === 'PATCH' ? 'Update a printer: the fields sent replace, the others are kept' : 'Update a printer (same as PATCH)',
        tags,
        security,
        params: printerIdParams,
        body: documentedPrinterUpdate,
        response: { 200: printerRecord, ...problemResponses },
      },
      handler: async (request) => {
        const changes = Object.fromEntries(Object.entries(request.body).filter(([, v]) => v !== undefined)) as typeof request.body;
        const updated = await store.printers.update(request.userId, request.params.id, async (current) => {
          if (changes.licenseKey !== undefined && changes.licenseKey !== current.licenseKey) {
            await authorizeBranch(store, request.userId, changes.licenseKey);
          }
          const merged = { ...current, ...changes };
          if (changes.printerIp !== undefined || changes.printerPort !== undefined) checkRule(merged, rule);
          if (merged.kind === 'thermal' && merged.widthMm === null) {
            throw validationProblem([{ path: ['widthMm'], message: WIDTH_REQUIRED }]);
          }
          return withThermalLabelDefaults(changes, merged.kind);
        });
        if (!updated) throw printerNotFound();
        return toRecord(updated);
      },
    });
  }

  typed.get(
    '/print/:licenseKey/printers',
    {
      schema: {
        operationId: 'listBranchPrinters',
        summary: "List a branch's printers",
        tags,
        security,
        params: branchParams,
        response: { 200: branchPrinterList, ...problemResponses },
      },
    },
    async (request) => {
      const { licenseKey } = request.params;
      await authorizeBranch(store, request.userId, licenseKey);
      const data = (await store.printers.list(request.userId, licenseKey)).map(({ id, printerIp, printerPort, displayName, widthMm, kind }) => ({
        id,
        printerIp,
        printerPort,
        displayName,
        widthMm,
        kind,
      }));
      return { workerId: workerIdOf(licenseKey), totalResults: data.length, data };
    },
  );
}
