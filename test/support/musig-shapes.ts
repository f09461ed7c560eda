/**
 * The musig() descriptor shapes of issue #32 and Core's MuSig2 rounds on them, shared by the
 * recorder (scripts/record-musig.ts) and the real-Core spend test (test/main/musig-spend-core.test.ts).
 * Participants A, B, C and the plain key D are fixed-seed accounts (m/87'/1'/0'); a shape's
 * watch-only descriptor has their tpubs, and signer X's copy has X's tprv in X's place, as a Core
 * key wallet holding X's key imports it.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { descriptorChecksum } from '../../shared/bitcoin/descriptor-checksum';
import { toHex } from '../../shared/bitcoin/hex';
import type { TestRpc } from './rpc';

export type Who = 'A' | 'B' | 'C' | 'D';
const TPUB = { public: 0x043587cf, private: 0x04358394 };

/** Participant accounts: fixed seeds, m/87'/1'/0' (tpub and tprv with their origin, no derivation after). */
function account(name: Who): { pub: string; prv: string } {
  const root = HDKey.fromMasterSeed(sha256(new TextEncoder().encode(`spyglass-musig-${name}`)), TPUB);
  const acct = root.derive("m/87'/1'/0'");
  const f = root.fingerprint;
  const fp = toHex(Uint8Array.from([(f >>> 24) & 0xff, (f >>> 16) & 0xff, (f >>> 8) & 0xff, f & 0xff]));
  return { pub: `[${fp}/87h/1h/0h]${acct.publicExtendedKey}`, prv: `[${fp}/87h/1h/0h]${acct.privateExtendedKey}` };
}
const KEYS: Record<Who, { pub: string; prv: string }> = { A: account('A'), B: account('B'), C: account('C'), D: account('D') };

export interface MusigShape {
  name: string;
  /** The descriptor with A, B, C, D for the keys (no checksum). */
  template: string;
  /** The participants that sign (each has a key wallet). */
  signers: Who[];
}

export const MUSIG_SHAPES: MusigShape[] = [
  { name: '2-of-2 key path, musig(xpubs)/0/*', template: 'tr(musig(A,B)/0/*)', signers: ['A', 'B'] },
  { name: '3-of-3 key path, ranged participants', template: 'tr(musig(A/0/*,B/0/*,C/0/*))', signers: ['A', 'B', 'C'] },
  { name: '2-of-2 key path with a script tree', template: 'tr(musig(A,B)/1/*,pk(D/0/*))', signers: ['A', 'B'] },
  { name: 'musig leaf in a script tree', template: 'tr(D/1/*,{pk(musig(A,B)/2/*),pk(C/2/*)})', signers: ['A', 'B'] },
  { name: 'musig leaf, ranged participants', template: 'tr(D/3/*,pk(musig(A/3/*,B/3/*,C/3/*)))', signers: ['A', 'B', 'C'] },
];

/** The range every wallet imports. */
export const MUSIG_RANGE: [number, number] = [0, 5];

const fill = (t: string, key: (k: Who) => string): string => t.replace(/(?<=[(,{])([ABCD])(?=[/),}])/g, (_, k: Who) => key(k));
const withSum = (d: string): string => `${d}#${descriptorChecksum(d)}`;
export const musigWatchDescriptor = (s: MusigShape): string => withSum(fill(s.template, (k) => KEYS[k].pub));
const signerDescriptor = (s: MusigShape, who: Who): string => withSum(fill(s.template, (k) => (k === who ? KEYS[k].prv : KEYS[k].pub)));

/** Creates the key wallets `musig-A`, `musig-B`, `musig-C`, each with every shape it signs for. */
export async function createMusigSigners(rpc: TestRpc): Promise<void> {
  for (const who of ['A', 'B', 'C'] as Who[]) {
    await rpc.call('createwallet', { wallet_name: `musig-${who}`, blank: true });
    const req = MUSIG_SHAPES.filter((s) => s.signers.includes(who)).map((s) => ({ desc: signerDescriptor(s, who), range: MUSIG_RANGE, timestamp: 'now' }));
    const imp = await rpc.call<{ success: boolean }[]>('importdescriptors', [req], `musig-${who}`);
    imp.forEach((r, i) => {
      if (!r.success) throw new Error(`signer ${who}, descriptor ${i}: import failed ${JSON.stringify(r)}`);
    });
  }
}

/** walletprocesspsbt in `wallet` (sign unless told not to, never finalize; sighash type DEFAULT unless told). */
export async function processIn(rpc: TestRpc, psbt: string, wallet: string, sign = true, sighash = 'DEFAULT'): Promise<string> {
  return (await rpc.call<{ psbt: string }>('walletprocesspsbt', [psbt, sign, sighash, true, false], wallet)).psbt;
}

/** The nonce round: each signer in turn adds its public nonce. */
export async function nonceRound(rpc: TestRpc, psbt: string, signers: Who[], sighash = 'DEFAULT'): Promise<string> {
  let out = psbt;
  for (const w of signers) out = await processIn(rpc, out, `musig-${w}`, true, sighash);
  return out;
}

/** The partial signature round: each signer alone on the nonces PSBT (its answer; combinepsbt joins them). */
export async function partialRound(rpc: TestRpc, nonces: string, signers: Who[], sighash = 'DEFAULT'): Promise<string[]> {
  const each: string[] = [];
  for (const w of signers) each.push(await processIn(rpc, nonces, `musig-${w}`, true, sighash));
  return each;
}
