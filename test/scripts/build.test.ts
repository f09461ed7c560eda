// The renderer's production build (the same Vite config electron-vite uses) prints no warning: a
// warning there once meant a script of index.html was left unbundled (public/early.js referenced by
// a relative path). Built into a temp folder, so the out/ that the e2e files read is left alone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, build, type InlineConfig } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import config from '../../electron.vite.config';

const outDir = mkdtempSync(join(tmpdir(), 'spyglass-build-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('renderer build', () => {
  it('builds with no warning, and the early script keeps its place before the stylesheet', async () => {
    const warnings: string[] = [];
    const logger = createLogger('warn');
    logger.warn = (msg) => void warnings.push(msg);
    logger.warnOnce = (msg) => void warnings.push(msg);
    const renderer = (config as { renderer: InlineConfig }).renderer;
    await build({ ...renderer, configFile: false, logLevel: 'warn', customLogger: logger, build: { ...renderer.build, outDir, emptyOutDir: true } });
    expect(warnings).toEqual([]);
    const html = readFileSync(join(outDir, 'index.html'), 'utf8');
    expect(html).toMatch(/<script src="\.\/early\.js"><\/script>[\s\S]*<link rel="stylesheet"/);
    expect(readFileSync(join(outDir, 'early.js'), 'utf8')).toContain("'connection:status'");
  });
});
