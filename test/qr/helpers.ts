/** Test helpers for QR symbols (renderer/src/lib/qr-svg.ts over the qrcode package): a seeded random source and rendering for jsqr. */
import jsQR from 'jsqr';
import type { QrSymbol } from '../../renderer/src/lib/qr-svg';

/** xorshift32: the same "random" cases on every run, so a failure can be replayed. */
export function rng(seed: number): { int(n: number): number; pick<T>(xs: readonly T[]): T } {
  let s = seed >>> 0 || 1;
  const next = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  return { int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)]! };
}

/** RGBA pixels of the symbol with a 4-module quiet zone, `scale` pixels per module (dark = black). */
export function renderRgba(m: QrSymbol, scale: number): { data: Uint8ClampedArray; width: number } {
  const width = (m.size + 8) * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (let r = 0; r < m.size; r++) {
    for (let c = 0; c < m.size; c++) {
      if (!m.modules[r * m.size + c]) continue;
      for (let y = (r + 4) * scale; y < (r + 5) * scale; y++) {
        for (let x = (c + 4) * scale; x < (c + 5) * scale; x++) data.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3);
      }
    }
  }
  return { data, width };
}

/** jsqr's reading of the rendered symbol: its bytes and text, or null if it finds no QR code. */
export function decodeWithJsqr(m: QrSymbol, scale = 3): { bytes: number[]; text: string; version: number } | null {
  const { data, width } = renderRgba(m, scale);
  const found = jsQR(data, width, width, { inversionAttempts: 'dontInvert' });
  return found ? { bytes: found.binaryData, text: found.data, version: found.version } : null;
}
