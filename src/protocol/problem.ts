import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

/** RFC 9457 problem details as the API sends them (documented in OpenAPI). */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
    instance: z.string(),
    jobId: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .describe('RFC 9457 problem details');
