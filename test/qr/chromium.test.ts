/**
 * AnimatedQr.vue cannot be mounted here (no DOM in vitest: jsdom is not installed), so this checks what it draws
 * the way a signer's camera meets it: the frames of a real PSBT's UR parts, as the component's helpers build
 * them (renderer/src/lib/qr-svg.ts → an <svg> of one <path>, the component's markup and colours), in a tiny HTML
 * page rendered by Debian's Chromium (headless, via playwright-core) at the component's default size, each
 * frame screenshotted and read by jsqr, and the parts read scanned back into the PSBT.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import jsQR from 'jsqr';
import { encodePsbtUr, PsbtUrScanner } from '../../electron/main/psbt/ur';
import { QR_SIZE, QrFrameCache, type QrFrame } from '../../renderer/src/lib/qr-svg';
import { decodePng } from './png';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const VECTORS = fileURLToPath(new URL('../../../shared/fixtures/core/bitcoin-core-psbt-vectors.jsonl', import.meta.url));

/** BIP174's first valid test vector, as recorded from Bitcoin Core. */
function realPsbt(): Uint8Array {
  for (const line of readFileSync(VECTORS, 'utf8').split('\n')) {
    if (!line.includes('"core vector valid 0"')) continue;
    const body = JSON.parse((JSON.parse(line) as { request: { body: string } }).request.body) as { params: string[] };
    return Uint8Array.from(Buffer.from(body.params[0]!, 'base64'));
  }
  throw new Error('no "core vector valid 0" in the vectors');
}

/** The component's SVG for one frame (AnimatedQr.vue's template, its scoped colours as attributes). */
const svgOf = (f: QrFrame, px: number): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${px}" height="${px}" viewBox="${f.viewBox}" shape-rendering="crispEdges">` +
  `<rect x="0" y="0" width="${f.extent}" height="${f.extent}" fill="#fff"/><path fill="#000" d="${f.path}"/></svg>`;

describe.skipIf(!existsSync(CHROMIUM))('AnimatedQr frames in Chromium', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'spyglass-qr-'));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
      env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_CACHE_HOME: join(dir, 'cache') },
    });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every frame of a real PSBT, screenshotted, reads back with jsqr into the PSBT', async () => {
    const psbt = realPsbt();
    const { parts, kind } = encodePsbtUr(psbt, { maxFragmentLength: 120 });
    expect(kind).toBe('multi');
    const cache = new QrFrameCache(parts);
    const frames = parts.map((_, k) => cache.frame(k));
    const page = await browser.newPage({ viewport: { width: QR_SIZE.default + 40, height: QR_SIZE.default + 40 } });
    const scanner = new PsbtUrScanner();
    for (const [k, f] of frames.entries()) {
      const html = join(dir, `frame-${k}.html`);
      writeFileSync(html, `<!doctype html><meta charset="utf-8"><title>frame ${k + 1}</title><body>${svgOf(f, QR_SIZE.default)}</body>`);
      await page.goto(pathToFileURL(html).href);
      const png = await page.locator('svg').screenshot({ type: 'png' });
      const { width, height, data } = decodePng(png);
      expect([width, height]).toEqual([QR_SIZE.default, QR_SIZE.default]);
      const read = jsQR(data, width, height, { inversionAttempts: 'dontInvert' });
      expect(read?.data, `frame ${k + 1} of ${frames.length} (version ${f.version})`).toBe(parts[k]);
      scanner.receive(read!.data);
    }
    await page.close();
    expect(scanner.result()).toEqual(psbt);
  });
});
