/**
 * Miniscript's satisfier, following Bitcoin Core's Node::ProduceInput and Node::Satisfy
 * (src/script/miniscript.h, InputStack's + and | in miniscript.cpp): for every node a best
 * satisfaction and dissatisfaction are built bottom-up from the children's, each an InputStack
 * that knows whether it is available, carries a signature, is malleable (a third party could
 * change it) or non-canonical, and its serialized size. Choices (|) follow Core's rules: an
 * unavailable option loses; an option without a signature wins over one with (else a third party
 * could take that branch); between two without signatures the result is malleable; between two
 * with, the non-malleable wins, then the smaller. Satisfy refuses a malleable satisfaction or one
 * without a signature, so the witness is the cheapest non-malleable one the signatures, preimages
 * and the transaction's timelocks allow.
 *
 * The context answers for keys (a signature from the PSBT or none), timelocks (against the
 * spending transaction's nSequence and nLockTime) and hash preimages.
 */
import type { MsNode } from './node';
import type { Fragment } from './types';

export type Availability = 'NO' | 'YES' | 'MAYBE';

export interface SatisfierContext {
  /** A signature by key `key` (an index of the decoded key list): YES with it, or NO. */
  sign(key: number): { avail: Availability; sig: Uint8Array };
  /** ToPKBytes: the key as the script pushes it (pk_h's satisfaction pushes it). */
  pkBytes(key: number): Uint8Array;
  /** CheckOlder / CheckAfter: the transaction's nSequence / nLockTime meet the lock. */
  checkOlder(n: number): boolean;
  checkAfter(n: number): boolean;
  /** A preimage of `hash` for this hash fragment, or null. */
  preimage(frag: 'sha256' | 'ripemd160' | 'hash256' | 'hash160', hash: Uint8Array): Uint8Array | null;
}

/** Core's InputStack (immutable here: every operation returns a new one). */
export interface InputStack {
  available: Availability;
  hasSig: boolean;
  malleable: boolean;
  nonCanon: boolean;
  /** Serialized witness size (Infinity when unavailable, as Core's SIZE_MAX). */
  size: number;
  /** Witness elements, bottom first (the last is the top of the stack). */
  stack: Uint8Array[];
}

const mkStack = (el: Uint8Array): InputStack => ({ available: 'YES', hasSig: false, malleable: false, nonCanon: false, size: el.length + 1, stack: [el] });

function setAvailable(s: InputStack, avail: Availability): InputStack {
  if (avail === 'NO') return { available: 'NO', hasSig: false, malleable: false, nonCanon: false, size: Infinity, stack: [] };
  return { ...s, available: avail };
}
const withSig = (s: InputStack): InputStack => ({ ...s, hasSig: true });
const nonCanon = (s: InputStack): InputStack => ({ ...s, nonCanon: true });
const malleable = (s: InputStack, x = true): InputStack => ({ ...s, malleable: x });

/** Core operator+: `b`'s elements go on top of `a`'s. */
function cat(a: InputStack, b: InputStack): InputStack {
  let r: InputStack = {
    available: a.available,
    hasSig: a.hasSig || b.hasSig,
    malleable: a.malleable || b.malleable,
    nonCanon: a.nonCanon || b.nonCanon,
    size: a.available !== 'NO' && b.available !== 'NO' ? a.size + b.size : a.size,
    stack: [...a.stack, ...b.stack],
  };
  if (a.available === 'NO' || b.available === 'NO') r = setAvailable(r, 'NO');
  else if (a.available === 'MAYBE' || b.available === 'MAYBE') r = setAvailable(r, 'MAYBE');
  return r;
}

/** Core operator|: the choice between two stacks. */
function choose(a: InputStack, b: InputStack): InputStack {
  if (a.available === 'NO') return b;
  if (b.available === 'NO') return a;
  if (!a.hasSig && b.hasSig) return a;
  if (!b.hasSig && a.hasSig) return b;
  if (!a.hasSig && !b.hasSig) {
    a = malleable(a);
    b = malleable(b);
  } else {
    if (b.malleable && !a.malleable) return a;
    if (a.malleable && !b.malleable) return b;
  }
  if (a.available === 'YES' && b.available === 'YES') return a.size <= b.size ? a : b;
  if (a.available === 'MAYBE' && b.available === 'MAYBE') return a.size >= b.size ? a : b;
  return a.available === 'YES' ? a : b;
}

const ZERO = mkStack(new Uint8Array(0));
const ZERO32 = malleable(mkStack(new Uint8Array(32)));
const ONE = mkStack(Uint8Array.of(1));
const EMPTY: InputStack = { available: 'YES', hasSig: false, malleable: false, nonCanon: false, size: 0, stack: [] };
const INVALID = setAvailable(EMPTY, 'NO');

interface InputResult {
  nsat: InputStack;
  sat: InputStack;
}

const HASH_FRAGS = new Set<Fragment>(['sha256', 'ripemd160', 'hash256', 'hash160']);

/** Threshold-style dynamic programming over signatures (multi, multi_a). */
function keySats(start: InputStack, sigs: InputStack[], pad: InputStack | null): InputStack[] {
  let sats = [start];
  for (const sat of sigs) {
    const next = [pad ? cat(sats[0]!, pad) : sats[0]!];
    for (let j = 1; j < sats.length; j++) next.push(choose(pad ? cat(sats[j]!, pad) : sats[j]!, cat(sats[j - 1]!, sat)));
    next.push(cat(sats[sats.length - 1]!, sat));
    sats = next;
  }
  return sats;
}

