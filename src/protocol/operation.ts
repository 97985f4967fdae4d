/**
 * One operation, one schema: `input` is validated by the gateway (HTTP) and again by the agent
 * before it touches the database; `output` documents the result in OpenAPI.
 */
import type { z } from 'zod';

export interface OperationDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly input: I;
  readonly output: O;
  /** Writes run in one transaction with an exactly-once idempotency record. */
  readonly write: boolean;
  /**
   * The write does something outside the database that a rollback cannot undo (it prints):
   * once done, its record is committed even past the job's deadline, so that a retry answers
   * from it instead of doing it again.
   */
  readonly outsideEffect?: boolean;
}

/**
 * An operation as its module declares it: the schemas are built on first use. The agent builds
 * the inputs of the operations it runs and never an output (only the gateway's OpenAPI reads
 * them); built at start, they were 0.8 MB of its idle heap.
 */
export interface OperationSpec<I extends z.ZodType, O extends z.ZodType> extends Omit<OperationDef<I, O>, 'input' | 'output'> {
  input: () => I;
  output: () => O;
}

export function defineOperation<I extends z.ZodType, O extends z.ZodType>(spec: OperationSpec<I, O>): OperationDef<I, O> {
  let input: I | undefined;
  let output: O | undefined;
  return {
    name: spec.name,
    write: spec.write,
    outsideEffect: spec.outsideEffect,
    get input() {
      return (input ??= spec.input());
    },
    get output() {
      return (output ??= spec.output());
    },
  };
}

export type OpInput<D extends OperationDef> = z.output<D['input']>;
export type OpOutput<D extends OperationDef> = z.input<D['output']>;
