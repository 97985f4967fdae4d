/** Which of the gateway's V8 flags a command line lacks: the operator's own settings are kept. */
import { expect, it } from 'vitest';
import { missingGatewayNodeFlags } from '../../src/gateway/heap-growth.js';

it('adds only the flags a command line sets neither way, whatever their spelling', () => {
  expect(missingGatewayNodeFlags(['--import', 'tsx'])).toEqual(['--no-memory-reducer', '--max-semi-space-size=32']);
  expect(missingGatewayNodeFlags(['--no-memory-reducer', '--max-semi-space-size=32'])).toEqual([]);
  // An operator who wants the reducer, or other semi-spaces, keeps them.
  expect(missingGatewayNodeFlags(['--memory_reducer'])).toEqual(['--max-semi-space-size=32']);
  expect(missingGatewayNodeFlags(['--max_semi_space_size=8', '--no_memory_reducer'])).toEqual([]);
  // A value may come as its own argument.
  expect(missingGatewayNodeFlags(['--max-semi-space-size', '64'])).toEqual(['--no-memory-reducer']);
  // NODE_OPTIONS may carry the semi-space size (not the reducer, which Node refuses there).
  expect(missingGatewayNodeFlags(['--import', 'tsx'], '--max-semi-space-size=64 --enable-source-maps')).toEqual(['--no-memory-reducer']);
});
