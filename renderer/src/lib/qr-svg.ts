/**
 * What AnimatedQr.vue draws, kept free of Vue and the DOM so that it can be tested in Node: the QR frames of a
 * list of UR parts, computed when first asked for (or ahead, in time slices the caller bounds) and cached — the
 * matrices within a memory budget, the SVG paths of the most recent frames — and the control ranges.
 */
import { encodeQr, type QrMatrix } from '../../../shared/qr/encode';
import { qrExtent, qrSvgPath, QUIET_ZONE } from '../../../shared/qr/svg';
import type { EcLevel } from '../../../shared/qr/tables';

/** Display size of the QR (px) and animation speed (frames per second): ranges and defaults. */
export const QR_SIZE = { min: 160, max: 800, step: 20, default: 360 } as const;
export const QR_FPS = { min: 1, max: 20, step: 1, default: 8 } as const;

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

/** One frame as the SVG shows it. */
export interface QrFrame {
  index: number;
  version: number;
  /** Side in modules, quiet zone included: the viewBox is "0 0 extent extent". */
  extent: number;
  viewBox: string;
  /** Path data of the dark modules (shared/qr/svg.ts). */
  path: string;
}

export interface QrFrameCacheOptions {
  /** Error correction level of every frame; default 'L' (what UR signers show: the most data per frame). */
  level?: EcLevel;
  /** Matrices are kept while their rows total at most this many bytes (default 32 MB); past it, recomputed when shown. */
  maxMatrixBytes?: number;
  /** SVG paths kept for the most recently shown frames (default 64). */
  maxPaths?: number;
}

export class QrFrameCache {
  readonly parts: readonly string[];
  readonly level: EcLevel;
  readonly #maxBytes: number;
  readonly #maxPaths: number;
  readonly #matrices: (QrMatrix | undefined)[];
  #bytes = 0;
  #computed = 0;
  /** A matrix did not fit the budget: precompute stops (frames are then computed when shown). */
  #full = false;
  /** Next frame the background precompute looks at. */
  #cursor = 0;
  /** Insertion order = least recently used first. */
  readonly #paths = new Map<number, QrFrame>();

  constructor(parts: readonly string[], options: QrFrameCacheOptions = {}) {
    this.parts = parts;
    this.level = options.level ?? 'L';
    this.#maxBytes = options.maxMatrixBytes ?? 32 * 1024 * 1024;
    this.#maxPaths = Math.max(1, options.maxPaths ?? 64);
    this.#matrices = new Array<QrMatrix | undefined>(parts.length);
  }

  get count(): number {
    return this.parts.length;
  }

  /** Frames whose matrix is cached. */
  get computed(): number {
    return this.#computed;
  }

  /** The matrix of frame k (0-based), computed now if it is not cached. */
  matrix(k: number): QrMatrix {
    if (!Number.isInteger(k) || k < 0 || k >= this.parts.length) throw new RangeError(`no frame ${k} of ${this.parts.length}`);
    const cached = this.#matrices[k];
    if (cached) return cached;
    const m = encodeQr(qrText(this.parts[k]!), { level: this.level });
    if (this.#bytes + m.rows.byteLength <= this.#maxBytes) {
      this.#matrices[k] = m;
      this.#bytes += m.rows.byteLength;
      this.#computed++;
    } else {
      this.#full = true;
    }
    return m;
  }

  /** Frame k ready to draw; its path is cached for the most recently shown frames. */
  frame(k: number): QrFrame {
    const hit = this.#paths.get(k);
    if (hit) {
      this.#paths.delete(k);
      this.#paths.set(k, hit);
      return hit;
    }
    const m = this.matrix(k);
    const extent = qrExtent(m, QUIET_ZONE);
    const f: QrFrame = { index: k, version: m.version, extent, viewBox: `0 0 ${extent} ${extent}`, path: qrSvgPath(m, QUIET_ZONE) };
    this.#paths.set(k, f);
    if (this.#paths.size > this.#maxPaths) this.#paths.delete(this.#paths.keys().next().value!);
    return f;
  }

  /**
   * Compute matrices ahead, frame after frame, until `stop()` says the time slice is over (it is asked after each
   * frame) or every frame is cached (or the budget is full). Returns true when there is nothing left to do.
   */
  precompute(stop: () => boolean): boolean {
    while (this.#cursor < this.parts.length && !this.#full) {
      this.matrix(this.#cursor++);
      if (stop()) break;
    }
    return this.#full || this.#cursor >= this.parts.length;
  }
}

/** The frame after k, wrapping around. */
export const nextFrame = (k: number, count: number): number => (count > 0 ? (k + 1) % count : 0);
export const previousFrame = (k: number, count: number): number => (count > 0 ? (k - 1 + count) % count : 0);
