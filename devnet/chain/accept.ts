/**
 * Mempool acceptance as Core's MemPoolAccept does it for one transaction (validation.cpp
 * PreChecks, ReplacementChecks, PolicyScriptChecks), in Core's order: CheckTransaction, coinbase,
 * standardness, finality, already in the mempool, conflicts, missing inputs, BIP68 sequence locks,
 * CheckTxInputs, standard inputs and witnesses, ephemeral dust and the minimum relay fee, full-RBF
 * replacement, then every input's script and signature. Nothing is changed: the caller adds what
 * was accepted.
 */
import { MAX_MONEY } from '../../shared/amounts';
import type { Chain } from './chain';
import { formatMoney, INCREMENTAL_RELAY_FEE } from './chain';
import { outpointKey } from './indexed';
import { checkFees, checkFinal, checkInputsStandard, checkStandard, feeAt, reject } from './policy';
import type { ChainTx, OutputInfo } from './types';
import { verifyInputs } from './verify';

export interface Validated {
  fee: bigint;
  vsize: number;
  /** Mempool transactions (with their descendants) the transaction replaces. */
  replaced: string[];
  /** The transactions it directly conflicts with. */
  conflicts: string[];
}

const COINBASE_MATURITY = 100;

/** CheckTransaction (consensus/tx_check.cpp). */
function checkTransaction(tx: ChainTx): void {
  if (tx.vin.length === 0) reject('bad-txns-vin-empty');
  if (tx.vout.length === 0) reject('bad-txns-vout-empty');
  if (tx.strippedSize * 4 > 4_000_000) reject('bad-txns-oversize');
  let total = 0n;
  for (const o of tx.vout) {
    if (o.value < 0n) reject('bad-txns-vout-negative');
    if (o.value > MAX_MONEY) reject('bad-txns-vout-toolarge');
    total += o.value;
    if (total > MAX_MONEY) reject('bad-txns-txouttotal-toolarge');
  }
  const seen = new Set<string>();
  for (const i of tx.vin) {
    const k = outpointKey(i.txid, i.vout);
    if (seen.has(k)) reject('bad-txns-inputs-duplicate');
    seen.add(k);
  }
  if (tx.coinbase) {
    if (tx.vin[0]!.scriptSig.length < 2 || tx.vin[0]!.scriptSig.length > 100) reject('bad-cb-length');
  } else if (tx.vin.some((i) => i.txid === '0'.repeat(64) && i.vout === 0xffffffff)) {
    reject('bad-txns-prevout-null');
  }
}

/** Whether an output is in the UTXO set (confirmed, not spent in a block). */
function inUtxoSet(chain: Chain, txid: string, vout: number): boolean {
  const o = chain.output(txid, vout);
  return o !== undefined && o.height !== null && !chain.spenders(txid, vout).some((s) => s.confirmed);
}

/** CheckSequenceLocks for the next block: BIP68 relative lock times of a version 2+ transaction. */
function checkSequenceLocks(chain: Chain, tx: ChainTx, output: (txid: string, vout: number) => OutputInfo | undefined): void {
  if (tx.version >>> 0 < 2) return;
  const next = chain.tipHeight() + 1;
  let minHeight = -1;
  let minTime = -1;
  for (const i of tx.vin) {
    const seq = i.sequence >>> 0;
    if (seq & 0x80000000) continue;
    const prev = output(i.txid, i.vout)!;
    const height = prev.height ?? next;
    if (seq & 0x00400000) {
      const base = chain.blockAt(Math.max(height - 1, 0))!.medianTime;
      minTime = Math.max(minTime, base + (seq & 0xffff) * 512 - 1);
    } else {
      minHeight = Math.max(minHeight, height + (seq & 0xffff) - 1);
    }
  }
  if (minHeight >= next || minTime >= chain.medianTimePast()) reject('non-BIP68-final');
}

