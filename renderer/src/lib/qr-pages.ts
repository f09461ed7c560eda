/**
 * The parts of an animated QR as they come a page at a time (`psbt:qr` with `from` / `count`): the click brings the
 * first page, so frame 1 is up at once; as the animation (or a person stepping) shows frame k, the page holding k and
 * the next page are asked for, so the animation finds its parts there before it reaches them. Kept free of Vue and
 * the DOM (tested in Node against the real job).
 */
export interface QrPage {
  parts: string[];
  from: number;
  total: number;
}

export class QrPartPages {
  readonly total: number;
  readonly pageSize: number;
  #parts: (string | null)[];
  readonly #asked = new Set<number>();
  readonly #fetch: (from: number, count: number) => Promise<QrPage>;
  readonly #onChange: (parts: readonly (string | null)[]) => void;

  /**
   * `first`: the reply to the click; `fetch`: asks for `count` parts from `from`; `onChange`: a new array each time a
   * page lands (the parts so far, null where not yet here).
   */
  constructor(first: QrPage, pageSize: number, fetch: (from: number, count: number) => Promise<QrPage>, onChange: (parts: readonly (string | null)[]) => void) {
    this.total = first.total;
    this.pageSize = Math.max(1, pageSize);
    this.#parts = new Array<string | null>(first.total).fill(null);
    this.#fetch = fetch;
    this.#onChange = onChange;
    this.#put(first);
  }

  get parts(): readonly (string | null)[] {
    return this.#parts;
  }

  /** Parts here so far. */
  get loaded(): number {
    return this.#parts.reduce((n, p) => (p === null ? n : n + 1), 0);
  }

  #put(page: QrPage): void {
    if (page.total !== this.total) throw new Error(`A page of ${page.total} parts, not ${this.total}`);
    const next = this.#parts.slice();
    page.parts.forEach((p, i) => (next[page.from + i] = p));
    this.#parts = next;
  }

  /** Frame k is shown (or about to be): ask for its page and the next one, unless they are here or asked for. */
  async want(k: number): Promise<void> {
    if (this.total === 0) return;
    const starts = new Set([k, (k + this.pageSize) % this.total].map((i) => Math.floor(i / this.pageSize) * this.pageSize));
    await Promise.all(
      [...starts].map(async (start) => {
        if (this.#asked.has(start) || this.#parts[start] !== null) return;
        this.#asked.add(start);
        try {
          const page = await this.#fetch(start, Math.min(this.pageSize, this.total - start));
          this.#put(page);
          this.#onChange(this.#parts);
        } finally {
          this.#asked.delete(start);
        }
      }),
    );
  }
}
