import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const root = dirname(fileURLToPath(import.meta.url));

/**
 * Rolldown's build-time check that warns when plugin and option callbacks took a large share of the
 * build ("[PLUGIN_TIMINGS] JavaScript callbacks ran for 2.5s of this 3.0s build") is off in every
 * build: it measures wall-clock time, so it fires when the machine is busy and not when the build is
 * wrong, and it made a clean CI run fail (test/scripts/build.test.ts requires a build with no
 * warning). Build speed is a bench's question, not a build's. `bundlerTimings` is the option's name
 * in the rolldown Vite 8 ships (`pluginTimings`, its deprecated alias, does the same).
 */
const checks = { bundlerTimings: false };

/**
 * `npm run dev` only: the dev server injects each component's styles as <style> tags, which the CSP's
 * style-src 'self' refuses. Vite marks them with this nonce (html.cspNonce), the page's CSP meta gets
 * it here, and the main process adds it to its CSP header (SPYGLASS_DEV_STYLE_NONCE, inherited by the
 * Electron process electron-vite starts). A build has no nonce: its styles are linked files.
 */
function devStyleNonce(nonce: string): Plugin {
  return {
    name: 'spyglass-dev-style-nonce',
    apply: 'serve',
    transformIndexHtml: (html) => html.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`),
  };
}

export default defineConfig(({ command }) => {
  const nonce = command === 'serve' ? (process.env.SPYGLASS_DEV_STYLE_NONCE ??= randomBytes(18).toString('base64')) : null;
  return {
    main: {
      build: {
        outDir: 'out/main',
        // index: the Electron main process; web: `npm run web` (the same services behind the loopback
        // bridge), built the same way so that the browser flow runs exactly what ships; psbt-worker:
        // the thread heavy PSBT work runs in (electron/main/psbt/worker.ts); import-worker: the thread big
        // label files, address lists and wallet files are parsed and written in (electron/main/watch/import-worker.ts);
        // scan-worker: the thread animated-QR scans are decoded in (electron/main/psbt/scan-worker.ts).
        rolldownOptions: {
          checks,
          input: {
            index: resolve(root, 'electron/main/index.ts'),
            web: resolve(root, 'electron/main/web.ts'),
            'psbt-worker': resolve(root, 'electron/main/psbt/worker.ts'),
            'import-worker': resolve(root, 'electron/main/watch/import-worker.ts'),
            'scan-worker': resolve(root, 'electron/main/psbt/scan-worker.ts'),
            // cli: the headless app (`npm run -s spyglass`, cli/spyglass.ts) on the same services and workers
            cli: resolve(root, 'cli/spyglass.ts'),
          },
          // tiny-secp256k1 reads its WebAssembly file next to its own module at run time: it stays a package.
          external: ['keytar', 'better-sqlite3', 'tiny-secp256k1'],
        },
      },
    },
    preload: {
      build: {
        outDir: 'out/preload',
        // Sandboxed preloads must be CommonJS.
        rolldownOptions: { checks, input: { index: resolve(root, 'electron/preload/index.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } },
      },
    },
    renderer: {
      root: resolve(root, 'renderer'),
      base: './',
      plugins: nonce ? [vue(), devStyleNonce(nonce)] : [vue()],
      ...(nonce ? { html: { cspNonce: nonce } } : {}),
      build: {
        outDir: resolve(root, 'out/renderer'),
        emptyOutDir: true,
        rolldownOptions: { checks, input: resolve(root, 'renderer/index.html') },
      },
    },
  };
});
