import type { OperationDef, OpInput, OpOutput } from '../protocol/operation.js';
import type { PosContext } from './context.js';

/** Binds an operation's schema (protocol/) to the one function that performs it. */
export interface Implementation<D extends OperationDef = OperationDef> {
  def: D;
  run(ctx: PosContext, input: OpInput<D>): Promise<OpOutput<D>>;
}

export function implement<D extends OperationDef>(def: D, run: Implementation<D>['run']): Implementation<D> {
  return { def, run };
}
