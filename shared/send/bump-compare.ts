/**
 * A fee bump built twice: ours (offline, shared/send/bump.ts) against the node wallet's own
 * `psbtbumpfee` of the same payment at the same rate. Core's feebumper rebuilds the transaction (a new
 * anti-fee-sniping locktime, its own signed-size estimate, so a fee a few sats apart), so the two are
 * never byte-identical; what must agree is what the person is asked to sign: the same coins spent and
 * every recipient paid the same amount. The fees and the change are shown side by side.
 */
import { formatBtc } from '../amounts';
import { hexOf } from '../bitcoin/tx';
import type { UnsignedTxSpec } from './create-psbt';

export interface BumpComparison {
  /** Same inputs (as a set) and every recipient output present in both with its amount. */
  same: boolean;
  differences: Array<{ path: string; offline: string | null; node: string | null }>;
  /** Fees, change and locktime side by side, in words. */
  note: string;
}

const outpoint = (i: { txid: string; vout: number }): string => `${i.txid}:${i.vout}`;
const outputKey = (o: { script: Uint8Array; value: bigint }): string => `${hexOf(o.script)}:${o.value}`;

/**
 * `ours` with its change at `changeIndex` (null: no change) and fee `oursFee`, against the node's
 * unsigned replacement `node` (same inputs: its fee is ours plus the difference in outputs).
 */
export function compareBumps(ours: UnsignedTxSpec, oursFee: bigint, changeIndex: number | null, node: UnsignedTxSpec): BumpComparison {
  const differences: BumpComparison['differences'] = [];
  const a = ours.inputs.map(outpoint).sort();
  const b = node.inputs.map(outpoint).sort();
  const sameInputs = a.length === b.length && a.every((x, i) => x === b[i]);
  if (!sameInputs) differences.push({ path: 'inputs', offline: a.join(' '), node: b.join(' ') });

  const nodeLeft = node.outputs.map(outputKey);
  for (const [i, o] of ours.outputs.entries()) {
    if (i === changeIndex) continue;
    const k = nodeLeft.indexOf(outputKey(o));
    if (k >= 0) nodeLeft.splice(k, 1);
    else differences.push({ path: `outputs[${i}] (recipient)`, offline: `${formatBtc(o.value)} BTC to ${hexOf(o.script)}`, node: 'not paid the same' });
  }
  // What the node has besides our recipients is its change: one output at most.
  if (nodeLeft.length > 1) differences.push({ path: 'outputs', offline: `${ours.outputs.length} outputs`, node: `${node.outputs.length} outputs (${nodeLeft.length} not ours)` });

  const total = (s: UnsignedTxSpec): bigint => s.outputs.reduce((t, o) => t + o.value, 0n);
  const parts: string[] = [];
  if (sameInputs) {
    const nodeFee = oursFee + total(ours) - total(node);
    parts.push(nodeFee === oursFee ? `the same fee, ${formatBtc(oursFee)} BTC` : `fee ${formatBtc(oursFee)} BTC here, ${formatBtc(nodeFee)} BTC by the node (its own size estimate)`);
  }
  const ourChange = changeIndex === null ? null : ours.outputs[changeIndex]!.value;
  const nodeChange = nodeLeft.length === 1 ? BigInt(nodeLeft[0]!.split(':')[1]!) : null;
  parts.push(ourChange === nodeChange ? `the same change` : `change ${ourChange === null ? 'none' : `${formatBtc(ourChange)} BTC`} here, ${nodeChange === null ? 'none' : `${formatBtc(nodeChange)} BTC`} by the node`);
  if (ours.locktime !== node.locktime) parts.push(`locktime ${ours.locktime} here (the payment's), ${node.locktime} by the node (set anew against fee sniping)`);
  return { same: differences.length === 0, differences, note: parts.join('; ') };
}
