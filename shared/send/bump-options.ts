/**
 * Fee bumps of any unconfirmed wallet transaction, whoever made it (#28): whether RBF and CPFP are
 * possible — and why not, in words — from what the node says about it, and a CPFP child's package.
 *
 * RBF follows Core's psbtbumpfee (wallet/feebumper.cpp PreconditionChecks) and its mempool: the
 * transaction unconfirmed, not already replaced, without descendants in the mempool; inputs that are
 * ours (a replacement needs our signatures on every one: Spyglass cannot ask the sender of a payment to
 * sign again); and replaceable: signalling BIP125, or a node doing full RBF (Core 28+ replaces every
 * transaction; its psbtbumpfee no longer checks the signal). A bump never takes from a recipient, so
 * it needs a change output of ours.
 *
 * CPFP: a child spending an unspent output of ours makes the package (the parent's unconfirmed
 * ancestors, the parent and the child) pay the target rate: child fee = rate × (package vsize) −
 * (the fees already in it), and never less than the child's own size at the rate.
 */
import { cpfpChildRate } from './bump';
import { feeFor, type FeeRate } from '../bitcoin/spend/feerate';

export interface BumpFacts {
  confirmations: number;
  replacedBy: string | null;
  /** How many of its inputs our descriptors own. */
  inputsOurs: 'all' | 'some' | 'none';
  signals: boolean;
  fullRbf: boolean;
  /** Mempool transactions spending its outputs (getmempoolentry `spentby`). */
  descendants: readonly string[];
  /** The node's mempool holds it (getmempoolentry answered); null when the node could not say. */
  inMempool: boolean | null;
  hasChange: boolean;
  /** Our unspent outputs of it a child could spend. */
  spendableOutputs: number;
}

export interface Verdict {
  possible: boolean;
  reason: string | null;
  note: string | null;
}

const no = (reason: string): Verdict => ({ possible: false, reason, note: null });

/** Not bumpable at all (confirmed, conflicted, replaced): the same reason for both methods. */
function settled(f: BumpFacts): string | null {
  if (f.confirmations > 0) return `Confirmed (${f.confirmations} ${f.confirmations === 1 ? 'confirmation' : 'confirmations'}): it is in a block, nothing to speed up.`;
  if (f.replacedBy) return `Already replaced by ${f.replacedBy}: bump that one instead.`;
  if (f.confirmations < 0) return 'Conflicted: another transaction spending the same coins is in a block, so this one will never confirm.';
  return null;
}

export function rbfVerdict(f: BumpFacts): Verdict {
  const s = settled(f);
  if (s) return no(s);
  if (f.inputsOurs === 'none') return no("Inputs not ours: someone else paid it, and only they can sign a replacement. Speed it up with CPFP: spend your output of it.");
  if (f.inputsOurs === 'some') return no("Inputs not all ours: a replacement needs a signature on every input, and some belong to another wallet. CPFP can speed it up if an output is yours.");
  if (!f.signals && !f.fullRbf) {
    return no('Not signalling replaceability (BIP 125: every input sequence is 0xfffffffe or more), and your node does not do full RBF: it would refuse a replacement. CPFP can still speed it up.');
  }
  if (f.descendants.length > 0) {
    return no(`It has descendants in the mempool (${f.descendants.map((t) => `${t.slice(0, 12)}…`).join(', ')} spends an output of it): a replacement would evict them, so your node's wallet refuses to bump it ("Transaction has descendants in the mempool"). Speed it up with CPFP instead.`);
  }
  if (!f.hasChange) return no('No change output of yours to take the extra fee from, and a bump never reduces what a recipient gets. Use CPFP on an output of yours instead, if it has one.');
  const note = f.signals ? null : 'It does not signal replaceability (BIP 125), but your node replaces it anyway (full RBF, the default since Core 28), as most nodes now do; a few older nodes may not relay the replacement.';
  return { possible: true, reason: null, note };
}

export function cpfpVerdict(f: BumpFacts): Verdict {
  const s = settled(f);
  if (s) return no(s);
  if (f.spendableOutputs === 0) return no('No output of it is yours and unspent: there is nothing a child could spend.');
  if (f.inMempool === false) return no("Your node's mempool does not hold it (evicted, or never received): a child of it would be refused. Broadcast it again first.");
  return { possible: true, reason: null, note: null };
}

export interface PackageIn {
  parentVsize: number;
  parentFee: bigint;
  /** The parent's unconfirmed ancestors (without the parent). */
  ancestorsVsize: number;
  ancestorsFee: bigint;
  childVsize: number;
  target: FeeRate;
}

export interface PackageOut {
  childFee: bigint;
  /** The child's own rate (sat/kvB, rounded up). */
  childRate: FeeRate;
  packageVsize: number;
  packageFee: bigint;
  /** The package's rate (sat/kvB, rounded down: what it pays at least). */
  packageRate: FeeRate;
}

/** The child's fee and rate so that the whole package pays `target`, and the package it makes. */
export function cpfpPackage(p: PackageIn): PackageOut {
  const { rate, childFee } = cpfpChildRate(p.parentFee + p.ancestorsFee, p.parentVsize + p.ancestorsVsize, p.childVsize, p.target);
  // the child is built at its own rate (rounded up): its fee at that rate is what it pays
  const fee = feeFor(rate, p.childVsize) > childFee ? feeFor(rate, p.childVsize) : childFee;
  const packageVsize = p.ancestorsVsize + p.parentVsize + p.childVsize;
  const packageFee = p.ancestorsFee + p.parentFee + fee;
  return { childFee: fee, childRate: rate, packageVsize, packageFee, packageRate: (packageFee * 1000n) / BigInt(packageVsize) };
}
