import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'electron-vite';

const root = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
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
    plugins: [vue()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      emptyOutDir: true,
      rollupOptions: { input: resolve(root, 'renderer/index.html') },
    },
  },
});
