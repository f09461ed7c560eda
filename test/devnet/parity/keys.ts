/**
 * Fixed keys of the parity test, and transactions it signs itself: both nodes mine to the same
 * addresses and accept the same raw transactions, so their chains stay byte-identical until a wallet
 * (with Core's random keys) takes part. Spends of the miner's coins go through the taproot key path:
 * a Schnorr signature is always 64 bytes, so a transaction signed per node (paying each node's own
 * wallet addresses) has the same size on both.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { OutScript, Transaction, p2pkh, p2sh, p2tr, p2wpkh } from '@scure/btc-signer';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { hex } from '@scure/base';
import { HDKey } from '@scure/bip32';

export const REGTEST_NET: BTC_NETWORK = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };

const priv = (name: string): Uint8Array => sha256(utf8ToBytes(`spyglass-parity/${name}`));

export const MINER_KEY = priv('miner');
export const MINER = p2tr(schnorr.getPublicKey(MINER_KEY), undefined, REGTEST_NET);
/** A second miner, for blocks that must not add to the first one's coins. */
export const OTHER_MINER = p2tr(schnorr.getPublicKey(priv('other miner')), undefined, REGTEST_NET);

const ECDSA_KEY = priv('ecdsa');
const ECDSA_PUB = secp256k1.getPublicKey(ECDSA_KEY, true);
/** Outputs of other kinds for decoding: P2WPKH, P2PKH, P2SH-P2WPKH of a fixed key. */
export const FIXED = {
  p2wpkh: p2wpkh(ECDSA_PUB, REGTEST_NET),
  p2pkh: p2pkh(ECDSA_PUB, REGTEST_NET),
  p2shP2wpkh: p2sh(p2wpkh(ECDSA_PUB, REGTEST_NET), REGTEST_NET),
};

/** A fixed BIP32 key for descriptors (tprv and its tpub at m/84h/1h/0h). */
const HD = HDKey.fromMasterSeed(priv('hd'), { private: 0x04358394, public: 0x043587cf });
export const FIXED_TPRV = HD.privateExtendedKey;
export const FIXED_ACCOUNT_TPUB = HD.derive("m/84'/1'/0'").publicExtendedKey;
export const FIXED_PUB_HEX = Buffer.from(ECDSA_PUB).toString('hex');
export const FIXED_XONLY_HEX = Buffer.from(schnorr.getPublicKey(MINER_KEY)).toString('hex');

export interface Coin {
  txid: string;
  vout: number;
  /** Satoshis. */
  value: bigint;
}

export type Output = { address: string; value: bigint } | { data: string };

/** Spends MINER coins (key path) to the outputs; the fee is whatever is left. */
export function spendMiner(coins: Coin[], outputs: Output[], opts: { sequence?: number; locktime?: number } = {}): { hex: string; txid: string } {
  const tx = new Transaction({ version: 2, lockTime: opts.locktime ?? 0, allowUnknownOutputs: true });
  for (const c of coins) {
    tx.addInput({
      txid: c.txid,
      index: c.vout,
      sequence: opts.sequence ?? 0xfffffffd,
      witnessUtxo: { script: MINER.script, amount: c.value },
      tapInternalKey: MINER.tapInternalKey,
    });
  }
  for (const o of outputs) {
    if ('data' in o) tx.addOutput({ script: OutScript.encode({ type: 'unknown', script: hex.decode(`6a${(o.data.length / 2).toString(16).padStart(2, '0')}${o.data}`) }), amount: 0n });
    else tx.addOutputAddress(o.address, o.value, REGTEST_NET);
  }
  tx.sign(MINER_KEY, undefined, new Uint8Array(32));
  tx.finalize();
  return { hex: tx.hex, txid: tx.id };
}

/** The transaction with one output's amount replaced (the signature no longer matches, which Core checks after the amounts). */
export function withOutputValue(txHex: string, from: bigint, to: bigint): string {
  const le = (n: bigint): string => {
    let h = '';
    for (let i = 0n; i < 8n; i++) h += ((n >> (8n * i)) & 0xffn).toString(16).padStart(2, '0');
    return h;
  };
  if (txHex.split(le(from)).length !== 2) throw new Error('amount not found once');
  return txHex.replace(le(from), le(to));
}

/** Spends a FIXED.p2wpkh coin (ECDSA, low-R like Core). */
export function spendP2wpkh(coin: Coin, outputs: Output[]): { hex: string; txid: string } {
  const tx = new Transaction({ version: 2, lowR: true });
  tx.addInput({ txid: coin.txid, index: coin.vout, sequence: 0xfffffffd, witnessUtxo: { script: FIXED.p2wpkh.script, amount: coin.value } });
  for (const o of outputs) if (!('data' in o)) tx.addOutputAddress(o.address, o.value, REGTEST_NET);
  tx.sign(ECDSA_KEY);
  tx.finalize();
  return { hex: tx.hex, txid: tx.id };
}

/** BTC as decimal text (a JSON number token) → satoshis. */
export function sats(btc: string): bigint {
  const [w = '0', f = ''] = btc.split('.');
  return BigInt(w) * 100_000_000n + BigInt((f + '00000000').slice(0, 8));
}
