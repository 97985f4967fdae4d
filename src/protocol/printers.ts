/**
 * The printer registry (docs/api.md, Printers): what a client sends to register or change a
 * printer, the record the gateway answers with, and the target the gateway puts into a print job
 * so the agent knows where and how to print. Printers belong to the API key's user.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { licenseKey } from './common.js';

export const PRINTER_KINDS = ['thermal', 'label'] as const;
/**
 * Thermal paper widths the registry takes, in whole millimetres: the seed's "typically 58 or 80",
 * and the rolls between and around them (76 mm, 112 mm).
 */
export const PAPER_WIDTH_MM = { min: 48, max: 112 } as const;
export const DEFAULT_PRINTER_PORT = 9100;

/** Defaults of the label fields (also returned, and ignored, for thermal printers). */
export const LABEL_DEFAULTS = {
  labelWidthMm: 50,
  labelHeightMm: 25,
  labelGapMm: 2,
  labelDpi: 203,
  labelDensity: 8,
  labelSpeed: 4,
} as const;

/**
 * A printer's id as the registry writes it: a UUID in lower case. Another spelling of the same
 * UUID is refused rather than matched, so that one printer has one id (in URLs, caches, logs).
 */
export const printerId = z
  .uuid({ error: 'must be a printer id (UUID)' })
  .refine((id) => id === id.toLowerCase(), 'must be a printer id as the registry writes it: a UUID in lower case')
  .describe('the printer id the registry answered: a UUID in lower case');

const HOST_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * An IPv4 or IPv6 address, or a DNS host name (the agent resolves it on the branch's LAN, for
 * printers that get their address by DHCP). Something that looks like an IPv4 address but is not
 * one (`192.168.1.300`) is rejected rather than taken as a host name.
 */
export function isPrinterHost(value: string): boolean {
  if (isIP(value) !== 0) return true;
  if (value.length > 253 || /^[\d.]+$/.test(value)) return false;
  return value
    .replace(/\.$/, '')
    .split('.')
    .every((label) => HOST_LABEL.test(label));
}

export const printerIp = z
  .string()
  .trim()
  .max(253)
  .refine(isPrinterHost, 'must be an IPv4 or IPv6 address or a host name')
  .describe('IPv4/IPv6 address or host name of the printer on the branch LAN');
export const printerPort = z.number().int().min(1, 'must be 1..65535').max(65535, 'must be 1..65535');
export const printerKind = z.enum(PRINTER_KINDS, { error: 'must be "thermal" or "label"' });
const widthMessage = `must be a whole number of millimetres, ${PAPER_WIDTH_MM.min} to ${PAPER_WIDTH_MM.max}`;
export const widthMm = z
  .number({ error: widthMessage })
  .int(widthMessage)
  .min(PAPER_WIDTH_MM.min, widthMessage)
  .max(PAPER_WIDTH_MM.max, widthMessage)
  .describe(`paper width in mm, ${PAPER_WIDTH_MM.min} to ${PAPER_WIDTH_MM.max} (typically 58 or 80); required for thermal printers`);

/** At most 2 decimals, as the store keeps them (numeric(6,2)). */
const millimetres = (min: number, max: number) =>
  z
    .number()
    .min(min)
    .max(max)
    .refine((n) => Number(n.toFixed(2)) === n, 'at most 2 decimals');

export const labelFields = {
  labelWidthMm: millimetres(10, 120).describe('label width in mm (label printers)'),
  labelHeightMm: millimetres(5, 300).describe('label height in mm (label printers)'),
  labelGapMm: millimetres(0, 20).describe('gap between labels in mm (label printers)'),
  labelDpi: z.literal([203, 300, 600], { error: 'must be 203, 300 or 600' }).describe('print head resolution (label printers)'),
  labelDensity: z.number().int().min(0).max(15).describe('TSPL DENSITY 0..15 (label printers)'),
  labelSpeed: z.number().int().min(1).max(15).describe('TSPL SPEED in inches per second (label printers)'),
};

const optionalText = (max: number) => z.string().max(max).nullable().optional();

const editableFields = {
  printerIp,
  printerPort,
  displayName: z.string().trim().min(1, 'must not be empty').max(100),
  kind: printerKind,
  source: optionalText(100).describe('where the record comes from, free text (e.g. "softrestaurant", "manual")'),
  sourceId: optionalText(100).describe("the printer's id in that source"),
};

type WidthRule = { kind?: string; widthMm?: number | null };

export const WIDTH_REQUIRED = `is required for thermal printers (${PAPER_WIDTH_MM.min} to ${PAPER_WIDTH_MM.max})`;

/** The seed: widthMm is required for thermal printers. */
export function checkWidthRule(printer: WidthRule, ctx: z.core.$RefinementCtx, path: PropertyKey[] = ['widthMm']): void {
  if (printer.kind === 'thermal' && (printer.widthMm === undefined || printer.widthMm === null)) {
    ctx.addIssue({ code: 'custom', path, message: WIDTH_REQUIRED });
  }
}

