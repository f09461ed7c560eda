/**
 * Transactions the policy phase signs with fixed keys, for every standard input kind — P2PKH,
 * P2SH-P2WPKH, P2WPKH (ECDSA, low R), P2TR key path (Schnorr, fixed aux randomness), 2-of-3
 * multisig in P2WSH and in P2SH — with a chosen sighash type per input, so both nodes get the same
 * bytes; and the ways to spoil one signature the way a broken signer would.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { OutScript, SigHash, Transaction, p2ms, p2pkh, p2sh, p2tr, p2wpkh, p2wsh } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { REGTEST_NET, type Output } from './keys';

const priv = (name: string): Uint8Array => sha256(utf8ToBytes(`spyglass-parity/policy/${name}`));
const ECDSA = priv('ecdsa');
const SCHNORR = priv('schnorr');
const MS = [priv('ms1'), priv('ms2'), priv('ms3')];
const pub = (k: Uint8Array): Uint8Array => secp256k1.getPublicKey(k, true);

export const KINDS = {
  p2pkh: p2pkh(pub(ECDSA), REGTEST_NET),
  'p2sh-p2wpkh': p2sh(p2wpkh(pub(ECDSA), REGTEST_NET), REGTEST_NET),
  p2wpkh: p2wpkh(pub(ECDSA), REGTEST_NET),
  p2tr: p2tr(schnorr.getPublicKey(SCHNORR), undefined, REGTEST_NET),
  'p2wsh-2of3': p2wsh(p2ms(2, MS.map(pub)), REGTEST_NET),
  'p2sh-2of3': p2sh(p2ms(2, MS.map(pub)), REGTEST_NET),
} as const;
export type Kind = keyof typeof KINDS;

export interface KindCoin {
  txid: string;
  vout: number;
  value: bigint;
  kind: Kind;
  /** The previous transaction (P2PKH and P2SH multisig inputs need it whole). */
  prevHex: string;
  sighash?: number;
  sequence?: number;
}

/** Signs the inputs (each with its sighash type, ALL/DEFAULT by default) paying `outputs`. */
export function signKinds(coins: KindCoin[], outputs: Output[], opts: { version?: number; locktime?: number } = {}): { hex: string; txid: string } {
  const tx = new Transaction({ version: opts.version ?? 2, lockTime: opts.locktime ?? 0, allowUnknownOutputs: true, lowR: true, allowUnknownInputs: true });
  for (const c of coins) {
    const k = KINDS[c.kind];
    const input: Parameters<Transaction['addInput']>[0] = { txid: c.txid, index: c.vout, sequence: c.sequence ?? 0xfffffffd };
    if (c.kind === 'p2pkh' || c.kind === 'p2sh-2of3') input.nonWitnessUtxo = hex.decode(c.prevHex);
    else input.witnessUtxo = { script: k.script, amount: c.value };
    if ('redeemScript' in k && k.redeemScript) input.redeemScript = k.redeemScript;
    if ('witnessScript' in k && k.witnessScript) input.witnessScript = k.witnessScript;
    if (c.kind === 'p2tr') input.tapInternalKey = KINDS.p2tr.tapInternalKey;
    if (c.sighash !== undefined) input.sighashType = c.sighash;
    tx.addInput(input);
  }
  for (const o of outputs) {
    if ('data' in o) tx.addOutput({ script: OutScript.encode({ type: 'unknown', script: hex.decode(`6a${(o.data.length / 2).toString(16).padStart(2, '0')}${o.data}`) }), amount: 0n });
    else tx.addOutputAddress(o.address, o.value, REGTEST_NET);
  }
  coins.forEach((c, i) => {
    const allowed = [c.sighash ?? (c.kind === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL)];
    if (c.kind === 'p2tr') tx.signIdx(SCHNORR, i, allowed, new Uint8Array(32));
    else if (c.kind.endsWith('2of3')) {
      tx.signIdx(MS[0]!, i, allowed);
      tx.signIdx(MS[1]!, i, allowed);
    } else tx.signIdx(ECDSA, i, allowed);
    tx.finalizeIdx(i);
  });
  return { hex: tx.hex, txid: tx.id };
}

/** The transaction bytes with one witness item or script push replaced (found once by its hex). */
export function replaceOnce(txHex: string, from: string, to: string): string {
  if (txHex.split(from).length !== 2) throw new Error('bytes not found once');
  return txHex.replace(from, to);
}

/** The first ECDSA signature (DER + hash type byte, with its push length) in a transaction's hex, and the same with S made high (n − s). */
export function highS(txHex: string): { sig: string; high: string } {
  const m = /30(4[0-5])02(2[01])([0-9a-f]+)/.exec(txHex)!;
  const total = parseInt(m[1]!, 16);
  const der = txHex.slice(m.index, m.index + 4 + total * 2);
  const sig = der + txHex.slice(m.index + 4 + total * 2, m.index + 6 + total * 2);
  const bytes = hex.decode(der);
  const lenR = bytes[3]!;
  const r = bytes.slice(4, 4 + lenR);
  const s = bytes.slice(6 + lenR);
  const n = secp256k1.Point.Fn.ORDER;
  let high = (n - BigInt(`0x${hex.encode(s)}`)).toString(16);
  if (high.length % 2) high = `0${high}`;
  if (parseInt(high.slice(0, 2), 16) & 0x80) high = `00${high}`;
  const body = `02${lenR.toString(16).padStart(2, '0')}${hex.encode(r)}02${(high.length / 2).toString(16).padStart(2, '0')}${high}`;
  const newDer = `30${(body.length / 2).toString(16).padStart(2, '0')}${body}`;
  // With the witness item's length byte in front, so the replacement keeps the serialization valid.
  const len = (x: string): string => (x.length / 2).toString(16).padStart(2, '0');
  const highSig = newDer + sig.slice(-2);
  return { sig: len(sig) + sig, high: len(highSig) + highSig };
}
