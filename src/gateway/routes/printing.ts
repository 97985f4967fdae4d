/**
 * Print an order and print a test page (docs/api.md, Printing): jobs for the branch's agent. The
 * client names printers by id; `prepare` resolves each one in the user's registry (it must be a
 * printer of that branch) into the target the agent prints to, so a client can never make an
 * agent print to an address that is not registered. `check` turns any failed printer into a 502.
 */
import { z } from 'zod';
import * as ops from '../../protocol/operations/printing.js';
import type { OperationDef } from '../../protocol/operation.js';
import { toPrinterTarget, type PrinterTargetParams } from '../../protocol/printers.js';
import { ApiError } from '../problems.js';
import { route, type RouteContext } from './route.js';

const tag = 'Printing';

/**
 * What HTTP sees of a print operation: the client's body (the op's input without the targets
 * the gateway adds), and the answer with its jobId. The job keeps the op's name, and the agent
 * validates the full input.
 */
function clientView(op: OperationDef<z.ZodObject, z.ZodObject>, body: z.ZodObject): OperationDef {
  return { ...op, input: body, output: op.output.extend({ jobId: z.string() }) };
}

/** The user's printers of this branch with these ids, as job targets keyed by the ids as sent. */
export async function resolvePrinters(ctx: RouteContext, ids: readonly string[]): Promise<Record<string, PrinterTargetParams>> {
  const found = new Map((await ctx.store.printers.find(ctx.userId, [...new Set(ids)])).map((p) => [p.id, p]));
  const targets: Record<string, PrinterTargetParams> = {};
  for (const id of ids) {
    const printer = found.get(id);
    if (!printer || printer.licenseKey !== ctx.licenseKey) {
      throw new ApiError('printer_not_found', 'A printer the request names (printerId, listed here) is not registered for this branch and API key.', {
        printerId: id,
      });
    }
    targets[id] = toPrinterTarget(printer);
  }
  return targets;
}

/**
 * 502 printer_failed, carrying the same per-printer results, when any printer did not take its
 * job; `done` says what was done all the same (an account's print), in words and in fields.
 */
export function failIfAnyPrinterFailed(data: Record<string, unknown>, jobId?: string, done?: { sentence: string; fields: Record<string, unknown> }): void {
  const { orderRef, results } = ops.printOutput.parse(data);
  const failed = results.filter((r) => r.status === 'failed');
  if (failed.length === 0) return;
  const which = failed.map((r) => `${r.printerId}: ${r.error}`).join('; ');
  const detail = `${failed.length} of ${results.length} print jobs were not taken by their printer (${which}).`;
  throw new ApiError('printer_failed', done ? `${detail} ${done.sentence}` : detail, {
    ...done?.fields,
    orderRef,
    results,
    ...(jobId ? { jobId } : {}),
  });
}

export const printingRoutes = [
  route({
    operationId: 'printOrder',
    method: 'POST',
    url: '/print/:licenseKey/orden',
    op: clientView(ops.printOrder, ops.printOrderBody),
    summary: 'Print an order: one kitchen ticket (or labels) per group, on its printer',
    tag,
    from: 'body',
    envelope: 'result',
    jobId: true,
    idempotencyKey: 'optional',
    prepare: async (ctx, params) => {
      const grupos = params.grupos as Array<{ printerId: string }>;
      return {
        ...params,
        printers: await resolvePrinters(
          ctx,
          grupos.map((g) => g.printerId),
        ),
      };
    },
    check: (data, jobId) => failIfAnyPrinterFailed(data, jobId),
  }),
  route({
    operationId: 'printTest',
    method: 'POST',
    url: '/print/:licenseKey/prueba',
    op: clientView(ops.printTest, ops.printTestBody),
    summary: 'Print a test page on a printer',
    tag,
    from: 'body',
    envelope: 'result',
    jobId: true,
    idempotencyKey: 'optional',
    prepare: async (ctx, params) => ({ ...params, printers: await resolvePrinters(ctx, [params.printerId as string]) }),
    check: (data, jobId) => failIfAnyPrinterFailed(data, jobId),
  }),
];
