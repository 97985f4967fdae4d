/**
 * The time an agent has for a job (src/gateway/hub/jobs.ts): the gateway's timeout less a margin
 * and less the connection's round trip, so that a write committed at the end of it is answered
 * before the gateway answers 504.
 */
import { describe, expect, it } from 'vitest';
import { agentBudget } from '../../src/gateway/hub/jobs.js';

describe('agentBudget', () => {
  it('leaves a tenth of the timeout, at most a second, on a quick link', () => {
    expect(agentBudget(30_000)).toBe(29_000);
    expect(agentBudget(5_000)).toBe(4_500);
    expect(agentBudget(30_000, 0)).toBe(29_000);
  });

  it('takes the round trip the last ping measured out of it too', () => {
    expect(agentBudget(30_000, 1_500)).toBe(27_500);
    expect(agentBudget(30_000, 0.4)).toBe(28_999);
  });

  it('takes at most a quarter of the timeout for the trip, whatever one ping measured', () => {
    expect(agentBudget(2_000, 5_000)).toBe(1_300);
    expect(agentBudget(30_000, 60_000)).toBe(21_500);
    expect(agentBudget(30_000, -3)).toBe(29_000);
  });
});
