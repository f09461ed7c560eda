/**
 * A devnet wallet as the shared PSBT updater sees it (CWallet::FillPSBT): its descriptors (public,
 * normalized, over the range each is derived to) as a WatchOnlyWallet, its transactions as the
 * previous transactions it knows (mapWallet), and — for a wallet that holds its keys — those keys as
 * a KeySigner (key-signer.ts).
 */
import { fillPsbt, watchOnlyWallet, type FillOptions, type FillResult, type Psbt } from '../../shared/bitcoin/psbt';
import { parseTx, type ParsedTx } from '../../shared/bitcoin/tx';
import { DescriptorKeys } from './key-signer';
import type { Wallet } from './wallet';

const signers = new WeakMap<Wallet, { key: string; keys: DescriptorKeys }>();

function rangeOf(d: Wallet['descriptors'][number]): [number, number] {
  return [d.rangeStart, d.rangeEnd];
}

/** The wallet's keys, rebuilt when a range has grown. */
export function walletKeys(w: Wallet): DescriptorKeys | undefined {
  const withKeys = w.descriptors.filter((d) => d.privateText);
  if (withKeys.length === 0) return undefined;
  const key = JSON.stringify(withKeys.map((d) => [d.privateText, rangeOf(d)]));
  const have = signers.get(w);
  if (have && have.key === key) return have.keys;
  const keys = new DescriptorKeys(
    withKeys.map((d) => ({ text: d.privateText!, range: rangeOf(d) })),
    w.network,
  );
  signers.set(w, { key, keys });
  return keys;
}

/** FillPSBT(psbt, sighash, sign, bip32derivs, finalize) of this wallet. */
export function fillWalletPsbt(w: Wallet, psbt: Psbt, o: { sign: boolean; sighashType: number | undefined; bip32Derivs: boolean; finalize: boolean }): FillResult {
  const descs = w.descriptors.map((d) => (d.desc.isRange() ? { desc: d.desc.toString(), range: rangeOf(d) } : { desc: d.desc.toString() }));
  const index = watchOnlyWallet(descs, w.network);
  const prev = new Map<string, ParsedTx>();
  for (const input of psbt.inputs) {
    const wtx = w.txs.get(input.prevTxid);
    if (wtx && !prev.has(wtx.tx.txid)) prev.set(wtx.tx.txid, parseTx(wtx.tx.raw));
  }
  const opts: FillOptions = {
    bip32Derivs: o.bip32Derivs,
    sighashType: o.sighashType === undefined ? null : o.sighashType,
    finalize: o.finalize,
    signer: o.sign ? walletKeys(w) : undefined,
  };
  return fillPsbt(psbt, index, prev, opts);
}
