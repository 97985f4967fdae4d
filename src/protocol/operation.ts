/**
 * One operation, one definition: its name, its schemas (`input` is validated by the gateway and
 * again by the agent before it touches the database; `output` documents the result in OpenAPI)
 * and, for a write, the POS records it changes (`marks`).
 */
import type { z } from 'zod';

/** `cierre`: a shift close, whose changes (the shift, the accounts it moves) a poll may see in two halves. */
export type OriginKind = 'orden' | 'turno' | 'cierre' | 'producto';

/** One record a write changed: the poll that finds the change reports it as made by the write's job. */
export interface OriginMark {
  kind: OriginKind;
  entity: string;
}

/** The mark of one record, or none when the write could not name it. */
export function origin(kind: OriginKind, entity: string | number | undefined): OriginMark | undefined {
  return entity === undefined ? undefined : { kind, entity: String(entity) };
}

export interface OperationDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly input: I;
  readonly output: O;
  /** Writes run in one transaction with an exactly-once idempotency record. */
  readonly write: boolean;
  /**
   * Whether a job with these (not yet validated) parameters sends bytes to a printer: the agent
   * runs such jobs in slots of their own, so that a printer that hangs cannot hold the others'.
   */
  usesPrinter?(params: unknown): boolean;
  /**
   * The records a write changes, from its input and its result, marked in its transaction so
   * that events tell its changes from a terminal's (pos/events/origins.ts). Every write declares
   * them, `() => []` when it changes no Soft Restaurant record; without them its changes would be
   * reported as made at the POS.
   */
  marks?(input: z.output<I>, result: z.input<O>): Array<OriginMark | undefined>;
}

/**
 * An operation as its module declares it: the schemas are built on first use. The agent builds
 * the inputs of the operations it runs and never an output (only the gateway's OpenAPI reads
 * them); built at start, they were 0.8 MB of its idle heap.
 */
export type OperationSpec<I extends z.ZodType, O extends z.ZodType> = Pick<OperationDef<I, O>, 'name'> & {
  input: () => I;
  output: () => O;
} & ({ write: false } | ({ write: true; marks: NonNullable<OperationDef<I, O>['marks']> } & Pick<OperationDef<I, O>, 'usesPrinter'>));

export function defineOperation<I extends z.ZodType, O extends z.ZodType>(spec: OperationSpec<I, O>): OperationDef<I, O> {
  let input: I | undefined;
  let output: O | undefined;
  return {
    name: spec.name,
    write: spec.write,
    ...(spec.write ? { usesPrinter: spec.usesPrinter, marks: spec.marks } : {}),
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