function produce(node: MsNode, ctx: SatisfierContext): InputResult {
  const sub = node.subs.map((s) => produce(s, ctx));
  const sigStack = (key: number): InputStack => {
    const { avail, sig } = ctx.sign(key);
    return setAvailable(withSig(mkStack(sig)), avail);
  };
  const [x, y, z] = sub;
  switch (node.frag) {
    case 'pk_k':
      return { nsat: ZERO, sat: sigStack(node.keys[0]!) };
    case 'pk_h': {
      const key = ctx.pkBytes(node.keys[0]!);
      const { avail, sig } = ctx.sign(node.keys[0]!);
      return { nsat: cat(ZERO, mkStack(key)), sat: setAvailable(cat(withSig(mkStack(sig)), mkStack(key)), avail) };
    }
    case 'multi_a': {
      const n = node.keys.length;
      const sigs = node.keys.map((_, i) => sigStack(node.keys[n - 1 - i]!));
      const sats = keySats(EMPTY, sigs, ZERO);
      return { nsat: sats[0]!, sat: sats[node.k]! };
    }
    case 'multi': {
      const sigs = node.keys.map((k) => sigStack(k));
      const sats = keySats(ZERO, sigs, null);
      let nsat = ZERO;
      for (let i = 0; i < node.k; i++) nsat = cat(nsat, ZERO);
      return { nsat, sat: sats[node.k]! };
    }
    case 'thresh': {
      let sats = [EMPTY];
      for (let i = 0; i < sub.length; i++) {
        const res = sub[sub.length - 1 - i]!;
        const next = [cat(sats[0]!, res.nsat)];
        for (let j = 1; j < sats.length; j++) next.push(choose(cat(sats[j]!, res.nsat), cat(sats[j - 1]!, res.sat)));
        next.push(cat(sats[sats.length - 1]!, res.sat));
        sats = next;
      }
      let nsat = INVALID;
      for (let i = 0; i < sats.length; i++) {
        if (i !== 0 && i !== node.k) sats[i] = nonCanon(malleable(sats[i]!));
        if (i !== node.k) nsat = choose(nsat, sats[i]!);
      }
      return { nsat, sat: sats[node.k]! };
    }
    case 'older':
      return { nsat: INVALID, sat: ctx.checkOlder(node.k) ? EMPTY : INVALID };
    case 'after':
      return { nsat: INVALID, sat: ctx.checkAfter(node.k) ? EMPTY : INVALID };
    case 'sha256':
    case 'ripemd160':
    case 'hash256':
    case 'hash160': {
      const pre = HASH_FRAGS.has(node.frag) ? ctx.preimage(node.frag, node.data) : null;
      return { nsat: ZERO32, sat: pre ? mkStack(pre) : INVALID };
    }
    case 'and_v':
      return { nsat: nonCanon(cat(y!.nsat, x!.sat)), sat: cat(y!.sat, x!.sat) };
    case 'and_b':
      return {
        nsat: choose(choose(cat(y!.nsat, x!.nsat), nonCanon(malleable(cat(y!.sat, x!.nsat)))), nonCanon(malleable(cat(y!.nsat, x!.sat)))),
        sat: cat(y!.sat, x!.sat),
      };
    case 'or_b':
      return {
        nsat: cat(y!.nsat, x!.nsat),
        sat: choose(choose(cat(y!.nsat, x!.sat), cat(y!.sat, x!.nsat)), nonCanon(malleable(cat(y!.sat, x!.sat)))),
      };
    case 'or_c':
      return { nsat: INVALID, sat: choose(x!.sat, cat(y!.sat, x!.nsat)) };
    case 'or_d':
      return { nsat: cat(y!.nsat, x!.nsat), sat: choose(x!.sat, cat(y!.sat, x!.nsat)) };
    case 'or_i':
      return { nsat: choose(cat(x!.nsat, ONE), cat(y!.nsat, ZERO)), sat: choose(cat(x!.sat, ONE), cat(y!.sat, ZERO)) };
    case 'andor':
      return { nsat: choose(nonCanon(cat(y!.nsat, x!.sat)), cat(z!.nsat, x!.nsat)), sat: choose(cat(y!.sat, x!.sat), cat(z!.sat, x!.nsat)) };
    case 'wrap_a':
    case 'wrap_s':
    case 'wrap_c':
    case 'wrap_n':
      return x!;
    case 'wrap_d':
      return { nsat: ZERO, sat: cat(x!.sat, ONE) };
    case 'wrap_j':
      return { nsat: malleable(ZERO, x!.nsat.available !== 'NO' && !x!.nsat.hasSig), sat: x!.sat };
    case 'wrap_v':
      return { nsat: INVALID, sat: x!.sat };
    case 'just_0':
      return { nsat: EMPTY, sat: INVALID };
    case 'just_1':
      return { nsat: INVALID, sat: EMPTY };
  }
}

/**
 * Core Node::Satisfy (non-malleable): the witness stack (bottom first, without the script) and
 * YES; or NO with why — no satisfaction is available with what the context has, or the only
 * ones are malleable or need no signature.
 */
export function satisfy(node: MsNode, ctx: SatisfierContext): { avail: Availability; stack: Uint8Array[]; why?: 'unavailable' | 'malleable' } {
  const { sat } = produce(node, ctx);
  if (sat.available === 'NO') return { avail: 'NO', stack: [], why: 'unavailable' };
  if (sat.malleable || !sat.hasSig) return { avail: 'NO', stack: [], why: 'malleable' };
  return { avail: sat.available, stack: sat.stack };
}
