// Slices of the refresh's CPU-heavy loops (issue #27: the main process never stalls). A refresh of
// 100,000 watched addresses walks every address several times (the plan, the snapshot's rows, its
// text for the writer); in one go each walk holds the event loop for hundreds of ms on a busy machine,
// and the IPC, the bridge and the chain monitor's timers wait. A Slicer lets a loop give the loop a
// turn (setImmediate: timers, I/O and IPC run, then the loop goes on) once its slice has run for
// SLICE_MS; it reads the clock only every CHECK_EVERY items, so a small loop costs nothing.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a slice may run before the loop gets a turn (ms). */
export const SLICE_MS = 8;
/** Items between two reads of the clock. */
const CHECK_EVERY = 128;

export class Slicer {
  #start = performance.now();
  #count = 0;
  /** Turns given so far (for the bench's notes). */
  yields = 0;

  /** `sliceMs` null: never gives a turn (the bench's baseline: the loops as they ran before). */
  constructor(private readonly sliceMs: number | null = SLICE_MS) {}

  /** Call once per item (or once per `n` items): gives the loop a turn when this slice has run long enough. */
  async tick(n = 1): Promise<void> {
    if (this.sliceMs === null) return;
    this.#count += n;
    if (this.#count < CHECK_EVERY) return;
    this.#count = 0;
    if (performance.now() - this.#start >= this.sliceMs) await this.pause();
  }

  /** Gives the event loop a turn now (after a long synchronous call), and starts a new slice. */
  async pause(): Promise<void> {
    if (this.sliceMs === null) return;
    this.yields++;
    await nextTurn();
    this.#start = performance.now();
    this.#count = 0;
  }
}
