/**
 * Test signer: builds transactions spending coins of every InputKind with known keys, signs them with
 * @scure/btc-signer (ECDSA from noble: RFC 6979 nonces, low S, R not ground unless `lowR`; Schnorr
 * with SIGHASH_DEFAULT unless told), finalizes and returns the signed bytes. Multisig with more than
 * 16 keys (which btc-signer's p2ms refuses) is signed here by hand: BIP143 sighash from btc-signer,
 * ECDSA from noble, witness assembled as Core's signer does (dummy, signatures, witnessScript).
 */
import * as btc from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { InputKind } from '../../../shared/bitcoin/spend/size';

export const NET = btc.TEST_NETWORK;

/** Known test key i: sha256("spyglass spend test key " + i). */
export function testKey(i: number): { priv: Uint8Array; pub: Uint8Array; xonly: Uint8Array } {
  const priv = sha256(utf8ToBytes(`spyglass spend test key ${i}`));
  const pub = secp256k1.getPublicKey(priv, true);
  return { priv, pub, xonly: pub.subarray(1) };
}

export function testUncompressedPub(i: number): Uint8Array {
  return secp256k1.getPublicKey(testKey(i).priv, false);
}

interface Built {
  script: Uint8Array;
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  tapInternalKey?: Uint8Array;
  /** Private keys that sign (m of them for multisig). */
  signers: Uint8Array[];
  /** Spent by hand (btc-signer cannot): multisig with n > 16 (witness), uncompressed keys (legacy). */
  manual?: { witnessScript: Uint8Array; nested: boolean } | { legacyScript: Uint8Array; pubkey?: Uint8Array };
  legacy: boolean;
}

/** The output script (and the scripts needed to spend it) of a coin of `kind`, keys from `keyBase`. */
export function buildCoin(kind: InputKind, keyBase: number): Built {
  switch (kind.type) {
    case 'p2pkh': {
      const k = testKey(keyBase);
      if (!kind.uncompressed) return { script: btc.p2pkh(k.pub, NET).script, signers: [k.priv], legacy: true };
      const pub = testUncompressedPub(keyBase);
      const script = btc.p2pkh(pub, NET).script;
      return { script, signers: [k.priv], manual: { legacyScript: script, pubkey: pub }, legacy: true };
    }
    case 'p2wpkh': {
      const k = testKey(keyBase);
      return { script: btc.p2wpkh(k.pub, NET).script, signers: [k.priv], legacy: false };
    }
    case 'p2sh-p2wpkh': {
      const k = testKey(keyBase);
      const p = btc.p2sh(btc.p2wpkh(k.pub, NET), NET);
      return { script: p.script, redeemScript: p.redeemScript, signers: [k.priv], legacy: false };
    }
    case 'p2tr': {
      const k = testKey(keyBase);
      const p = btc.p2tr(k.xonly, undefined, NET);
      return { script: p.script, tapInternalKey: p.tapInternalKey, signers: [k.priv], legacy: false };
    }
    case 'p2sh-multi':
    case 'p2wsh-multi':
    case 'p2sh-p2wsh-multi': {
      const keys = Array.from({ length: kind.n }, (_, j) => testKey(keyBase + j));
      const uncompressed = kind.type === 'p2sh-multi' ? (kind.uncompressed ?? 0) : 0;
      const pubs = keys.map((k, j) => (j < uncompressed ? testUncompressedPub(keyBase + j) : k.pub));
      const signers = keys.slice(0, kind.m).map((k) => k.priv);
      if (kind.type === 'p2sh-multi' && uncompressed > 0) {
        const rs = btc.Script.encode([kind.m, ...pubs, kind.n, 'CHECKMULTISIG']);
        const sh = btc.OutScript.encode({ type: 'sh', hash: ripemd160(sha256(rs)) });
        return { script: sh, redeemScript: rs, signers, manual: { legacyScript: rs }, legacy: true };
      }
      if (kind.n > 16) {
        if (kind.type === 'p2sh-multi') throw new Error('test signer: p2sh multisig has at most 15 keys');
        const ws = btc.Script.encode([kind.m, ...pubs, kind.n, 'CHECKMULTISIG']);
        const wsh = btc.OutScript.encode({ type: 'wsh', hash: sha256(ws) });
        if (kind.type === 'p2wsh-multi') return { script: wsh, signers, manual: { witnessScript: ws, nested: false }, legacy: false };
        const p = btc.p2sh({ type: 'wsh', script: wsh }, NET);
        return { script: p.script, redeemScript: wsh, signers, manual: { witnessScript: ws, nested: true }, legacy: false };
      }
      const ms = btc.p2ms(kind.m, pubs);
      if (kind.type === 'p2sh-multi') {
        const p = btc.p2sh(ms, NET);
        return { script: p.script, redeemScript: p.redeemScript, signers, legacy: true };
      }
      if (kind.type === 'p2wsh-multi') {
        const p = btc.p2wsh(ms, NET);
        return { script: p.script, witnessScript: p.witnessScript, signers, legacy: false };
      }
      const p = btc.p2sh(btc.p2wsh(ms, NET), NET);
      return { script: p.script, redeemScript: p.redeemScript, witnessScript: p.witnessScript, signers, legacy: false };
    }
    case 'path':
      throw new Error('test signer: spending paths are sized by path-size.ts and checked in path-size.test.ts');
  }
}

