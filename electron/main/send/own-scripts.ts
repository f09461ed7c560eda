// The wallet's own scripts as far as the node has handed them out: each descriptor derived from its
// range's start to its next index (listdescriptors' next_index, or the change derived offline) plus a
// look-ahead, kept between previews and extended as the wallet hands out more. "Is this script the
// wallet's?" (the "paying your own address" warning, the node's change address) is then a lookup —
// not a walk through the whole range: a foreign script of a watched type would derive every index of
// every descriptor of that type (Core's 1,000 per descriptor: about 6 s for a single-sig wallet, three
// keys per index for a 2-of-3), on every preview.
import { parseDescriptor, type Descriptor } from '../../../shared/bitcoin/descriptor';
import { hexOf } from '../../../shared/bitcoin/tx';
import type { Network } from '../../../shared/bitcoin/networks';
import type { WalletDescriptor } from '../../../shared/bitcoin/psbt';

/** Indices past the next one derived too (an address given out by another program since the facts). */
export const LOOK_AHEAD = 20;

interface Derived {
  desc: Descriptor | null;
  /** Next index to derive. */
  upTo: number;
  end: number;
}

export class OwnScripts {
  readonly #scripts = new Set<string>();
  readonly #derived = new Map<string, Derived>();

  constructor(readonly network: Network) {}

  /** Derives what the descriptors' next indices (and `changeNext`, for internal ones) now reach. */
  extend(descriptors: readonly WalletDescriptor[], changeNext: number): void {
    for (const w of descriptors) {
      let d = this.#derived.get(w.desc);
      if (!d) {
        let desc: Descriptor | null = null;
        try {
          desc = parseDescriptor(w.desc, this.network);
        } catch {
          desc = null; // a descriptor this build cannot read: its scripts are not claimed
        }
        const r = w.range;
        const [begin, end] = r === undefined ? [0, 0] : typeof r === 'number' ? [0, r] : r;
        d = { desc, upTo: begin, end };
        this.#derived.set(w.desc, d);
      }
      if (!d.desc) continue;
      const listed = w as { next_index?: number; next?: number };
      const next = Math.max(listed.next_index ?? listed.next ?? 0, w.internal ? changeNext : 0);
      const want = d.desc.isRange() ? Math.min(d.end, next + LOOK_AHEAD) : 0;
      for (; d.upTo <= want; d.upTo++) {
        try {
          for (const e of d.desc.expand(d.upTo)) this.#scripts.add(hexOf(e.script));
        } catch {
          break; // hardened steps without private keys: nothing to derive here
        }
      }
    }
  }

  has(script: Uint8Array): boolean {
    return this.#scripts.has(hexOf(script));
  }
}
