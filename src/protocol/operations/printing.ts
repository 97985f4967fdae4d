/**
 * Printing (docs/api.md, Printing): a kitchen ticket per group of an order, or a test page, on the
 * branch's registered printers. The client names printers by id; the gateway adds each one's
 * target (address, kind, paper) from its registry before the job goes to the agent, which renders
 * and prints. A failed printer is a result, not an error: the gateway turns it into a 502.
 */
import { z } from 'zod';
import { decimal } from '../common.js';
import { defineOperation } from '../operation.js';
import { printerId, printerTarget } from '../printers.js';

const text = (max: number) => z.string().max(max);

export const printLine = z.object({
  cantidad: z.number().positive().max(9999),
  descripcion: z.string().trim().min(1, 'must not be empty').max(200),
  comentario: text(254).optional(),
  modificadores: z.array(text(200)).max(50).optional(),
});

export const printGroup = z.object({
  printerId,
  titulo: text(60).optional().describe('heading of the ticket, e.g. COCINA or BARRA'),
  copias: z.number().int().min(1).max(10).default(1).describe('copies of this ticket, printed as one job'),
  productos: z.array(printLine).min(1).max(500),
});

/** POST /print/{licenseKey}/orden, as the client sends it. */
export const printOrderBody = z.object({
  orderFolio: z.union([z.string().trim().min(1).max(40), z.number().int().nonnegative()]).describe('folio printed on the ticket'),
  isReprint: z.boolean().default(false).describe('prints REIMPRESION under the header'),
  price: z
    .union([z.string().max(40), decimal(4).min(0).max(999_999_999)])
    .optional()
    .describe('the order total, text or a number with at most 4 decimals: stored with the print job for future receipts, not printed on the kitchen ticket'),
  paymentMethod: text(60).optional().describe('stored with the print job for future receipts, not printed on the kitchen ticket'),
  businessName: z.string().trim().min(1, 'must not be empty').max(80),
  businessSubtitle: text(80).optional(),
  orderNote: text(500).optional(),
  grupos: z.array(printGroup).min(1).max(20).describe('one ticket per group, on its printer'),
});

/** POST /print/{licenseKey}/prueba, as the client sends it. */
export const printTestBody = z.object({
  printerId,
  printerName: text(80).optional().describe("printed on the page; default: the printer's displayName"),
  title: text(40).default('PRUEBA'),
  message: text(200).default('IMPRESORA OK - IGNORAR'),
});

/** The targets the gateway resolved, by printer id. */
export const printers = z.record(z.string(), printerTarget).describe('set by the gateway from its printer registry');

/** `interrupted`: the agent stopped between recording the job and the printer's answer (print-operations.ts). */
export const PRINT_ERRORS = ['unreachable', 'timeout', 'refused', 'paper_out', 'cover_open', 'offline', 'not_allowed', 'not_sent', 'interrupted'] as const;

export const printResult = z.object({
  printerId: z.string(),
  status: z.enum(['printed', 'failed']),
  bytes: z.number().int().optional().describe('bytes the printer took (printed)'),
  error: z.enum(PRINT_ERRORS).optional().describe('why it failed (failed)'),
  detail: z.string().optional().describe('what went wrong, for people (failed); the agent logs what the printer said'),
});

export const printOutput = z.object({
  orderRef: z.string().describe("the print job's reference at the branch (ba_print_jobs), order or test page"),
  results: z.array(printResult).describe('one per group (order) or one (test or account ticket), in request order'),
});

export type PrintResultRecord = z.output<typeof printResult>;

/** Labels a label printer prints for one line: one per unit (cantidad 3 → 3; 2.5 → 3). */
export function labelsPerLine(cantidad: number): number {
  return Math.max(1, Math.ceil(cantidad));
}

/**
 * The labels one order may send to one label printer, copies included: about a roll. The lines
 * allow 9,999 units each, and an order of tens of thousands of labels held the agent's one thread
 * for seconds while it rendered them: other printers' connections timed out (reported
 * unreachable) and the job outlived the gateway's timeout.
 */
export const MAX_LABELS_PER_PRINTER = 1_000;

function labelsWithinLimit(input: z.output<typeof printOrderBody> & { printers: Record<string, { kind: string }> }, ctx: z.core.$RefinementCtx): void {
  const labels = new Map<string, number>();
  for (const group of input.grupos) {
    if (input.printers[group.printerId]?.kind !== 'label') continue;
    const units = group.productos.reduce((n, line) => n + labelsPerLine(line.cantidad), 0);
    labels.set(group.printerId, (labels.get(group.printerId) ?? 0) + group.copias * units);
  }
  for (const [id, count] of labels)
    if (count > MAX_LABELS_PER_PRINTER)
      ctx.addIssue({
        code: 'custom',
        path: ['grupos'],
        message: `label printer ${id} would print ${count} labels (one per unit of each line, copies included); at most ${MAX_LABELS_PER_PRINTER} per order`,
      });
}

function everyPrinterResolved(ids: string[], targets: Record<string, unknown>, ctx: z.core.$RefinementCtx): void {
  ids.forEach((id, i) => {
    if (!targets[id]) ctx.addIssue({ code: 'custom', path: ['printers', id], message: `no target for printer ${id} (group ${i + 1})` });
  });
}

export const printOrder = defineOperation({
  name: 'print.order',
  write: true,
  usesPrinter: () => true,
  // Printing changes no Soft Restaurant record: nothing for events to attribute.
  marks: () => [],
  input: () =>
    printOrderBody.extend({ printers }).superRefine((input, ctx) => {
      everyPrinterResolved(
        input.grupos.map((g) => g.printerId),
        input.printers,
        ctx,
      );
      labelsWithinLimit(input, ctx);
    }),
  output: () => printOutput,
});

export const printTest = defineOperation({
  name: 'print.test',
  write: true,
  usesPrinter: () => true,
  marks: () => [],
  input: () => printTestBody.extend({ printers }).superRefine((input, ctx) => everyPrinterResolved([input.printerId], input.printers, ctx)),
  output: () => printOutput,
});

export type PrintOrderInput = z.output<typeof printOrder.input>;
export type PrintTestInput = z.output<typeof printTest.input>;
