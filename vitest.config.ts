import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end tests need a build (and the real claude binary): npm run test:e2e runs them.
    exclude: ['test/e2e/**', 'node_modules/**'],
    // isolated-vm (policy conditions, the JavaScript tool) needs --no-node-snapshot on Node 20,
    // which only forked workers accept as an exec argument.
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
