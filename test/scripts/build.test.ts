// The renderer's production build (the same Vite config electron-vite uses) prints no warning: a
// warning there once meant a script of index.html was left unbundled (public/early.js referenced by
// a relative path). Built into a temp folder, so the out/ that the e2e files read is left alone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, build, createServer, type InlineConfig } from 'vite';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import config from '../../electron.vite.config';

type Env = { command: 'build' | 'serve'; mode: string };
const rendererOf = (command: Env['command']): InlineConfig => (config as unknown as (env: Env) => { renderer: InlineConfig })({ command, mode: command === 'build' ? 'production' : 'development' }).renderer;

const outDir = mkdtempSync(join(tmpdir(), 'spyglass-build-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('renderer build', () => {
  it('builds with no warning, and the early script keeps its place before the stylesheet', async () => {
    const warnings: string[] = [];
    const logger = createLogger('warn');
    logger.warn = (msg) => void warnings.push(msg);
    logger.warnOnce = (msg) => void warnings.push(msg);
    const renderer = rendererOf('build');
    expect(renderer.html?.cspNonce).toBeUndefined();
    await build({ ...renderer, configFile: false, logLevel: 'warn', customLogger: logger, build: { ...renderer.build, outDir, emptyOutDir: true } });
    expect(warnings).toEqual([]);
    const html = readFileSync(join(outDir, 'index.html'), 'utf8');
    expect(html).toMatch(/<script src="\.\/early\.js"><\/script>[\s\S]*<link rel="stylesheet"/);
    expect(readFileSync(join(outDir, 'early.js'), 'utf8')).toContain("'connection:status'");
  });

  it('npm run dev: the dev server\'s injected component styles carry the nonce its CSP allows, and Chromium applies them', async () => {
    const renderer = rendererOf('serve');
    const nonce = renderer.html?.cspNonce;
    expect(nonce).toMatch(/^[A-Za-z0-9+/=]{24}$/);
    const server = await createServer({ ...renderer, configFile: false, logLevel: 'silent', server: { port: 0, strictPort: false, host: '127.0.0.1' } });
    await server.listen();
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    try {
      const url = server.resolvedUrls!.local[0]!;
      const html = await (await fetch(url)).text();
      expect(html).toContain(`style-src 'self' 'nonce-${nonce}'`);
      const page = await browser.newPage();
      const refused: string[] = [];
      page.on('console', (m) => void (/Content Security Policy/.test(m.text()) && /style/.test(m.text()) && refused.push(m.text())));
      await page.goto(url);
      // App.vue's scoped styles arrive as <style> tags with the nonce, and nothing was refused
      await page.waitForFunction(() => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll('style[nonce]').length > 0, undefined, { timeout: 30_000 });
      expect(refused).toEqual([]);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
