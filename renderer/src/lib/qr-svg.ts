/**
 * What AnimatedQr.vue and Receive draw, kept free of Vue and the DOM so that it can be tested in Node: QR symbols
 * made by the `qrcode` package (the kept library), one frame at a time as it is shown — a signer reads one frame
 * at a time, so the first frame is up at once and each next one costs ~1–2 ms — drawn as one SVG path, with the
 * paths of the most recently shown frames cached; and the controls' ranges.
 */
import QRCode from 'qrcode';

export type EcLevel = 'L' | 'M' | 'Q' | 'H';

/** Display size of the QR (px) and animation speed (frames per second): ranges and defaults. */
export const QR_SIZE = { min: 160, max: 800, step: 20, default: 360 } as const;
export const QR_FPS = { min: 1, max: 20, step: 1, default: 8 } as const;

/** The quiet zone ISO/IEC 18004 asks for: four modules on every side. */
export const QUIET_ZONE = 4;

const clamp = (x: number, min: number, max: number, fallback: number): number => (Number.isFinite(x) ? Math.min(max, Math.max(min, x)) : fallback);
export const clampSize = (px: number): number => Math.round(clamp(px, QR_SIZE.min, QR_SIZE.max, QR_SIZE.default));
export const clampFps = (fps: number): number => Math.round(clamp(fps, QR_FPS.min, QR_FPS.max, QR_FPS.default));

/** Milliseconds a frame stays up at `fps`. */
export const frameDelayMs = (fps: number): number => Math.round(1000 / clampFps(fps));

/**
 * The text a part is encoded as: a UR ("ur:…", any case) in uppercase, so that it takes alphanumeric mode (the UR
 * spec's advice for QR codes: about 30 % fewer modules than byte mode); anything else as it is.
 */
export function qrText(part: string): string {
  return /^ur:/i.test(part) ? part.toUpperCase() : part;
}

/** A QR symbol: `size` × `size` modules, row by row, 1 = dark (no quiet zone). */
export interface QrSymbol {
  version: number;
  size: number;
  modules: Uint8Array;
}

/** The symbol of `text` at `level`, at the smallest version that holds it (the library's choice of mask). */
export function qrSymbol(text: string, level: EcLevel): QrSymbol {
  const qr = QRCode.create(text, { errorCorrectionLevel: level });
  return { version: qr.version, size: qr.modules.size, modules: qr.modules.data };
}

/** Path data of the dark modules, one closed rectangle per horizontal run, offset by the quiet zone. */
export function qrSvgPath(s: QrSymbol, margin = QUIET_ZONE): string {
  let d = '';
  for (let r = 0; r < s.size; r++) {
    let runStart = -1;
    for (let c = 0; c <= s.size; c++) {
      const dark = c < s.size && s.modules[r * s.size + c] === 1;
      if (dark && runStart < 0) runStart = c;
      else if (!dark && runStart >= 0) {
        const n = c - runStart;
        d += `M${runStart + margin} ${r + margin}h${n}v1h-${n}z`;
        runStart = -1;
      }
    }
  }
  return d;
}

/** One frame as the SVG shows it. */
export interface QrFrame {
  index: number;
  version: number;
  /** Side in modules, quiet zone included: the viewBox is "0 0 extent extent". */
  extent: number;
  viewBox: string;
  /** Path data of the dark modules. */
  path: string;
}

/** A symbol ready to draw (Receive's address QR, one frame of an animation). */
export function qrFrame(text: string, level: EcLevel, index = 0): QrFrame {
  const s = qrSymbol(text, level);
  const extent = s.size + 2 * QUIET_ZONE;
  return { index, version: s.version, extent, viewBox: `0 0 ${extent} ${extent}`, path: qrSvgPath(s) };
}

export interface QrFrameCacheOptions {
  /** Error correction level of every frame; default 'L' (what UR signers show: the most data per frame). */
  level?: EcLevel;
  /** SVG paths kept for the most recently shown frames (default 64). */
  maxPaths?: number;
}

/**
 * The frames of a list of UR parts, each made when it is first shown; the most recent ones kept. A part may be
 * missing yet (null: the animated QR's parts come a page at a time); `withParts` takes the list with more of them
 * filled in, keeping the frames made.
 */
export class QrFrameCache {
  #parts: readonly (string | null)[];
  readonly level: EcLevel;
  readonly #maxPaths: number;
  #made = 0;
  /** Insertion order = least recently used first. */
  readonly #frames = new Map<number, QrFrame>();

  constructor(parts: readonly (string | null)[], options: QrFrameCacheOptions = {}) {
    this.#parts = parts;
    this.level = options.level ?? 'L';
    this.#maxPaths = Math.max(1, options.maxPaths ?? 64);
  }

  get parts(): readonly (string | null)[] {
    return this.#parts;
  }

  get count(): number {
    return this.#parts.length;
  }

  /** Frames made so far (a frame dropped from the cache and shown again is made again). */
  get made(): number {
    return this.#made;
  }

  /** Whether part k is there to draw. */
  has(k: number): boolean {
    return typeof this.#parts[k] === 'string';
  }

  /** The same frames with more parts filled in (same count; a part already there stays as it is). */
  withParts(parts: readonly (string | null)[]): this {
    if (parts.length !== this.#parts.length) throw new RangeError(`${parts.length} parts, not ${this.#parts.length}`);
    this.#parts = parts;
    return this;
  }

  /** Frame k (0-based) ready to draw. */
  frame(k: number): QrFrame {
    if (!Number.isInteger(k) || k < 0 || k >= this.#parts.length) throw new RangeError(`no frame ${k} of ${this.#parts.length}`);
    const hit = this.#frames.get(k);
    if (hit) {
      this.#frames.delete(k);
      this.#frames.set(k, hit);
      return hit;
    }
    const part = this.#parts[k];
    if (typeof part !== 'string') throw new RangeError(`frame ${k}: its part is not here yet`);
    const f = qrFrame(qrText(part), this.level, k);
    this.#made++;
    this.#frames.set(k, f);
    if (this.#frames.size > this.#maxPaths) this.#frames.delete(this.#frames.keys().next().value!);
    return f;
  }
}

/** The frame after k, wrapping around. */
export const nextFrame = (k: number, count: number): number => (count > 0 ? (k + 1) % count : 0);
export const previousFrame = (k: number, count: number): number => (count > 0 ? (k - 1 + count) % count : 0);
