/**
 * Policies with hash challenges — sha256(), hash256(), ripemd160(), hash160() — for the recorder
 * of Core's finalizer on PSBTs carrying preimages (scripts/record-miniscript-preimages.ts) and the
 * test that replays it (test/bitcoin/miniscript-finalize-hash.test.ts). Core's wallet cannot add a
 * preimage to a PSBT, so the recorder writes the PSBT_IN_<HASH> field itself (our serializer) into
 * the PSBT the watch-only wallet filled, before the Core key wallets sign; Core's finalizepsbt then
 * satisfies the script with it. Keys A, B as in miniscript-policies.ts; the preimages are fixed.
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { toHex } from '../../shared/bitcoin/hex';
import { NUMS, type Policy, type SpendCase } from './miniscript-policies';

export type HashFn = 'sha256' | 'hash256' | 'ripemd160' | 'hash160';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
export const HASH: Record<HashFn, (b: Uint8Array) => Uint8Array> = {
  sha256: (b) => sha256(b),
  hash256: (b) => sha256(sha256(b)),
  ripemd160: (b) => ripemd160(b),
  hash160: (b) => ripemd160(sha256(b)),
};

/** The 32-byte preimage of each fragment's challenge. */
export const PREIMAGE: Record<HashFn, Uint8Array> = {
  sha256: sha256(utf8('spyglass-preimage-sha256')),
  hash256: sha256(utf8('spyglass-preimage-hash256')),
  ripemd160: sha256(utf8('spyglass-preimage-ripemd160')),
  hash160: sha256(utf8('spyglass-preimage-hash160')),
};
/** A 33-byte preimage: it hashes to the challenge, but miniscript's SIZE 32 check refuses it. */
export const LONG_PREIMAGE = Uint8Array.of(...sha256(utf8('spyglass-preimage-long')), 0x01);

const digest = (fn: HashFn, pre: Uint8Array = PREIMAGE[fn]): string => toHex(HASH[fn](pre));

export interface HashCase extends SpendCase {
  /** What the PSBT carries for the challenge: the preimage, none, 32 other bytes under its hash, or the 33-byte one. */
  preimage: 'right' | 'none' | 'wrong' | 'long';
}

export interface HashPolicy extends Policy {
  fn: HashFn;
  /** The preimage 'right' and 'long' put in (the challenge is its hash). */
  secret: Uint8Array;
  cases: HashCase[];
}

export const HASH_POLICIES: HashPolicy[] = [
  {
    name: 'A and the sha256 preimage',
    fn: 'sha256',
    secret: PREIMAGE.sha256,
    template: `wsh(and_v(v:pk(A),sha256(${digest('sha256')})))`,
    cases: [
      { note: 'A signs, the preimage given', signers: ['A'], preimage: 'right', complete: true },
      { note: 'A signs, no preimage', signers: ['A'], preimage: 'none', complete: false },
      { note: 'A signs, a wrong preimage under the hash', signers: ['A'], preimage: 'wrong', complete: false },
    ],
  },
  {
    name: 'A and the hash256 preimage',
    fn: 'hash256',
    secret: PREIMAGE.hash256,
    template: `wsh(and_v(v:pk(A),hash256(${digest('hash256')})))`,
    cases: [
      { note: 'A signs, the preimage given', signers: ['A'], preimage: 'right', complete: true },
      { note: 'A signs, no preimage', signers: ['A'], preimage: 'none', complete: false },
    ],
  },
  {
    name: 'A, or B and the ripemd160 preimage',
    fn: 'ripemd160',
    secret: PREIMAGE.ripemd160,
    template: `wsh(or_d(pk(A),and_v(v:pk(B),ripemd160(${digest('ripemd160')}))))`,
    cases: [
      { note: 'B signs, the preimage given', signers: ['B'], preimage: 'right', complete: true },
      { note: 'B signs, no preimage', signers: ['B'], preimage: 'none', complete: false },
      { note: 'A signs, no preimage: the key path needs none', signers: ['A'], preimage: 'none', complete: true },
      { note: 'A and B sign, the preimage given: the cheaper of both', signers: ['A', 'B'], preimage: 'right', complete: true },
    ],
  },
  {
    name: 'tr leaf: A and the hash160 preimage',
    fn: 'hash160',
    secret: PREIMAGE.hash160,
    template: `tr(${NUMS},and_v(v:pk(A),hash160(${digest('hash160')})))`,
    cases: [
      { note: 'A signs, the preimage given', signers: ['A'], preimage: 'right', complete: true },
      { note: 'A signs, no preimage', signers: ['A'], preimage: 'none', complete: false },
      { note: 'A signs, a wrong preimage under the hash', signers: ['A'], preimage: 'wrong', complete: false },
    ],
  },
  {
    name: 'A and a sha256 whose preimage is 33 bytes',
    fn: 'sha256',
    secret: LONG_PREIMAGE,
    template: `wsh(and_v(v:pk(A),sha256(${digest('sha256', LONG_PREIMAGE)})))`,
    cases: [{ note: 'A signs, the 33-byte preimage given', signers: ['A'], preimage: 'long', complete: false }],
  },
  {
    name: 'A and the hash256 preimage, else B',
    fn: 'hash256',
    secret: PREIMAGE.hash256,
    template: `wsh(andor(pk(A),hash256(${digest('hash256')}),pk(B)))`,
    cases: [
      { note: 'A signs, the preimage given', signers: ['A'], preimage: 'right', complete: true },
      { note: 'A signs, no preimage', signers: ['A'], preimage: 'none', complete: false },
      { note: 'B signs: the else branch needs no preimage', signers: ['B'], preimage: 'none', complete: true },
      { note: 'A and B sign, the preimage given: the smaller witness', signers: ['A', 'B'], preimage: 'right', complete: true },
    ],
  },
];

/** The challenge's hash (hex, as the script pushes it) and the preimage bytes a case puts in the PSBT, or null for none. */
export function casePreimage(p: HashPolicy, c: HashCase): { hash: string; preimage: Uint8Array } | null {
  if (c.preimage === 'none') return null;
  const hash = toHex(HASH[p.fn](p.secret));
  if (c.preimage === 'wrong') return { hash, preimage: sha256(utf8(`spyglass-not-the-preimage-${p.fn}`)) };
  return { hash, preimage: p.secret };
}
