import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The files that run against real Bitcoin Core (test/support/bitcoind.ts): project `core`, which
 * `npm run test:core` (scripts/test-core.sh) runs once per Core generation. Project `unit` is
 * everything else. `vitest run FILE` finds a file in either project.
 */
export const REAL_CORE_FILES = [
  'test/support/bitcoind.test.ts',
  'test/devnet/bitcoind-parity.test.ts',
  'test/devnet/follow-bitcoind.test.ts',
  'test/main/refresh-external.test.ts',
  'test/main/refresh-incremental-core.test.ts',
  'test/main/wallet-core.test.ts',
  'test/main/no-index-core.test.ts',
  'test/main/wallet-stop-core.test.ts',
  'test/main/send-core.test.ts',
  'test/e2e/core-node.e2e.test.ts',
  'test/e2e/send-core.e2e.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...REAL_CORE_FILES] } },
      { extends: true, test: { name: 'core', include: REAL_CORE_FILES } },
    ],
  },
});
