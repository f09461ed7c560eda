/**
 * Core's miniscript satisfier contexts (src/script/sign.cpp: Satisfier, WshSatisfier,
 * TapSatisfier, SignTaprootScript and SignTaproot's script path loop) on top of our decoder
 * (miniscript/decode.ts) and satisfier (miniscript/satisfy.ts): a P2WSH witness script or each
 * tapscript leaf is read back as miniscript, its keys asked for signatures (the PSBT's, or the
 * creator's), its timelocks checked against the spending transaction, its hash challenges against
 * the PSBT's preimages; the cheapest non-malleable satisfaction is the witness. Among taproot
 * leaves the smallest witness (script and smallest control block included) wins, the first one on
 * a tie, leaves taken in Core's order (script bytes, then leaf version).
 *
 * produce.ts supplies the key look-ups (so the records of missing keys and signatures, and the
 * key origins a signature attempt adds, are made exactly where Core makes them).
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromScript } from '../miniscript/decode';
import { satisfy, type SatisfierContext } from '../miniscript/satisfy';
import { hexOf } from '../tx';
import type { Checker } from './checker';
import { cmpStr } from './json-parts';
import { tapLeafHash } from './sighash';
import type { Preimages } from './sigdata';
import { TAPSCRIPT } from './tr-tree';
import type { TapLeafScript } from './types';

/** Why the last satisfaction attempt failed (for the finalizer's explanation). */
export interface SatisfyNote {
  /** The script decoded as miniscript. */
  decoded: boolean;
  /** 'unavailable': some signature, preimage or timelock is missing; 'malleable': only malleable or signature-less ones exist. */
  why?: 'unavailable' | 'malleable';
  /** Timelocks of the script the transaction does not meet. */
  unmetOlder: number[];
  unmetAfter: number[];
  /** Keys asked for a signature the PSBT does not have (hex: 33-byte keys in P2WSH, x-only in tapscript). */
  missingKeys: string[];
  /** Hash challenges ("sha256(<hash hex>)") the PSBT has no preimage for. */
  missingPreimages: string[];
  /** Preimages the PSBT gives that cannot satisfy their challenge (used all the same, as Core does: the script then fails), in words. */
  badPreimages: string[];
}

export function newSatisfyNote(): SatisfyNote {
  return { decoded: false, unmetOlder: [], unmetAfter: [], missingKeys: [], missingPreimages: [], badPreimages: [] };
}

const HASHES = {
  sha256: (b: Uint8Array) => sha256(b),
  hash256: (b: Uint8Array) => sha256(sha256(b)),
  ripemd160: (b: Uint8Array) => ripemd160(b),
  hash160: (b: Uint8Array) => ripemd160(sha256(b)),
};

/** Why a preimage cannot satisfy `frag(hash)` (miniscript checks SIZE 32, then the hash), or null when it can. */
export function preimageProblem(frag: keyof typeof HASHES, hash: Uint8Array, pre: Uint8Array): string | null {
  const name = `${frag}(${hexOf(hash)})`;
  if (pre.length !== 32) return `the preimage given for ${name} is ${pre.length} bytes (miniscript takes 32)`;
  if (hexOf(HASHES[frag](pre)) !== hexOf(hash)) return `the preimage given for ${name} does not hash to it`;
  return null;
}

const pushOnce = (list: string[], x: string): void => {
  if (!list.includes(x)) list.push(x);
};

interface CommonDeps {
  checker: Checker;
  preimages: Preimages;
  /** GetPubKey by key id hex, recording the id as missing when unknown (CPubFromPKHBytes). */
  pubkeyOf(id: string): Uint8Array | null;
  note?: SatisfyNote;
}

export interface WshDeps extends CommonDeps {
  /** CreateSig for the witness script: the signature by this 33-byte key, or null. */
  sign(pubkey: Uint8Array): Uint8Array | null;
}

export interface TapDeps extends CommonDeps {
  /** CreateTaprootScriptSig: the signature by this x-only key for this leaf, or null. */
  sign(xonly: Uint8Array, leafHash: Uint8Array): Uint8Array | null;
}

const isCompressedKey = (b: Uint8Array): boolean => b.length === 33 && (b[0] === 2 || b[0] === 3);