/** Full RBF (policy/rbf.cpp): the replaced set, what it paid, and the new transaction's fee against it. */
function replacementChecks(chain: Chain, tx: ChainTx, fee: bigint, vsize: number, conflicts: Set<string>): string[] {
  const all = new Set<string>();
  const stack = [...conflicts];
  while (stack.length) {
    const t = stack.pop()!;
    if (all.has(t)) continue;
    all.add(t);
    chain.findTx(t)!.tx.vout.forEach((_, vout) => {
      for (const s of chain.spenders(t, vout)) if (!s.confirmed) stack.push(s.txid);
    });
  }
  if (all.size > 100) reject('too many potential replacements', `rejecting replacement ${tx.txid}; too many potential replacements (${all.size} > 100)`);
  const spent = tx.vin.find((i) => all.has(i.txid));
  if (spent) reject('bad-txns-spends-conflicting-tx', `${tx.txid} spends conflicting transaction ${spent.txid}`);
  const original = [...all].reduce((s, t) => s + chain.mempoolFee(t)!, 0n);
  if (fee < original) reject('insufficient fee', `rejecting replacement ${tx.txid}, less fees than conflicting txs; ${formatMoney(fee)} < ${formatMoney(original)}`);
  const relay = feeAt(INCREMENTAL_RELAY_FEE, vsize);
  if (fee - original < relay) reject('insufficient fee', `rejecting replacement ${tx.txid}, not enough additional fees to relay; ${formatMoney(fee - original)} < ${formatMoney(relay)}`);
  return [...all];
}

/** Validates `tx` for the mempool; throws a RejectError (policy.ts) with Core's reason and details. */
export function validateTx(chain: Chain, tx: ChainTx, pkg: readonly ChainTx[] = []): Validated {
  // Outputs of the package's earlier transactions count as unconfirmed ones (testmempoolaccept of a package).
  const pkgTx = new Map(pkg.map((t) => [t.txid, t]));
  const output = (txid: string, vout: number): OutputInfo | undefined => {
    const p = pkgTx.get(txid);
    if (p) return p.vout[vout] ? { txid, vout, value: p.vout[vout]!.value, script: p.vout[vout]!.script, height: null, txIndex: null, coinbase: false } : undefined;
    return chain.output(txid, vout);
  };
  checkTransaction(tx);
  if (tx.coinbase) reject('coinbase');
  checkStandard(tx);
  checkFinal(tx, chain.tipHeight(), chain.medianTimePast());
  const inPool = chain.findTx(tx.txid);
  if (inPool && inPool.block === null) reject(inPool.tx.wtxid === tx.wtxid ? 'txn-already-in-mempool' : 'txn-same-nonwitness-data-in-mempool');
  const conflicts = new Set<string>();
  for (const i of tx.vin) for (const s of chain.spenders(i.txid, i.vout)) if (!s.confirmed) conflicts.add(s.txid);
  const spent: OutputInfo[] = [];
  for (const i of tx.vin) {
    const prev = output(i.txid, i.vout);
    const usable = prev !== undefined && (prev.height === null ? chain.inMempool(i.txid) || pkgTx.has(i.txid) : !chain.spenders(i.txid, i.vout).some((s) => s.confirmed));
    if (!usable) {
      if (tx.vout.some((_, n) => inUtxoSet(chain, tx.txid, n))) reject('txn-already-known');
      reject('bad-txns-inputs-missingorspent', undefined, { missingInputs: true, code: -25 });
    }
    spent.push(prev!);
  }
  checkSequenceLocks(chain, tx, output);
  // CheckTxInputs, at the next block's height.
  let inSum = 0n;
  tx.vin.forEach((i, n) => {
    const prev = spent[n]! as OutputInfo;
    if (prev.coinbase && chain.tipHeight() + 1 - prev.height! < COINBASE_MATURITY) {
      reject('bad-txns-premature-spend-of-coinbase', `tried to spend coinbase at depth ${chain.tipHeight() + 1 - prev.height!}`);
    }
    inSum += spent[n]!.value;
  });
  const outSum = tx.vout.reduce((s, o) => s + o.value, 0n);
  if (inSum < outSum) reject('bad-txns-in-belowout', `value in (${formatMoney(inSum)}) < value out (${formatMoney(outSum)})`);
  const fee = inSum - outSum;
  checkInputsStandard(tx, spent);
  const vsize = Math.ceil(tx.weight / 4);
  checkFees(tx, fee, vsize);
  const replaced = conflicts.size > 0 ? replacementChecks(chain, tx, fee, vsize, conflicts) : [];
  const bad = verifyInputs(tx, spent);
  if (bad) reject(bad.reason, bad.details);
  return { fee, vsize, replaced, conflicts: [...conflicts] };
}
