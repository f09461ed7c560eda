/** The SVG path of a symbol draws exactly its dark modules: parsed back into a grid, it equals the matrix. */
import { describe, expect, it } from 'vitest';
import { encodeQr, toModules, type QrMatrix } from '../../shared/qr/encode';
import { qrExtent, qrSvgDocument, qrSvgPath, qrViewBox, QUIET_ZONE } from '../../shared/qr/svg';
import { randomText, rng } from './helpers';

/** Fill a grid from "M x y h n v1 h-n z" runs, refusing anything else (overlaps included). */
function parsePath(d: string, extent: number): Uint8Array {
  const grid = new Uint8Array(extent * extent);
  const re = /M(\d+) (\d+)h(\d+)v1h-(\d+)z/y;
  let pos = 0;
  while (pos < d.length) {
    re.lastIndex = pos;
    const m = re.exec(d);
    if (!m) throw new Error(`unexpected path data at ${pos}: ${d.slice(pos, pos + 20)}`);
    const [x, y, n, back] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
    if (n !== back || n < 1) throw new Error('run does not close');
    for (let c = x; c < x + n; c++) {
      if (grid[y * extent + c]) throw new Error('overlapping runs');
      grid[y * extent + c] = 1;
    }
    pos = re.lastIndex;
  }
  return grid;
}

function expectPathDraws(m: QrMatrix, margin: number): void {
  const extent = qrExtent(m, margin);
  const drawn = parsePath(qrSvgPath(m, margin), extent);
  const mods = toModules(m);
  for (let y = 0; y < extent; y++) {
    for (let x = 0; x < extent; x++) {
      const r = y - margin;
      const c = x - margin;
      const want = r >= 0 && c >= 0 && r < m.size && c < m.size ? mods[r * m.size + c] : 0;
      if (drawn[y * extent + x] !== want) throw new Error(`module (${r}, ${c}) drawn ${drawn[y * extent + x]}, is ${want}`);
    }
  }
}

describe('SVG output', () => {
  it('the path covers exactly the dark modules, with the quiet zone as offset (runs across 32-module words too)', () => {
    const r = rng(3);
    for (const len of [1, 30, 200, 800, 2500]) {
      const m = encodeQr(randomText(r, 'alphanumeric', len), { level: 'L' });
      expectPathDraws(m, QUIET_ZONE);
      expectPathDraws(m, 0);
    }
    // Version 40: 177-module rows over six 32-bit words.
    expectPathDraws(encodeQr('A'.repeat(3000), { level: 'L', mask: 0 }), 2);
  });

  it('viewBox and standalone document', () => {
    const m = encodeQr('HELLO', { level: 'M' });
    expect(qrViewBox(m)).toBe('0 0 29 29');
    const doc = qrSvgDocument(m, { pixels: 290 });
    expect(doc).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="290" height="290" viewBox="0 0 29 29" shape-rendering="crispEdges">/);
    expect(doc).toContain(`d="${qrSvgPath(m)}"`);
  });
});