function context(keys: () => Uint8Array[], deps: CommonDeps, sign: (key: Uint8Array) => Uint8Array | null): SatisfierContext {
  const note = deps.note;
  return {
    sign(i) {
      const sig = sign(keys()[i]!);
      if (!sig && note && !note.missingKeys.includes(hexOf(keys()[i]!))) note.missingKeys.push(hexOf(keys()[i]!));
      return sig ? { avail: 'YES', sig } : { avail: 'NO', sig: new Uint8Array(0) };
    },
    pkBytes: (i) => keys()[i]!,
    checkOlder(n) {
      const ok = deps.checker.checkSequence(n);
      if (!ok && note && !note.unmetOlder.includes(n)) note.unmetOlder.push(n);
      return ok;
    },
    checkAfter(n) {
      const ok = deps.checker.checkLockTime(n);
      if (!ok && note && !note.unmetAfter.includes(n)) note.unmetAfter.push(n);
      return ok;
    },
    preimage(frag, hash) {
      // Core's Satisfier hands over whatever the PSBT holds under the hash (MsLookupHelper)
      const pre = deps.preimages[frag].get(hexOf(hash)) ?? null;
      if (note) {
        const bad = pre && preimageProblem(frag, hash, pre);
        if (!pre) pushOnce(note.missingPreimages, `${frag}(${hexOf(hash)})`);
        else if (bad) pushOnce(note.badPreimages, bad);
      }
      return pre;
    },
  };
}

/** WshSatisfier + Satisfy: the witness stack (without the script) or null. */
export function satisfyWitnessScript(ws: Uint8Array, deps: WshDeps): Uint8Array[] | null {
  const decoded = fromScript(ws, 'p2wsh', {
    fromPk: (b) => (isCompressedKey(b) ? b : null),
    fromPkh: (h) => {
      const pub = deps.pubkeyOf(hexOf(h));
      return pub && pub.length === 33 ? pub : null;
    },
  });
  if (!decoded) return null;
  if (deps.note) deps.note.decoded = true;
  const r = satisfy(decoded.node, context(() => decoded.keys, deps, deps.sign));
  if (r.avail !== 'YES') {
    if (deps.note) deps.note.why = r.why;
    return null;
  }
  return r.stack;
}

/** GetSerializeSize of a witness stack. */
function stackSize(stack: Uint8Array[]): number {
  const cs = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);
  let size = cs(stack.length);
  for (const e of stack) size += cs(e.length) + e.length;
  return size;
}

/** SignTaprootScript for one leaf (BIP342 leaves only): the stack without script and control block, or null. */
function satisfyLeaf(leaf: TapLeafScript, deps: TapDeps): Uint8Array[] | null {
  if (leaf.ver !== TAPSCRIPT) return null;
  const lh = tapLeafHash(leaf.script, leaf.ver);
  const decoded = fromScript(leaf.script, 'tapscript', {
    fromPk: (b) => (b.length === 32 ? b : null),
    fromPkh: (h) => {
      const pub = deps.pubkeyOf(hexOf(h));
      return pub ? pub.subarray(1, 33) : null;
    },
  });
  if (!decoded) return null;
  if (deps.note) deps.note.decoded = true;
  const r = satisfy(decoded.node, context(() => decoded.keys, deps, (x) => deps.sign(x, lh)));
  if (r.avail !== 'YES') {
    if (deps.note && !deps.note.why) deps.note.why = r.why;
    return null;
  }
  return r.stack;
}

/** SignTaproot's script path: the smallest complete witness over all leaves (script and control block pushed), or null. */
export function satisfyTapLeaves(scripts: Map<string, TapLeafScript>, deps: TapDeps): Uint8Array[] | null {
  const leaves = [...scripts.values()].sort((a, b) => cmpStr(a.scriptHex, b.scriptHex) || a.ver - b.ver);
  let best: Uint8Array[] | null = null;
  for (const leaf of leaves) {
    const stack = satisfyLeaf(leaf, deps);
    if (!stack) continue;
    const controls = [...leaf.controls.entries()].sort(([ah, a], [bh, b]) => a.length - b.length || cmpStr(ah, bh));
    if (controls.length === 0) continue;
    const full = [...stack, leaf.script, controls[0]![1]];
    if (!best || stackSize(full) < stackSize(best)) best = full;
  }
  return best;
}
