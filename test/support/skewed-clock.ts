import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from './databases.js';

/**
 * Another gateway instance's clock, in this process: while `work` runs, `Date` (new Date(),
 * Date.now()) reads `skewMs` off the real clock, as a host whose clock is wrong would. The tests
 * run one instance's steps at a time, so each step sees its own instance's clock.
 */
export async function onSkewedClock<T>(skewMs: number, work: () => Promise<T>): Promise<T> {
  const RealDate = globalThis.Date;
  class SkewedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + skewMs);
      else super(...(args as ConstructorParameters<DateConstructor>));
    }

    static override now(): number {
      return RealDate.now() + skewMs;
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
  try {
    return await work();
  } finally {
    globalThis.Date = RealDate;
  }
}

/** Two gateway instances' connections to one new store, and a user of it named `userName`. */
export async function twoInstancesOnOneStore(userName: string): Promise<{ one: GatewayStore; other: GatewayStore; user: number }> {
  const url = await newGatewayDatabase();
  const [one, other] = [new GatewayStore(url), new GatewayStore(url)];
  return { one, other, user: await one.ensureUser(userName) };
}
