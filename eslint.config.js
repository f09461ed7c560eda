// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import pluginVue from 'eslint-plugin-vue';
import vueParser from 'vue-eslint-parser';

// Layering (DEVELOPERS.md, design/anchors.md "Allowed imports"). Do not relax these rules; move code instead.
//   shared/            → nothing (no Node, no platform module, no other layer)
//   electron/main/**   → shared/, Node; no 'electron' except electron/main/index.ts; devnet only in demo.ts
//   electron/preload/  → shared/ipc/names + 'electron' (renderer-side APIs)
//   renderer/          → shared/, vue, pinia, vue-router; never electron/, devnet/ or Node
//   devnet/, cli/      → shared/ only (plus Node); one exception: cli/spyglass/context.ts opens the
//                        main process's services (the headless app, #31) — only electron/main/, never
//                        'electron', the renderer or the devnet
const nodeBuiltins = ['node:*', 'fs', 'path', 'http', 'https', 'net', 'os', 'crypto', 'child_process', 'url', 'zlib', 'stream', 'events', 'util', 'buffer', 'worker_threads'];
const nativeModules = ['keytar', 'better-sqlite3'];

const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parser: vueParser, parserOptions: { parser: tseslint.parser, sourceType: 'module', extraFileExtensions: ['.vue'] } },
  },
  {
    // TypeScript (tsc / vue-tsc) already checks that every name exists, with the right lib per layer.
    files: ['**/*.ts', '**/*.vue'],
    rules: { 'no-undef': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/multi-word-component-names': 'off',
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: restrict(
      { group: nodeBuiltins, message: 'shared/ is pure TypeScript: no Node modules.' },
      { group: ['electron', 'vue', 'pinia', 'vue-router', ...nativeModules], message: 'shared/ imports no platform module.' },
      { group: ['**/electron/**', '**/renderer/**', '**/devnet/**'], message: 'shared/ never imports another layer.' },
    ),
  },
  {
    files: ['devnet/**/*.ts'],
    rules: restrict(
      { group: ['**/electron/**', '**/renderer/**'], message: 'devnet/ imports shared/ only.' },
      { group: ['electron', 'vue', 'pinia', 'vue-router', ...nativeModules], message: 'devnet/ imports shared/ only.' },
    ),
  },
  {
    files: ['electron/main/**/*.ts'],
    ignores: ['electron/main/index.ts', 'electron/main/demo.ts'],
    rules: restrict(
      { group: ['electron'], message: "Only electron/main/index.ts imports 'electron': services stay plain Node and testable." },
      { group: ['**/renderer/**', '**/preload/**', 'vue', 'pinia', 'vue-router'], message: 'main never imports the renderer or preload.' },
      { group: ['**/devnet/**'], message: 'Only electron/main/demo.ts starts the devnet.' },
    ),
  },
  {
    files: ['electron/main/index.ts', 'electron/main/demo.ts'],
    rules: restrict({ group: ['**/renderer/**', '**/preload/**', 'vue', 'pinia', 'vue-router'], message: 'main never imports the renderer or preload.' }),
  },
  {
    files: ['electron/preload/**/*.ts'],
    rules: restrict(
      { group: [...nodeBuiltins, ...nativeModules], message: 'The sandboxed preload has no Node modules.' },
      { group: ['**/electron/main/**', '**/renderer/**', '**/devnet/**', '**/shared/ipc/contract*', 'zod'], message: 'The preload imports only shared/ipc/names and electron.' },
    ),
  },
  {
    files: ['cli/**/*.ts'],
    rules: restrict(
      { group: ['electron', 'vue', 'pinia', 'vue-router', ...nativeModules], message: 'cli/ imports shared/ and Node only.' },
      { group: ['**/electron/**', '**/renderer/**', '**/devnet/**'], message: 'cli/ imports shared/ and Node only.' },
    ),
  },
  {
    files: ['cli/spyglass/context.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['electron', 'vue', 'pinia', 'vue-router', ...nativeModules].map((name) => ({ name, message: 'The headless app reaches Electron-free services only.' })),
          patterns: [{ group: ['**/renderer/**', '**/devnet/**', '**/electron/preload/**', '**/electron/main/index'], message: 'The headless app reaches Electron-free services only.' }],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    rules: restrict(
      { group: ['electron', ...nodeBuiltins, ...nativeModules], message: 'The renderer has no Node or Electron: it talks to main only through window.api (renderer/src/api).' },
      { group: ['**/electron/**', '**/devnet/**'], message: 'renderer/ imports shared/ only — never electron/ or devnet/.' },
    ),
  },
  {
    // Plain-Node scripts that run before anything is built (npm start, helpers they load).
    files: ['scripts/**/*.mjs', 'scripts/**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', globalThis: 'readonly', require: 'readonly' } },
  },
);
