// `npm run icons`: renders resources/icon.svg into every icon file electron-builder needs, with
// Debian's Chromium (playwright-core; CHROMIUM_PATH to use another):
//   resources/icon.png            1024×1024 (electron-builder's fallback; the window icon on Linux)
//   resources/icons/<N>x<N>.png   16…1024 (Linux: AppImage/deb hicolor icons)
//   resources/icon.ico            16, 24, 32, 48, 64, 128, 256 (Windows; PNG-compressed entries)
//   resources/icon.icns           16…1024 incl. @2x (macOS; PNG-compressed entries)
// The files are committed; run this again only when icon.svg changes. test/main/icons.test.ts checks
// that they parse and carry every size.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const RESOURCES = resolve(fileURLToPath(new URL('../resources', import.meta.url)));
export const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024] as const;
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256] as const;
/** ICNS entry types holding PNG data, and the pixel size of each (Apple's icns type table). */
export const ICNS_TYPES: ReadonlyArray<readonly [string, number]> = [
  ['icp4', 16],
  ['icp5', 32],
  ['icp6', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic09', 512],
  ['ic10', 1024],
  ['ic11', 32],
  ['ic12', 64],
  ['ic13', 256],
  ['ic14', 512],
];

/** An ICO file whose entries are PNG images (Windows Vista and later read these). */
export function buildIco(pngs: ReadonlyArray<{ size: number; png: Buffer }>): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // 1 = icon
  header.writeUInt16LE(pngs.length, 4);
  const dir = Buffer.alloc(16 * pngs.length);
  let offset = 6 + dir.length;
  pngs.forEach(({ size, png }, i) => {
    const e = i * 16;
    dir.writeUInt8(size >= 256 ? 0 : size, e); // 0 means 256
    dir.writeUInt8(size >= 256 ? 0 : size, e + 1);
    dir.writeUInt8(0, e + 2); // no palette
    dir.writeUInt8(0, e + 3);
    dir.writeUInt16LE(1, e + 4); // colour planes
    dir.writeUInt16LE(32, e + 6); // bits per pixel
    dir.writeUInt32LE(png.length, e + 8);
    dir.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([header, dir, ...pngs.map((p) => p.png)]);
}

/** An ICNS file of PNG entries: 'icns', total length, then (type, length incl. 8-byte header, data). */
export function buildIcns(entries: ReadonlyArray<{ type: string; png: Buffer }>): Buffer {
  const parts = entries.map(({ type, png }) => {
    const h = Buffer.alloc(8);
    h.write(type, 0, 'latin1');
    h.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([h, png]);
  });
  const body = Buffer.concat(parts);
  const h = Buffer.alloc(8);
  h.write('icns', 0, 'latin1');
  h.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([h, body]);
}

async function render(svg: string, sizes: readonly number[]): Promise<Map<number, Buffer>> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const out = new Map<number, Buffer>();
  try {
    const page = await browser.newPage();
    for (const size of sizes) {
      await page.setViewportSize({ width: size, height: size });
      const data = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
      await page.setContent(`<html><body style="margin:0;background:transparent"><img src="${data}" width="${size}" height="${size}" style="display:block"></body></html>`);
      await page.waitForFunction('document.images[0].complete');
      out.set(size, await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
    }
  } finally {
    await browser.close();
  }
  return out;
}

async function main(): Promise<void> {
  const svg = readFileSync(join(RESOURCES, 'icon.svg'), 'utf8');
  const png = await render(svg, LINUX_SIZES);
  const get = (n: number): Buffer => png.get(n) ?? (() => { throw new Error(`no ${n} px render`); })();
  mkdirSync(join(RESOURCES, 'icons'), { recursive: true });
  for (const n of LINUX_SIZES) writeFileSync(join(RESOURCES, 'icons', `${n}x${n}.png`), get(n));
  writeFileSync(join(RESOURCES, 'icon.png'), get(1024));
  writeFileSync(join(RESOURCES, 'icon.ico'), buildIco(ICO_SIZES.map((size) => ({ size, png: get(size) }))));
  writeFileSync(join(RESOURCES, 'icon.icns'), buildIcns(ICNS_TYPES.map(([type, size]) => ({ type, png: get(size) }))));
  process.stdout.write(`icons written to ${RESOURCES}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`make-icons: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
