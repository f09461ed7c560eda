/**
 * Spending from a devnet wallet as Core's wallet does it for sendtoaddress (wallet/spend.cpp): coin
 * selection (confirmed coins first, largest first — Core's own selection is randomized), the change
 * type Core picks, a change address reserved from the keypool and used up only when there is change,
 * anti-fee-sniping locktime, the fee priced at Core's estimated signed size, and real signatures.
 */
import { walletKeys } from './psbt-fill';
import { Transaction } from '@scure/btc-signer';
import type { Chain } from '../chain/chain';
import type { ChainTx, OutputInfo } from '../chain/types';
import { parseChainTx } from '../chain/tx';
import { WalletError, type AddressType, type Wallet } from './wallet';

export interface SpendOptions {
  /** sat/kvB (CFeeRate): the fee is rounded up per transaction. */
  feeRatePerKvB: bigint;
  subtractFeeFromOutputs?: number[];
  replaceable?: boolean;
  changeType?: AddressType;
}

type Output = { script: Uint8Array; value: bigint };

export function createTransaction(w: Wallet, chain: Chain, outputs: Output[], opts: SpendOptions): ChainTx {
  const target = outputs.reduce((s, o) => s + o.value, 0n);
  // Confirmed coins, plus unconfirmed change of the wallet's own transactions ("trusted", as Core).
  const coins = w
    .unspent(0, 9_999_999)
    .filter((c) => c.confirmations > 0 || w.isTrusted(c.txid))
    .sort((a, b) => (b.confirmations > 0 ? 1 : 0) - (a.confirmations > 0 ? 1 : 0) || (b.value > a.value ? 1 : b.value < a.value ? -1 : 0));
  const seq = opts.replaceable === false ? 0xfffffffe : 0xfffffffd;
  // Reserved (the keypool is topped up), used up only when the transaction has change.
  const changeAddr = w.peekAddress(opts.changeType ?? changeTypeFor(w, outputs), true);
  const subtract = opts.subtractFeeFromOutputs ?? [];

  let fee = 0n;
  for (let attempt = 0; attempt < 5; attempt++) {
    const need = subtract.length ? target : target + fee;
    const selected: typeof coins = [];
    let sum = 0n;
    for (const c of coins) {
      if (sum >= need && selected.length) break;
      selected.push(c);
      sum += c.value;
    }
    if (sum < need) throw new WalletError(-6, 'Insufficient funds');
    const outs = outputs.map((o, i) => ({
      script: o.script,
      value: subtract.includes(i) ? o.value - fee / BigInt(subtract.length) : o.value,
    }));
    if (outs.some((o) => o.value < 0n)) throw new WalletError(-6, 'The transaction amount is too small to pay the fee');
    const change = sum - outs.reduce((s, o) => s + o.value, 0n) - fee;
    const withChange = change > 546n;
    const finalOuts = withChange ? [...outs, { script: changeAddr.script, value: change }] : outs;
    const tx = signTransaction(w, chain, selected, finalOuts, seq, antiFeeSnipingLocktime(chain));
    // Core prices the transaction at its largest signed size (CalculateMaximumSignedTxSize).
    const wanted = (opts.feeRatePerKvB * BigInt(Math.ceil(estimatedWeight(tx, selected) / 4)) + 999n) / 1000n;
    const actual = sum - finalOuts.reduce((s, o) => s + o.value, 0n);
    if (actual >= wanted && (actual - wanted <= 546n || !withChange)) {
      if (withChange) changeAddr.take();
      return tx;
    }
    fee = wanted;
  }
  throw new WalletError(-4, 'Transaction too large');
}

/**
 * TransactionChangeType without -changetype, default address type bech32: taproot change when a
 * recipient is taproot, else bech32.
 */
export function changeTypeFor(w: Wallet, outputs: ReadonlyArray<{ script: Uint8Array }>): AddressType {
  const taproot = outputs.some((o) => o.script.length === 34 && o.script[0] === 0x51 && o.script[1] === 0x20);
  return taproot && w.hasActiveDescriptor('bech32m', true) ? 'bech32m' : 'bech32';
}

/**
 * DiscourageFeeSniping: the tip's height while the tip is current (less than 8 hours old by the
 * node's clock) — Core then lowers it by a random 0–99 one time in ten, which the devnet does not —
 * and 0 when it is not.
 */
export function antiFeeSnipingLocktime(chain: Chain): number {
  const tip = chain.tip();
  return tip.time >= chain.clock() - 8 * 60 * 60 ? tip.height : 0;
}

/** Signs inputs (coins of this wallet) with real keys; returns the finished transaction. */
export function signTransaction(w: Wallet, chain: Chain, coins: OutputInfo[], outputs: Output[], sequence: number, locktime: number): ChainTx {
  // Core grinds ECDSA signatures to low R (71 bytes with the sighash byte), and so does the devnet.
  const t = new Transaction({ allowUnknownOutputs: true, lockTime: locktime, version: 2, lowR: true });
  const keys: Uint8Array[] = [];
  for (const c of coins) {
    const entry = w.lookup(c.script);
    if (!entry) throw new Error('not a wallet coin');
    const e = entry.expansion;
    if (!e.pubkeys[0]) throw new Error('coin has no key');
    // The wallet's own HD key, else an imported private descriptor's (importdescriptors with an xprv).
    const priv = w.signingKey(c.script) ?? walletKeys(w)?.privateKey(e.pubkeys[0].pubkey) ?? undefined;
    if (!priv) throw new WalletError(-4, 'Signing transaction failed');
    keys.push(priv);
    const input: Parameters<Transaction['addInput']>[0] = {
      txid: c.txid,
      index: c.vout,
      sequence,
      witnessUtxo: { script: c.script, amount: c.value },
    };
    if (e.redeemScript) input.redeemScript = e.redeemScript;
    if (e.witnessScript) input.witnessScript = e.witnessScript;
    if (e.internalKey) input.tapInternalKey = e.internalKey;
    if (c.script[0] === 0x76) {
      // P2PKH needs the whole previous transaction.
      input.nonWitnessUtxo = chain.findTx(c.txid)!.tx.raw;
      delete input.witnessUtxo;
    }
    t.addInput(input);
  }
  for (const o of outputs) t.addOutput({ script: o.script, amount: o.value });
  keys.forEach((k, i) => {
    t.signIdx(k, i, undefined, new Uint8Array(32)); // fixed aux randomness: same seed, same chain
    t.finalizeIdx(i);
  });
  return parseChainTx(t.extract());
}

/**
 * The weight Core's wallet assumes for a transaction it signs (the descriptors' MaxSatisfactionWeight
 * without use_max_sig): a 71-byte ECDSA signature with its sighash byte, a 65-byte Schnorr one (64
 * plus a possible sighash byte). The actual signatures replace these: low-R ECDSA ones are 71 bytes
 * almost always, Schnorr ones 64.
 */
export function estimatedWeight(tx: ChainTx, coins: readonly OutputInfo[]): number {
  let weight = tx.weight;
  tx.vin.forEach((input, i) => {
    const s = coins[i]!.script;
    if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) {
      weight += 65 - (input.witness[0]?.length ?? 65); // P2TR key path, witness
    } else if ((s.length === 22 && s[0] === 0x00) || (s.length === 23 && s[0] === 0xa9)) {
      weight += 71 - (input.witness[0]?.length ?? 71); // P2WPKH (or wrapped in P2SH), witness
    } else if (s.length === 25 && s[0] === 0x76) {
      weight += 4 * (71 - (input.scriptSig[0] ?? 71)); // P2PKH: the signature push in the scriptSig
    }
  });
  return weight;
}
