/** What the agents bench (agents.ts) asks of its load generator (load-generator.ts), and what it answers. */
export const RATE_PER_SECOND = 1_000;
export const API_KEY = 'agents-bench-key';

export interface LoadOrder {
  url: string;
  licenseKeys: string[];
  first: number;
  seconds: number;
}

export interface LoadResult {
  p50: number;
  p99: number;
  /** The rate at which requests actually left. */
  sentPerSecond: number;
  /** This process's CPU time over the load. */
  cpuMs: number;
}
