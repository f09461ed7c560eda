import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const root = dirname(fileURLToPath(import.meta.url));

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
        // the thread heavy PSBT work runs in (electron/main/psbt/worker.ts).
        rollupOptions: {
          input: { index: resolve(root, 'electron/main/index.ts'), web: resolve(root, 'electron/main/web.ts'), 'psbt-worker': resolve(root, 'electron/main/psbt/worker.ts') },
          external: ['keytar', 'better-sqlite3'],
        },
      },
    },
    preload: {
      build: {
        outDir: 'out/preload',
        // Sandboxed preloads must be CommonJS.
        rollupOptions: { input: { index: resolve(root, 'electron/preload/index.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } },
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
        rollupOptions: { input: resolve(root, 'renderer/index.html') },
      },
    },
  };
});
