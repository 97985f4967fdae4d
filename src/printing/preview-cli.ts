/**
 * `branch-agent print-preview`: renders a sample ticket (or a print-order body from a JSON file)
 * exactly as the agent would send it to a printer, writes a PNG picture of the paper and prints
 * the text a printer would show, so a person can check a ticket without any printer.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { printGroup, printOrderBody } from '../protocol/operations/printing.js';
import { LABEL_DEFAULTS, printerId, printerKind, widthMm, type PrinterTargetParams } from '../protocol/printers.js';
import { kitchenTicketOf, renderKitchenJob, renderTestJob } from './dispatch.js';
import { renderPreviewPng } from './preview.js';
import { toReceivedJob, type JobKind } from './received-job.js';

export interface PrintPreviewOptions {
  /** Paper width of a thermal printer, 48 to 112 mm (default 80). Ignored for labels. */
  widthMm?: number | string;
  /** 'thermal' (ESC/POS, default) or 'label' (TSPL, 50 × 25 mm labels). */
  kind?: string;
  /** Where the PNG goes. */
  out: string;
  /** Which sample to render when no ticket file is given (default 'kitchen'). */
  sample?: 'kitchen' | 'test';
  /** A JSON file holding a print-order body (POST /print/{licenseKey}/orden); printerId may be left out. */
  ticket?: string;
  /** Where the decoded text is written; default stdout. */
  write?: (text: string) => void;
  /** The ticket's date; default now. */
  date?: Date;
}

export interface PrintPreview {
  /** The bytes a printer would receive. */
  bytes: Buffer;
  kind: JobKind;
  /** What the printer prints, decoded back from the bytes. */
  text: string;
  /** Absolute path of the PNG written. */
  out: string;
}

/** A typical kitchen order: ten lines with modifiers, comments and Spanish accents. */
export const SAMPLE_ORDER: z.input<typeof printOrderBody> = {
  orderFolio: 'A-1024',
  businessName: 'Restaurante La Güera',
  businessSubtitle: 'Sucursal Centro',
  price: 1234.5,
  paymentMethod: 'Tarjeta de crédito',
  orderNote: '¡Cliente alérgico a la nuez! Servir todo junto.',
  grupos: [
    {
      printerId: '00000000-0000-4000-8000-000000000000',
      titulo: 'COCINA',
      productos: [
        { cantidad: 2, descripcion: 'Tacos al pastor', modificadores: ['Con piña', 'Sin cebolla'] },
        { cantidad: 1, descripcion: 'Enchiladas suizas', comentario: 'Salsa aparte' },
        { cantidad: 3, descripcion: 'Quesadillas de flor de calabaza' },
        { cantidad: 1, descripcion: 'Sopa de tortilla', modificadores: ['Extra aguacate'] },
        { cantidad: 2, descripcion: 'Chiles en nogada', comentario: '¿Sin granada?' },
        { cantidad: 1, descripcion: 'Mole poblano con pollo' },
        { cantidad: 4, descripcion: 'Agua de jamaica', modificadores: ['Poco hielo'] },
        { cantidad: 1, descripcion: 'Café de olla' },
        { cantidad: 2, descripcion: 'Pan de elote', comentario: 'Para llevar' },
        { cantidad: 1, descripcion: 'Flan napolitano con cajeta y nuez (sin nuez)' },
      ],
    },
  ],
};

const previewOrder = printOrderBody.extend({ grupos: z.array(printGroup.extend({ printerId: printerId.optional() })).min(1) });

function readOrder(file: string): z.output<typeof previewOrder> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = previewOrder.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not a print-order body:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

function previewTarget(opts: PrintPreviewOptions): PrinterTargetParams {
  const kind = printerKind.safeParse(opts.kind ?? 'thermal');
  if (!kind.success) throw new Error(`kind must be thermal or label, not ${String(opts.kind)}`);
  const width = widthMm.safeParse(Number(opts.widthMm ?? 80));
  if (!width.success) throw new Error(`widthMm ${width.error.issues[0]!.message}, not ${String(opts.widthMm)}`);
  return { printerIp: 'preview', printerPort: 9100, displayName: 'Vista previa', kind: kind.data, widthMm: width.data, ...LABEL_DEFAULTS };
}

export async function runPrintPreview(opts: PrintPreviewOptions): Promise<PrintPreview> {
  const target = previewTarget(opts);
  const date = opts.date ?? new Date();
  const sample = opts.sample ?? 'kitchen';
  if (sample !== 'kitchen' && sample !== 'test') throw new Error(`sample must be kitchen or test, not ${String(sample)}`);
  let bytes: Buffer;
  if (opts.ticket || sample === 'kitchen') {
    const order = opts.ticket ? readOrder(opts.ticket) : previewOrder.parse(SAMPLE_ORDER);
    const jobs = await Promise.all(order.grupos.map((group) => renderKitchenJob(target, kitchenTicketOf(order, group, date), group.copias)));
    bytes = Buffer.concat(jobs);
  } else {
    bytes = await renderTestJob(target, { title: 'PRUEBA', message: 'IMPRESORA OK - IGNORAR', printerName: target.displayName, date });
  }
  const job = toReceivedJob(bytes, date);
  const out = path.resolve(opts.out);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, renderPreviewPng(job));
  const write = opts.write ?? ((text: string) => process.stdout.write(text));
  write(`${job.text}\n`);
  write(`\n${bytes.length} bytes of ${job.kind === 'tspl' ? 'TSPL' : 'ESC/POS'}; picture written to ${out}\n`);
  return { bytes, kind: job.kind, text: job.text, out };
}
