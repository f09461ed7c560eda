/**
 * AnimatedQr.vue's and Receive's QR logic lives in renderer/src/lib/qr-svg.ts so that it runs here: vitest has no
 * DOM (no jsdom installed), so the components cannot be mounted with Vue's createApp; their pure helpers are tested
 * in Node — every symbol read back by jsqr, an independent decoder, and every path drawn back into the symbol's
 * modules — and chromium.test.ts shows a real Chromium drawing their SVG well enough for a QR decoder to read.
 */
import { describe, expect, it } from 'vitest';
import { clampFps, clampSize, frameDelayMs, nextFrame, previousFrame, QR_FPS, QR_SIZE, qrFrame, qrSymbol, qrText, QrFrameCache, QUIET_ZONE, type EcLevel, type QrSymbol } from '../../renderer/src/lib/qr-svg';
import { decodeWithJsqr, rng } from './helpers';

const PARTS = Array.from({ length: 12 }, (_, i) => `ur:crypto-psbt/${i + 1}-12/lpadascfadaxcywenbpljkhdcahkadaemejtswhhylkepmykhhtsytsnoyoyaxaedsuttydmmhhpktpmsrjtdkgslpgh${'ae'.repeat(i)}`);

/** The modules a path's rectangles cover ("M x y h n v1 h-n z" runs), quiet zone taken off. */
function modulesOfPath(path: string, size: number): Uint8Array {
  const out = new Uint8Array(size * size);
  for (const m of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) {
    const [x, y, n] = [Number(m[1]) - QUIET_ZONE, Number(m[2]) - QUIET_ZONE, Number(m[3])];
    for (let c = x; c < x + n; c++) out[y * size + c] = 1;
  }
  return out;
}

describe('QR symbols and AnimatedQr helpers', () => {
  it('a UR part is encoded uppercase (alphanumeric mode: a smaller symbol), other text as it is', () => {
    expect(qrText('ur:crypto-psbt/1-2/abc')).toBe('UR:CRYPTO-PSBT/1-2/ABC');
    expect(qrText('UR:Bytes/xyz')).toBe('UR:BYTES/XYZ');
    expect(qrText('bitcoin:bc1q...?label=Café')).toBe('bitcoin:bc1q...?label=Café');
    expect(qrSymbol(qrText(PARTS[0]!), 'L').version).toBeLessThan(qrSymbol(PARTS[0]!, 'L').version);
  });

  it('symbols of every level and of texts from 1 to 2,000 characters read back with jsqr; each path draws exactly its symbol’s dark modules', () => {
    const r = rng(29);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:/-';
    const levels: EcLevel[] = ['L', 'M', 'Q', 'H'];
    for (let i = 0; i < 24; i++) {
      const level = levels[i % 4]!;
      const length = 1 + r.int(i < 12 ? 200 : 1200);
      let text = i % 3 === 0 ? 'bitcoin:bcrt1q' : 'UR:CRYPTO-PSBT/';
      for (let k = 0; k < length; k++) text += i % 3 === 0 ? alphabet[r.int(36)]!.toLowerCase() : alphabet[r.int(alphabet.length)];
      const s: QrSymbol = qrSymbol(text, level);
      expect(s.modules.length).toBe(s.size * s.size);
      expect(s.size).toBe(17 + 4 * s.version);
      const read = decodeWithJsqr(s, 2);
      expect(read?.text, `${level} ${text.length} chars, version ${s.version}`).toBe(text);
      const f = qrFrame(text, level);
      expect([f.version, f.extent, f.viewBox]).toEqual([s.version, s.size + 8, `0 0 ${s.size + 8} ${s.size + 8}`]);
      expect(modulesOfPath(f.path, s.size)).toEqual(s.modules);
    }
  });

  it('size and speed stay within their ranges', () => {
    expect([clampSize(10), clampSize(10_000), clampSize(333.4), clampSize(Number.NaN)]).toEqual([QR_SIZE.min, QR_SIZE.max, 333, QR_SIZE.default]);
    expect([clampFps(0), clampFps(99), clampFps(7.6), clampFps(Number.NaN)]).toEqual([QR_FPS.min, QR_FPS.max, 8, QR_FPS.default]);
    expect([frameDelayMs(8), frameDelayMs(1), frameDelayMs(1000)]).toEqual([125, 1000, 50]);
    expect([nextFrame(11, 12), nextFrame(3, 12), previousFrame(0, 12), previousFrame(5, 12), nextFrame(0, 0)]).toEqual([0, 4, 11, 4, 0]);
  });

  it('a frame is made when it is shown, each the symbol of its part at level L; nothing ahead of time', () => {
    const cache = new QrFrameCache(PARTS);
    expect([cache.count, cache.made]).toEqual([12, 0]);
    const f = cache.frame(5);
    expect(cache.made).toBe(1);
    expect(f).toEqual(qrFrame(PARTS[5]!.toUpperCase(), 'L', 5));
    expect(cache.frame(5)).toBe(f);
    expect(cache.made).toBe(1);
    expect(() => cache.frame(12)).toThrow(/no frame 12 of 12/);
  });

  it('keeps the most recently shown frames only', () => {
    const cache = new QrFrameCache(PARTS, { maxPaths: 2 });
    const a = cache.frame(0);
    expect(cache.frame(0)).toBe(a); // cached
    cache.frame(1);
    cache.frame(2); // frame 0 is now the least recently shown of three: dropped
    expect(cache.frame(0)).not.toBe(a);
    expect(cache.frame(0)).toEqual(a);
    expect(cache.made).toBe(4);
  });

  it('parts that come a page at a time: a missing part has no frame yet; filled in, the frames made are kept', () => {
    const some = PARTS.map((p, i) => (i < 4 ? p : null));
    const cache = new QrFrameCache(some);
    expect([cache.count, cache.has(3), cache.has(4)]).toEqual([12, true, false]);
    const f = cache.frame(3);
    expect(() => cache.frame(4)).toThrow(/not here yet/);
    expect(cache.withParts(PARTS)).toBe(cache);
    expect(cache.has(4)).toBe(true);
    expect(cache.frame(4)).toEqual(qrFrame(PARTS[4]!.toUpperCase(), 'L', 4));
    expect(cache.frame(3)).toBe(f);
    expect(() => cache.withParts(PARTS.slice(1))).toThrow(/11 parts, not 12/);
  });
});
