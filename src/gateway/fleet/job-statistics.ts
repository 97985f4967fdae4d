/**
 * What the job log says of a branch's last 24 hours: its jobs, failures and times, all
 * operations together and hour by hour (the fleet list's columns and sparklines), or by
 * operation (one branch's page). Percentiles are exact, computed by PostgreSQL over the
 * branch's rows found through ix_gw_job_log_branch_started.
 */
import { sql, type Kysely } from 'kysely';
import type { BranchActivity, OperationStats } from '../../protocol/fleet.js';
import type { GatewayDatabase } from '../store-schema.js';

const NO_ACTIVITY: BranchActivity = { jobs: 0, failures: 0, p50Ms: null, p99Ms: null, hourly: [] };

const stats = {
  jobs: sql<string>`count(*)`,
  failures: sql<string>`count(*) filter (where outcome <> 'ok')`,
  p50: sql<number>`percentile_disc(0.5) within group (order by duration_ms)`,
  p99: sql<number>`percentile_disc(0.99) within group (order by duration_ms)`,
};

/**
 * Each branch's jobs since `since`, whole and by hour (UTC hours, so a zone with a half-hour
 * offset does not shift them). One pass over the log: grouping sets give the whole span (no
 * hour) and each hour from the same rows.
 */
export async function activityOf(db: Kysely<GatewayDatabase>, licenseKeys: readonly string[], since: Date): Promise<Map<string, BranchActivity>> {
  const found = new Map<string, BranchActivity>();
  if (licenseKeys.length === 0) return found;
  const hour = sql<Date | null>`date_trunc('hour', started_at, 'UTC')`;
  const rows = await db
    .selectFrom('gw_job_log')
    .select(['license_key', hour.as('hour'), stats.jobs.as('jobs'), stats.failures.as('failures'), stats.p50.as('p50'), stats.p99.as('p99')])
    .where('license_key', 'in', licenseKeys)
    .where('started_at', '>=', since)
    .groupBy(sql`grouping sets ((license_key), (license_key, ${hour}))`)
    .orderBy(hour)
    .execute();
  const numbers = (row: (typeof rows)[number]) => ({ jobs: Number(row.jobs), failures: Number(row.failures), p50Ms: Number(row.p50), p99Ms: Number(row.p99) });
  for (const row of rows) if (row.hour === null) found.set(row.license_key, { ...numbers(row), hourly: [] });
  for (const row of rows) if (row.hour !== null) found.get(row.license_key)!.hourly.push({ hour: new Date(row.hour).toISOString(), ...numbers(row) });
  return new Map(licenseKeys.map((k) => [k, found.get(k) ?? { ...NO_ACTIVITY, hourly: [] }]));
}

/** One branch's jobs since `since`, by operation. */
export async function operationsOf(db: Kysely<GatewayDatabase>, licenseKey: string, since: Date): Promise<OperationStats[]> {
  const rows = await db
    .selectFrom('gw_job_log')
    .where('license_key', '=', licenseKey)
    .where('started_at', '>=', since)
    .groupBy('op')
    .orderBy('op')
    .select(['op', stats.jobs.as('jobs'), stats.failures.as('failures'), stats.p50.as('p50'), stats.p99.as('p99')])
    .execute();
  return rows.map((o) => ({ op: o.op, jobs: Number(o.jobs), failures: Number(o.failures), p50Ms: Number(o.p50), p99Ms: Number(o.p99) }));
}
