/** Test helpers for shared/qr: a seeded random source, the qrcode package as oracle, and rendering for jsqr. */
import QRCode from 'qrcode';
import jsQR from 'jsqr';
import { toModules, type QrMatrix } from '../../shared/qr/encode';
import { ALPHANUMERIC_CHARS, type QrMode } from '../../shared/qr/segments';
import type { EcLevel } from '../../shared/qr/tables';

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

const BYTE_CHARS = ['a', 'z', '~', '{', '\n', 'é', '€', '中', '😀', 'ß', '0', 'A', ' '];

/** Random text of one mode's alphabet, `length` characters (byte: a mix of ASCII and multi-byte UTF-8). */
export function randomText(r: ReturnType<typeof rng>, mode: QrMode, length: number): string {
  let t = '';
  for (let i = 0; i < length; i++) {
    t += mode === 'numeric' ? String(r.int(10)) : mode === 'alphanumeric' ? ALPHANUMERIC_CHARS[r.int(45)] : r.pick(BYTE_CHARS);
  }
  if (mode === 'byte' && /^[0-9A-Z $%*+\-./:]*$/.test(t)) t += 'a'; // keep it out of the narrower modes
  return t;
}

/** The qrcode package's symbol for one segment of this mode, version, level and mask (its modules, 1 = dark). */
export function librarySymbol(text: string, mode: QrMode, options: { version?: number; level: EcLevel; mask?: number }) {
  const segment: QRCode.QRCodeSegment = mode === 'byte' ? { mode, data: new TextEncoder().encode(text) } : { mode, data: text };
  const qr = QRCode.create([segment], { version: options.version, errorCorrectionLevel: options.level, maskPattern: options.mask as QRCode.QRCodeMaskPattern | undefined });
  return { version: qr.version, mask: qr.maskPattern as number, size: qr.modules.size, modules: qr.modules.data, grid: qr.modules };
}

export function countDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) d++;
  return d;
}

/** RGBA pixels of the symbol with a 4-module quiet zone, `scale` pixels per module (dark = black). */
export function renderRgba(m: QrMatrix, scale: number): { data: Uint8ClampedArray; width: number } {
  const modules = toModules(m);
  const width = (m.size + 8) * scale;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  for (let r = 0; r < m.size; r++) {
    for (let c = 0; c < m.size; c++) {
      if (!modules[r * m.size + c]) continue;
      for (let y = (r + 4) * scale; y < (r + 5) * scale; y++) {
        for (let x = (c + 4) * scale; x < (c + 5) * scale; x++) data.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3);
      }
    }
  }
  return { data, width };
}

/** jsqr's reading of the rendered symbol: its bytes and text, or null if it finds no QR code. */
export function decodeWithJsqr(m: QrMatrix, scale = 3): { bytes: number[]; text: string; version: number } | null {
  const { data, width } = renderRgba(m, scale);
  const found = jsQR(data, width, width, { inversionAttempts: 'dontInvert' });
  return found ? { bytes: found.binaryData, text: found.data, version: found.version } : null;
}
