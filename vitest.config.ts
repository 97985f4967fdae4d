import { defineConfig } from 'vitest/config';

/**
 * Two projects: the whole suite on the Soft Restaurant 11 reference schema, and every test that
 * touches a POS database again on the SR 10 schema (no WorkspaceId, 2-decimal line discounts,
 * no discount maximums), so the agent's adaptation to older installations is tested for real.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
    projects: [
      { extends: true, test: { name: 'sr11', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'sr10',
          include: ['test/e2e/**/*.test.ts', 'test/integration/{resilience,service}.test.ts'],
        },
      },
    ],
  },
});
