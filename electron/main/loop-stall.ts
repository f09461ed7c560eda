// How long this thread's event loop was blocked: a timer due every `sampleMs` notes how late it ran.
// A request that "timed out" while the loop was blocked (a big import, a long synchronous write) did
// not time out because of the other side: its timer simply could not run earlier, and the reply may
// be waiting in the socket. The chain monitor asks this before it declares a node lost (monitor.ts).
export class LoopStallMeter {
  #timer: NodeJS.Timeout | null = null;
  #last = 0;
  #stalledMs = 0;

  constructor(private readonly sampleMs = 20) {}

  start(): void {
    if (this.#timer) return;
    this.#last = performance.now();
    this.#timer = setInterval(() => {
      const now = performance.now();
      this.#stalledMs += Math.max(0, now - this.#last - this.sampleMs);
      this.#last = now;
    }, this.sampleMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /**
   * Milliseconds the loop has been blocked since start(), counting a block that just ended and whose
   * sample has not run yet (a timeout's callback can run before it, in the same turn of the loop).
   */
  stalledMs(): number {
    if (!this.#timer) return 0;
    return this.#stalledMs + Math.max(0, performance.now() - this.#last - this.sampleMs);
  }
}
