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
  'test/main/send-path-core.test.ts',
  'test/main/bump-any-core.test.ts',
  'test/main/send-preview-core.test.ts',
  'test/main/wallet-choice-core.test.ts',
  'test/main/pending-core.test.ts',
  'test/main/miniscript-spend-core.test.ts',
  'test/main/miniscript-timelock-core.test.ts',
  'test/main/musig-spend-core.test.ts',
  'test/e2e/core-node.e2e.test.ts',
  'test/e2e/send-core.e2e.test.ts',
  'test/e2e/bump-core.e2e.test.ts',
  'test/e2e/two-wallets-core.e2e.test.ts',
  'test/e2e/hwi-core.e2e.test.ts',
  'test/e2e/hwi-multisig-core.e2e.test.ts',
  'test/cli/spyglass-core.test.ts',
];

export default defineConfig({
  test: {
    // Generous on purpose: a limit is a hang guard, never a speed check (CI must pass with every core busy).
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // expect.poll / vi.waitFor's own default gives up after 1 s: too short for a busy machine to let the app answer.
    expect: { poll: { timeout: 60_000 } },
    pool: 'forks',
    // Three groups, each its own run: `e2e` — the Chromium files, one at a time, alone (a browser and
    // the bridge per file); `unit` — the Node-only files, two at a time (most wait on sockets, child
    // processes and SQLite, so two share the 2 cores of a CI machine well); `core` — real Bitcoin Core
    // (`npm run test:core`), two files at a time: each file has its own private bitcoind, and the files
    // spend most of their time waiting on it. `npm run test:unit` runs e2e, then unit (scripts/test-unit.sh).
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/e2e/**', ...REAL_CORE_FILES], maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], exclude: [...configDefaults.exclude, ...REAL_CORE_FILES], maxWorkers: 1, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'core', include: REAL_CORE_FILES, maxWorkers: 2, sequence: { groupOrder: 2 } } },
    ],
  },
});
