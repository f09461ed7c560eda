// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layering (DEVELOPERS.md): shared/ is pure and imports nothing from the other layers and no Node
// module; devnet/ imports shared/ only (plus Node). Do not relax these rules; move code instead.
const nodeBuiltins = ['node:*', 'fs', 'path', 'http', 'https', 'net', 'os', 'crypto', 'child_process', 'url', 'zlib', 'stream', 'events', 'util', 'buffer', 'worker_threads'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: nodeBuiltins, message: 'shared/ is pure TypeScript: no Node modules.' },
          { group: ['electron', 'vue', 'pinia', 'keytar', 'better-sqlite3'], message: 'shared/ imports no platform module.' },
          { group: ['**/electron/**', '**/renderer/**', '**/devnet/**'], message: 'shared/ never imports another layer.' },
        ],
      }],
    },
  },
  {
    files: ['devnet/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/electron/**', '**/renderer/**'], message: 'devnet/ imports shared/ only.' },
          { group: ['electron', 'vue', 'pinia', 'keytar', 'better-sqlite3'], message: 'devnet/ imports shared/ only.' },
        ],
      }],
    },
  },
);
