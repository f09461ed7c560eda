/**
 * The spending policies of issue #32 and every path through them, shared by the finalize recorder
 * (scripts/record-miniscript-finalize.ts) and the real-Core spend test
 * (test/main/miniscript-spend-core.test.ts). Keys A, B, C are the recorder corpus's
 * (scripts/record-miniscript.ts: fixed seeds, BIP48 account m/48'/1'/0'/2', receive branch); a
 * policy's watch-only descriptor has their tpubs, and signer X's copy has X's tprv in X's place, as
 * a Core key wallet holding X's key would import it.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { descriptorChecksum } from '../../shared/bitcoin/descriptor-checksum';
import { toHex } from '../../shared/bitcoin/hex';
import type { TestRpc } from './rpc';

export type KeyName = 'A' | 'B' | 'C';
export const KEY_NAMES: KeyName[] = ['A', 'B', 'C'];

const TPUB = { public: 0x043587cf, private: 0x04358394 };

function account(name: KeyName): { pub: string; prv: string } {
  const root = HDKey.fromMasterSeed(sha256(new TextEncoder().encode(`spyglass-miniscript-${name}`)), TPUB);
  const acct = root.derive("m/48'/1'/0'/2'");
  const f = root.fingerprint;
  const fp = toHex(Uint8Array.from([(f >>> 24) & 0xff, (f >>> 16) & 0xff, (f >>> 8) & 0xff, f & 0xff]));
  const origin = `[${fp}/48h/1h/0h/2h]`;
  return { pub: `${origin}${acct.publicExtendedKey}/0/*`, prv: `${origin}${acct.privateExtendedKey}/0/*` };
}

const KEYS: Record<KeyName, { pub: string; prv: string }> = { A: account('A'), B: account('B'), C: account('C') };
/** BIP341's unspendable H point. */
export const NUMS = '50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0';
/** The absolute height of the after() policy: above the recorder's and the test's start heights. */
export const AFTER_HEIGHT = 200;

export interface SpendCase {
  /** The path, in words. */
  note: string;
  /** Core key wallets that sign, in order. */
  signers: KeyName[];
  /** The input's nSequence (default 0xfffffffd, as createpsbt writes with RBF). */
  sequence?: number;
  /** The transaction's nLockTime (default 0). */
  locktime?: number;
  /** Whether Core's finalizepsbt completes it. */
  complete: boolean;
}

export interface Policy {
  name: string;
  /** The descriptor with `A`, `B`, `C` standing for the keys (no checksum). */
  template: string;
  cases: SpendCase[];
}

export const POLICIES: Policy[] = [
  {
    name: 'A, or B after 10 blocks',
    template: 'wsh(or_d(pk(A),and_v(v:pkh(B),older(10))))',
    cases: [
      { note: 'primary: A signs', signers: ['A'], complete: true },
      { note: 'recovery: B signs, nSequence 10', signers: ['B'], sequence: 10, complete: true },
      { note: 'recovery without the relative timelock in nSequence', signers: ['B'], complete: false },
      { note: 'A and B both sign, nSequence 10: the cheaper primary path', signers: ['A', 'B'], sequence: 10, complete: true },
    ],
  },
  {
    name: 'A, or B after height 200',
    template: `wsh(or_d(pk(A),and_v(v:pkh(B),after(${AFTER_HEIGHT}))))`,
    cases: [
      { note: 'primary: A signs', signers: ['A'], complete: true },
      { note: `recovery: B signs, nLockTime ${AFTER_HEIGHT}`, signers: ['B'], locktime: AFTER_HEIGHT, complete: true },
      { note: 'recovery with nLockTime below the height', signers: ['B'], locktime: AFTER_HEIGHT - 1, complete: false },
    ],
  },
  {
    name: '2-of-3 decaying to 1-of-3 after 20 blocks',
    template: 'wsh(thresh(2,pk(A),s:pk(B),s:pk(C),sln:older(20)))',
    cases: [
      { note: '2-of-3: A and B', signers: ['A', 'B'], complete: true },
      { note: '2-of-3: B and C', signers: ['B', 'C'], complete: true },
      { note: '2-of-3: A and C', signers: ['A', 'C'], complete: true },
      { note: 'decayed: A alone, nSequence 20', signers: ['A'], sequence: 20, complete: true },
      { note: 'decayed: C alone, nSequence 20', signers: ['C'], sequence: 20, complete: true },
      { note: 'A alone without the relative timelock', signers: ['A'], complete: false },
      { note: 'A and B, nSequence 20: the cheapest of both paths', signers: ['A', 'B'], sequence: 20, complete: true },
    ],
  },
  {
    name: 'tr multi_a 2-of-3 under an unspendable key',
    template: `tr(${NUMS},multi_a(2,A,B,C))`,
    cases: [
      { note: 'A and B', signers: ['A', 'B'], complete: true },
      { note: 'B and C', signers: ['B', 'C'], complete: true },
      { note: 'A, B and C: two of the three signatures used', signers: ['A', 'B', 'C'], complete: true },
      { note: 'A alone', signers: ['A'], complete: false },
    ],
  },
  {
    name: 'tr sortedmulti_a 2-of-3 under an unspendable key',
    template: `tr(${NUMS},sortedmulti_a(2,A,B,C))`,
    cases: [
      { note: 'A and C', signers: ['A', 'C'], complete: true },
      { note: 'B alone', signers: ['B'], complete: false },
    ],
  },
  {
    name: 'tr key path A plus a leaf: B after 10 blocks',
    template: 'tr(A,and_v(v:pk(B),older(10)))',
    cases: [
      { note: 'key path: A signs', signers: ['A'], complete: true },
      { note: 'script path: B signs, nSequence 10', signers: ['B'], sequence: 10, complete: true },
      { note: 'A and B both sign, nSequence 10: the key path', signers: ['A', 'B'], sequence: 10, complete: true },
      { note: 'script path without the relative timelock', signers: ['B'], complete: false },
    ],
  },
  {
    name: 'tr tree: 2-of-3, or 1-of-3 after 20 blocks',
    template: `tr(${NUMS},{multi_a(2,A,B,C),and_v(v:multi_a(1,A,B,C),older(20))})`,
    cases: [
      { note: '2-of-3 leaf: A and B', signers: ['A', 'B'], complete: true },
      { note: 'decayed leaf: C alone, nSequence 20', signers: ['C'], sequence: 20, complete: true },
      { note: 'A and B, nSequence 20: the smaller witness of the two leaves', signers: ['A', 'B'], sequence: 20, complete: true },
    ],
  },
  {
    name: 'andor: A after 5 blocks, else B',
    template: 'wsh(andor(pk(A),older(5),pk(B)))',
    cases: [
      { note: 'A, nSequence 5', signers: ['A'], sequence: 5, complete: true },
      { note: 'B: the else branch', signers: ['B'], complete: true },
      { note: 'A without the relative timelock', signers: ['A'], complete: false },
    ],
  },
  {
    name: 'or_i: A after 5 blocks, or 2-of-2 B and C',
    template: 'wsh(or_i(and_v(v:pk(A),older(5)),multi(2,B,C)))',
    cases: [
      { note: 'B and C', signers: ['B', 'C'], complete: true },
      { note: 'A, nSequence 5', signers: ['A'], sequence: 5, complete: true },
      { note: 'B alone', signers: ['B'], complete: false },
    ],
  },
  {
    name: 'or_d with j: and pk_h: A, or B and C',
    template: 'wsh(or_d(pk(A),j:and_v(vc:pk_h(B),pk(C))))',
    cases: [
      { note: 'A', signers: ['A'], complete: true },
      { note: 'B and C', signers: ['B', 'C'], complete: true },
    ],
  },
  {
    name: 'tr or_b: A or B in a leaf',
    template: `tr(${NUMS},or_b(pk(A),s:pk(B)))`,
    cases: [
      { note: 'A', signers: ['A'], complete: true },
      { note: 'A and B: one of the two signatures used', signers: ['A', 'B'], complete: true },
    ],
  },
];

