/**
 * One operation, one schema: `input` is validated by the gateway (HTTP) and again by the agent
 * before it touches the database; `output` documents the result in OpenAPI.
 */
import type { z } from 'zod';

export interface OperationDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  input: I;
  output: O;
  /** Writes run in one transaction with an exactly-once idempotency record. */
  write: boolean;
  /**
   * The write does something outside the database that a rollback cannot undo (it prints):
   * once done, its record is committed even past the job's deadline, so that a retry answers
   * from it instead of doing it again.
   */
  outsideEffect?: boolean;
}

export function defineOperation<I extends z.ZodType, O extends z.ZodType>(def: OperationDef<I, O>): OperationDef<I, O> {
  return def;
}

export type OpInput<D extends OperationDef> = z.output<D['input']>;
export type OpOutput<D extends OperationDef> = z.input<D['output']>;
