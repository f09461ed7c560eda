// Two cosigners' PSBTs of an n-input 2-of-3 P2WSH spend, each signed on every input by one of them
// (@scure/btc-signer with known keys stands in for the hardware wallets): the bench's 500-input case
// (bench/psbt-roles.ts) and the built worker's test (test/main/bundle-imports.test.ts).
import { HDKey } from '@scure/bip32';
import { p2ms, p2wpkh, p2wsh, Transaction } from '@scure/btc-signer';
import { sha256 } from '@noble/hashes/sha2.js';

const TPRV = { private: 0x04358394, public: 0x043587cf };

/** corruptInput: the first cosigner's signature of that input has one bit of S flipped (still strict DER, low S). */
export function multisigPsbts(nInputs: number, opts: { corruptInput?: number } = {}): [Uint8Array, Uint8Array] {
  const roots = [1, 2, 3].map((s) => HDKey.fromMasterSeed(new Uint8Array(32).fill(s), TPRV));
  const tx = new Transaction();
  const children: HDKey[][] = [];
  for (let i = 0; i < nInputs; i++) {
    const ks = roots.map((r) => r.derive(`m/0/${i}`));
    children.push(ks);
    const pubs = ks.map((k) => k.publicKey!).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const ms = p2ms(2, pubs);
    const w = p2wsh(ms);
    tx.addInput({ txid: sha256(Uint8Array.of(i & 0xff, i >> 8)), index: i % 3, sequence: 0xfffffffd, witnessUtxo: { script: w.script, amount: 100_000n }, witnessScript: ms.script });
  }
  tx.addOutput({ script: p2wpkh(roots[0]!.derive('m/1/0').publicKey!).script, amount: BigInt(nInputs) * 100_000n - 200_000n });
  const unsigned = tx.toPSBT(0);
  const signedBy = (k: number): Uint8Array => {
    const t = Transaction.fromPSBT(unsigned);
    for (let i = 0; i < nInputs; i++) t.signIdx(children[i]![k]!.privateKey!, i);
    const psbt = t.toPSBT(0);
    if (k !== 0 || opts.corruptInput === undefined) return psbt;
    // The signature's bytes are unique in the PSBT: changed in place.
    const sig = t.getInput(opts.corruptInput).partialSig![0]![1];
    const bad = sig.slice();
    bad[bad.length - 2]! ^= 1; // the last byte of S, before the sighash type
    const hex = Buffer.from(psbt).toString('hex').replace(Buffer.from(sig).toString('hex'), Buffer.from(bad).toString('hex'));
    return Uint8Array.from(Buffer.from(hex, 'hex'));
  };
  return [signedBy(0), signedBy(1)];
}
