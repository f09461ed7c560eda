/**
 * AnimatedQr.vue's logic lives in renderer/src/lib/qr-svg.ts so that it runs here: vitest has no DOM (no jsdom
 * installed), so the component cannot be mounted with Vue's createApp; its pure helpers are tested in Node, and
 * chromium.test.ts shows a real Chromium drawing their SVG well enough for a QR decoder to read.
 */
import { describe, expect, it } from 'vitest';
import { encodeQr } from '../../shared/qr/encode';
import { qrSvgPath } from '../../shared/qr/svg';
import { clampFps, clampSize, frameDelayMs, nextFrame, previousFrame, QR_FPS, QR_SIZE, qrText, QrFrameCache } from '../../renderer/src/lib/qr-svg';

const PARTS = Array.from({ length: 12 }, (_, i) => `ur:crypto-psbt/${i + 1}-12/lpadascfadaxcywenbpljkhdcahkadaemejtswhhylkepmykhhtsytsnoyoyaxaedsuttydmmhhpktpmsrjtdkgslpgh${'ae'.repeat(i)}`);

describe('AnimatedQr helpers', () => {
  it('a UR part is encoded uppercase (alphanumeric mode: a smaller symbol), other text as it is', () => {
    expect(qrText('ur:crypto-psbt/1-2/abc')).toBe('UR:CRYPTO-PSBT/1-2/ABC');
    expect(qrText('UR:Bytes/xyz')).toBe('UR:BYTES/XYZ');
    expect(qrText('bitcoin:bc1q...?label=Café')).toBe('bitcoin:bc1q...?label=Café');
    expect(encodeQr(qrText(PARTS[0]!), { level: 'L' }).version).toBeLessThan(encodeQr(PARTS[0]!, { level: 'L' }).version);
  });

  it('size and speed stay within their ranges', () => {
    expect([clampSize(10), clampSize(10_000), clampSize(333.4), clampSize(Number.NaN)]).toEqual([QR_SIZE.min, QR_SIZE.max, 333, QR_SIZE.default]);
    expect([clampFps(0), clampFps(99), clampFps(7.6), clampFps(Number.NaN)]).toEqual([QR_FPS.min, QR_FPS.max, 8, QR_FPS.default]);
    expect([frameDelayMs(8), frameDelayMs(1), frameDelayMs(1000)]).toEqual([125, 1000, 50]);
    expect([nextFrame(11, 12), nextFrame(3, 12), previousFrame(0, 12), previousFrame(5, 12), nextFrame(0, 0)]).toEqual([0, 4, 11, 4, 0]);
  });

  it('frames are computed when first asked for, each the symbol of its part at level L', () => {
    const cache = new QrFrameCache(PARTS);
    expect([cache.count, cache.computed]).toEqual([12, 0]);
    const f = cache.frame(5);
    expect(cache.computed).toBe(1);
    const m = encodeQr(PARTS[5]!.toUpperCase(), { level: 'L' });
    expect(f).toEqual({ index: 5, version: m.version, extent: m.size + 8, viewBox: `0 0 ${m.size + 8} ${m.size + 8}`, path: qrSvgPath(m) });
    expect(cache.matrix(5)).toBe(cache.matrix(5));
    expect(() => cache.frame(12)).toThrow(/no frame 12 of 12/);
  });

  it('computes ahead in slices the caller bounds, and stops when every frame is cached', () => {
    const cache = new QrFrameCache(PARTS);
    let n = 0;
    const threePerSlice = (): boolean => ++n % 3 === 0;
    expect(cache.precompute(threePerSlice)).toBe(false);
    expect(cache.computed).toBe(3);
    cache.frame(7); // shown meanwhile: computed once, not again by the slices
    expect(cache.precompute(threePerSlice)).toBe(false);
    expect(cache.computed).toBe(7);
    while (!cache.precompute(threePerSlice));
    expect(cache.computed).toBe(12);
  });

  it('keeps matrices within a memory budget (past it, frames are computed when shown) and recent paths only', () => {
    const one = encodeQr(PARTS[0]!.toUpperCase(), { level: 'L' }).rows.byteLength;
    const cache = new QrFrameCache(PARTS, { maxMatrixBytes: 4 * one, maxPaths: 2 });
    expect(cache.precompute(() => false)).toBe(true); // the budget is full: nothing more to do ahead
    expect(cache.computed).toBeLessThanOrEqual(4);
    const late = cache.frame(11);
    expect(late.path).toBe(qrSvgPath(encodeQr(PARTS[11]!.toUpperCase(), { level: 'L' })));
    const a = cache.frame(0);
    expect(cache.frame(0)).toBe(a); // cached
    cache.frame(1);
    cache.frame(2); // frame 0 is now the least recently shown of three: dropped
    expect(cache.frame(0)).not.toBe(a);
    expect(cache.frame(0)).toEqual(a);
  });
});
