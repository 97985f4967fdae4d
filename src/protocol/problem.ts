import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { printResult } from './operations/printing.js';

/**
 * RFC 9457 problem details as the API sends them, served as application/problem+json. These are
 * the members clients can rely on; a problem may carry more (an agent's refusal adds its details,
 * e.g. the idTurno of the shift already open), so other properties are allowed.
 */
export const problemSchema = z
  .looseObject({
    type: z.string().describe('URI of the problem type: …/problems/<code>'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    instance: z.string().optional().describe('the request path; absent when the request reached no route of the API'),
    jobId: z.string().optional().describe('the job the agent ran, when one ran'),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('validation_failed: each field that is wrong, e.g. body.productos.0.cantidad'),
    orderRef: z.string().optional().describe('printer_failed: the print job at the branch'),
    results: z.array(printResult).optional().describe('printer_failed: what each printer did with its part'),
  })
  .describe('RFC 9457 problem details');
