// The renderer's production build (the same Vite config electron-vite uses) prints no warning: a
// warning there once meant a script of index.html was left unbundled (public/early.js referenced by
// a relative path). Built into a temp folder, so the out/ that the e2e files read is left alone.
// No warning may depend on how busy the machine is: rolldown's PLUGIN_TIMINGS check (JavaScript
// callbacks took most of a build over 3 s) once failed a clean CI run; the config turns it off.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, build, createServer, type InlineConfig, type PluginOption } from 'vite';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import config from '../../electron.vite.config';

type Env = { command: 'build' | 'serve'; mode: string };
type Configs = Record<'main' | 'preload' | 'renderer', InlineConfig>;
const configsOf = (command: Env['command']): Configs => (config as unknown as (env: Env) => Configs)({ command, mode: command === 'build' ? 'production' : 'development' });
const rendererOf = (command: Env['command']): InlineConfig => configsOf(command).renderer;

/**
 * A plugin whose buildStart takes 3.5 s without using the CPU: to rolldown's timing check, the build
 * of a busy machine (JavaScript callbacks are most of a build longer than 3 s). With the check on,
 * this build always warns [PLUGIN_TIMINGS]; it must not.
 */
const slowAsABusyMachine: PluginOption = {
  name: 'test-slow-as-a-busy-machine',
  buildStart: () => new Promise<void>((done) => setTimeout(done, 3_500)),
};

const outDir = mkdtempSync(join(tmpdir(), 'spyglass-build-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('renderer build', () => {
  it('the build-timing check is off in every build (main, preload, renderer)', () => {
    for (const [name, c] of Object.entries(configsOf('build'))) expect({ name, checks: c.build?.rolldownOptions?.checks }).toEqual({ name, checks: { bundlerTimings: false } });
  });

  it('builds with no warning, also when its plugins take most of the build (a busy machine), and the early script keeps its place before the stylesheet', async () => {
    const warnings: string[] = [];
    const logger = createLogger('warn');
    logger.warn = (msg) => void warnings.push(msg);
    logger.warnOnce = (msg) => void warnings.push(msg);
    const renderer = rendererOf('build');
    expect(renderer.html?.cspNonce).toBeUndefined();
    const plugins = [...(renderer.plugins ?? []), slowAsABusyMachine];
    await build({ ...renderer, plugins, configFile: false, logLevel: 'warn', customLogger: logger, build: { ...renderer.build, outDir, emptyOutDir: true } });
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
