import { defineConfig } from 'vitest/config';

/** End-to-end tests: the real `claude` binary against a loopback Messages API (npm run test:e2e). */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