function fill(template: string, key: (k: KeyName) => string): string {
  // the keys are the single capital letters A, B, C standing as arguments
  return template.replace(/(?<=[(,])([ABC])(?=[),])/g, (_, k: KeyName) => key(k));
}

/** The watch-only descriptor, with its checksum. */
export function watchDescriptor(p: Policy): string {
  const d = fill(p.template, (k) => KEYS[k].pub);
  return `${d}#${descriptorChecksum(d)}`;
}

/** Signer `who`'s descriptor: its own key private, the others public. */
export function signerDescriptor(p: Policy, who: KeyName): string {
  const d = fill(p.template, (k) => (k === who ? KEYS[k].prv : KEYS[k].pub));
  return `${d}#${descriptorChecksum(d)}`;
}

/** The range every wallet imports (one address per case). */
export const RANGE: [number, number] = [0, 15];

/** Creates the signer wallets (`<prefix>-A` …: one per key, every policy with its key private) on `rpc`. */
export async function createSigners(rpc: TestRpc, policies: Policy[] = POLICIES, prefix = 'signer'): Promise<void> {
  for (const who of KEY_NAMES) {
    // the policies with this signer's key (a key wallet refuses a descriptor with no private key)
    const mine = policies.filter((p) => new RegExp(`[(,]${who}[),]`).test(p.template));
    if (mine.length === 0) continue;
    await rpc.call('createwallet', { wallet_name: `${prefix}-${who}`, blank: true });
    const req = mine.map((p) => ({ desc: signerDescriptor(p, who), range: RANGE, timestamp: 'now' }));
    const imp = await rpc.call<{ success: boolean; error?: unknown }[]>('importdescriptors', [req], `${prefix}-${who}`);
    imp.forEach((r, i) => {
      if (!r.success) throw new Error(`signer ${who}, ${mine[i]!.name}: import failed ${JSON.stringify(r)}`);
    });
  }
}

/** Each signer in turn adds its signatures (walletprocesspsbt, sign, not finalizing). */
export async function signInTurn(rpc: TestRpc, psbt: string, signers: KeyName[], prefix = 'signer'): Promise<string> {
  let out = psbt;
  for (const who of signers) {
    const r = await rpc.call<{ psbt: string }>('walletprocesspsbt', [out, true, 'DEFAULT', true, false], `${prefix}-${who}`);
    out = r.psbt;
  }
  return out;
}

/** createpsbt arguments for a case: the coin, one output, and the case's nSequence / nLockTime. */
export function createPsbtArgs(c: SpendCase, coin: { txid: string; vout: number }, to: string, amountBtc: number): unknown[] {
  const input: Record<string, unknown> = { txid: coin.txid, vout: coin.vout };
  if (c.sequence !== undefined) input.sequence = c.sequence;
  return [[input], [{ [to]: amountBtc }], c.locktime ?? 0, true];
}