/**
 * The seed: the label fields of a thermal printer "are returned with default values and ignored
 * when printing". What a client sent for them is not kept, so the printer turned into a label
 * printer later starts from the defaults too.
 */
export function withThermalLabelDefaults<T extends { kind?: string }>(printer: T, kind = printer.kind): T {
  return kind === 'thermal' ? { ...printer, ...LABEL_DEFAULTS } : printer;
}

/** POST /print/printers */
export const printerCreate = z
  .object({
    licenseKey,
    ...editableFields,
    printerPort: printerPort.default(DEFAULT_PRINTER_PORT),
    widthMm: widthMm.nullable().optional(),
    labelWidthMm: labelFields.labelWidthMm.default(LABEL_DEFAULTS.labelWidthMm),
    labelHeightMm: labelFields.labelHeightMm.default(LABEL_DEFAULTS.labelHeightMm),
    labelGapMm: labelFields.labelGapMm.default(LABEL_DEFAULTS.labelGapMm),
    labelDpi: labelFields.labelDpi.default(LABEL_DEFAULTS.labelDpi),
    labelDensity: labelFields.labelDensity.default(LABEL_DEFAULTS.labelDensity),
    labelSpeed: labelFields.labelSpeed.default(LABEL_DEFAULTS.labelSpeed),
  })
  .superRefine((p, ctx) => checkWidthRule(p, ctx));

/**
 * PATCH (or PUT) /print/printers/{id}: the fields sent replace the stored ones, the others are
 * kept. The width rule is checked on the merged record, so it is not part of this schema.
 */
export const printerUpdate = z.object({
  licenseKey: licenseKey.optional(),
  printerIp: editableFields.printerIp.optional(),
  printerPort: printerPort.optional(),
  displayName: editableFields.displayName.optional(),
  kind: printerKind.optional(),
  widthMm: widthMm.nullable().optional(),
  source: editableFields.source,
  sourceId: editableFields.sourceId,
  labelWidthMm: labelFields.labelWidthMm.optional(),
  labelHeightMm: labelFields.labelHeightMm.optional(),
  labelGapMm: labelFields.labelGapMm.optional(),
  labelDpi: labelFields.labelDpi.optional(),
  labelDensity: labelFields.labelDensity.optional(),
  labelSpeed: labelFields.labelSpeed.optional(),
});

export const printerRecord = z.object({
  id: z.string(),
  workerId: z.string().nullable().describe("workerId of the branch's connected agent; null while it is offline"),
  licenseKey: z.string(),
  printerIp: z.string(),
  printerPort: z.number().int(),
  displayName: z.string(),
  kind: printerKind,
  widthMm: z.number().int().nullable(),
  source: z.string().nullable(),
  sourceId: z.string().nullable(),
  labelWidthMm: z.number(),
  labelHeightMm: z.number(),
  labelGapMm: z.number(),
  labelDpi: z.number().int(),
  labelDensity: z.number().int(),
  labelSpeed: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const printerList = z.object({ totalResults: z.number().int(), data: z.array(printerRecord) });

export const branchPrinter = printerRecord.pick({ id: true, printerIp: true, printerPort: true, displayName: true, widthMm: true, kind: true });

/** GET /print/{licenseKey}/printers */
export const branchPrinterList = z.object({
  workerId: z.string().nullable().describe("workerId of the branch's connected agent; null while it is offline"),
  totalResults: z.number().int(),
  data: z.array(branchPrinter),
});

export const printerListQuery = z.object({ licenseKey: licenseKey.optional() });
export const printerIdParams = z.object({ id: printerId });
export const branchParams = z.object({ licenseKey });

export type PrinterCreate = z.output<typeof printerCreate>;
export type PrinterUpdate = z.output<typeof printerUpdate>;
export type PrinterRecord = z.output<typeof printerRecord>;
/** A printer as the store keeps it: the record without the live workerId. */
export type StoredPrinter = Omit<PrinterRecord, 'workerId'>;

/**
 * Where and how the agent prints, as the gateway resolves it from the registry into the job's
 * params. The client never sends it: it only names printers by id.
 */
export const printerTarget = z.object({
  printerIp,
  printerPort,
  displayName: z.string(),
  kind: printerKind,
  widthMm: widthMm.nullable(),
  ...labelFields,
});

export type PrinterTargetParams = z.output<typeof printerTarget>;

export function toPrinterTarget(p: StoredPrinter): PrinterTargetParams {
  return {
    printerIp: p.printerIp,
    printerPort: p.printerPort,
    displayName: p.displayName,
    kind: p.kind,
    widthMm: p.widthMm,
    labelWidthMm: p.labelWidthMm,
    labelHeightMm: p.labelHeightMm,
    labelGapMm: p.labelGapMm,
    labelDpi: p.labelDpi as 203 | 300 | 600,
    labelDensity: p.labelDensity,
    labelSpeed: p.labelSpeed,
  };
}