export interface SignOptions {
  /** Grind R (as Core does): every ECDSA signature 71 bytes with sighash. Default false. */
  lowR?: boolean;
  /** Taproot key-path sighash; default SIGHASH_DEFAULT (64-byte signature), SigHash.ALL gives 65. */
  taprootSighash?: number;
}

/** Signs a transaction spending one coin per kind in `inputs` (values 1e6 + i sat) to `outputs`; returns the signed bytes. */
export function signSpend(inputs: readonly InputKind[], outputs: readonly { script: Uint8Array; amount: bigint }[], opts: SignOptions = {}): Uint8Array {
  const built = inputs.map((k, i) => buildCoin(k, 1000 + i * 32));
  // One previous transaction holding every coin (legacy inputs need it whole: non_witness_utxo).
  const prev = btc.RawTx.encode({
    version: 2,
    inputs: [{ txid: new Uint8Array(32).fill(7), index: 0, finalScriptSig: new Uint8Array(0), sequence: 0xffffffff }],
    outputs: built.map((b, i) => ({ script: b.script, amount: 1_000_000n + BigInt(i) })),
    lockTime: 0,
  });
  const prevTxid = sha256(sha256(prev)).reverse();
  const tx = new btc.Transaction({ lowR: opts.lowR ?? false, allowUnknownInputs: true, allowUnknownOutputs: true, version: 2 });
  built.forEach((b, i) => {
    const amount = 1_000_000n + BigInt(i);
    const base = { txid: prevTxid, index: i, sequence: 0xfffffffd };
    if (b.manual && 'legacyScript' in b.manual) {
      tx.addInput({ ...base, nonWitnessUtxo: prev });
    } else if (b.manual) {
      tx.addInput({ ...base, witnessUtxo: { script: b.script, amount }, ...(b.redeemScript ? { redeemScript: b.redeemScript } : {}) });
    } else if (b.legacy) {
      tx.addInput({ ...base, nonWitnessUtxo: prev, ...(b.redeemScript ? { redeemScript: b.redeemScript } : {}) });
    } else {
      tx.addInput({
        ...base,
        witnessUtxo: { script: b.script, amount },
        ...(b.redeemScript ? { redeemScript: b.redeemScript } : {}),
        ...(b.witnessScript ? { witnessScript: b.witnessScript } : {}),
        ...(b.tapInternalKey ? { tapInternalKey: b.tapInternalKey } : {}),
        ...(b.tapInternalKey && opts.taprootSighash !== undefined ? { sighashType: opts.taprootSighash } : {}),
      });
    }
  });
  for (const o of outputs) tx.addOutput({ script: o.script, amount: o.amount });
  // Hand-signed inputs first (their sighash depends only on the unsigned transaction).
  const signHash = (hash: Uint8Array, priv: Uint8Array): Uint8Array => {
    let sig = secp256k1.sign(hash, priv, { prehash: false, format: 'der' });
    if (opts.lowR) {
      for (let c = 1; sig[3] !== 32; c++) sig = secp256k1.sign(hash, priv, { prehash: false, format: 'der', extraEntropy: sha256(Uint8Array.of(c)) });
    }
    return Uint8Array.from([...sig, btc.SigHash.ALL]);
  };
  built.forEach((b, i) => {
    if (!b.manual) return;
    if ('legacyScript' in b.manual) {
      // legacy sighash (btc-signer's own, not in its typings)
      const preimageLegacy = (tx as unknown as { preimageLegacy(i: number, s: Uint8Array, h: number): Uint8Array }).preimageLegacy;
      const hash = preimageLegacy.call(tx, i, b.manual.legacyScript, btc.SigHash.ALL);
      const sigs = b.signers.map((priv) => signHash(hash, priv));
      const scriptSig = b.manual.pubkey ? btc.Script.encode([sigs[0]!, b.manual.pubkey]) : btc.Script.encode([0, ...sigs, b.manual.legacyScript]);
      tx.updateInput(i, { finalScriptSig: scriptSig }, true);
      return;
    }
    const hash = tx.preimageWitnessV0(i, b.manual.witnessScript, btc.SigHash.ALL, 1_000_000n + BigInt(i));
    const sigs = b.signers.map((priv) => signHash(hash, priv));
    tx.updateInput(
      i,
      {
        finalScriptWitness: [new Uint8Array(0), ...sigs, b.manual.witnessScript],
        ...(b.manual.nested ? { finalScriptSig: btc.Script.encode([b.redeemScript!]) } : {}),
      },
      true,
    );
  });
  built.forEach((b, i) => {
    if (b.manual) return;
    for (const priv of b.signers) {
      const allowed = b.tapInternalKey && opts.taprootSighash !== undefined ? [opts.taprootSighash] : undefined;
      if (!tx.signIdx(priv, i, allowed)) throw new Error(`test signer: input ${i} (${inputs[i]!.type}) was not signed`);
    }
  });
  built.forEach((b, i) => {
    if (!b.manual) tx.finalizeIdx(i);
  });
  return tx.extract();
}
