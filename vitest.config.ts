import { defineConfig } from 'vitest/config';
import { sqlServerSource } from './test/support/sqlserver-source.js';

/** Every test that touches a POS database: what runs again on SR 10 and on SQL Server. */
const POS_SUITES = ['test/e2e/**/*.test.ts', 'test/integration/{resilience,service}.test.ts'];

const sqlServer = sqlServerSource();

/**
 * Three projects: the whole suite on the Soft Restaurant 11 reference schema; every test that
 * touches a POS database again on the SR 10 schema (no WorkspaceId, 2-decimal line discounts,
 * no discount maximums), so the agent's adaptation to older installations is tested for real;
 * and the same tests plus the T-SQL scenarios on SQL Server (MSSQL_URL, or testcontainers when
 * a Docker engine runs). Without a SQL Server the `mssql` project holds one file that says why.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The mssql project's teardown drops each of its databases; vitest's 10 s default would cut it short.
    teardownTimeout: 180_000,
    pool: 'forks',
    // .ci/run runs the suite twice (Node 20 and Node 24) and names each run's report.
    reporters: process.env.CI
      ? ['default', ['./test/support/ci-json-reporter.ts', { outputFile: process.env.VITEST_REPORT ?? '.vitest-report.json' }]]
      : ['default'],
    projects: [
      { extends: true, test: { name: 'sr11', include: ['test/**/*.test.ts'], exclude: ['test/mssql/**'] } },
      { extends: true, test: { name: 'sr10', include: POS_SUITES } },
      {
        extends: true,
        test: {
          name: 'mssql',
          include: 'skip' in sqlServer ? ['test/mssql/**/*.test.ts'] : [...POS_SUITES, 'test/tsql/**/*.test.ts', 'test/mssql/**/*.test.ts'],
          provide: { sqlServerSource: sqlServer },
          // Each SQL Server test database is created and filled afresh (no templates there).
          hookTimeout: 300_000,
          testTimeout: 120_000,
        },
      },
    ],
  },
});
