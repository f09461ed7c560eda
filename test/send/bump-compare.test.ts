// compareBumps (shared/send/bump-compare.ts): our RBF replacement against the node's psbtbumpfee one.
// The recording of Core's answer (bitcoin-core-spend.jsonl, psbtbumpfee at 25 sat/vB) is the node side.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeBase64Core, parsePsbt, unsignedTxOf } from '../../shared/bitcoin/psbt';
import { compareBumps } from '../../shared/send/bump-compare';
import type { UnsignedTxSpec } from '../../shared/send/create-psbt';

const lines = readFileSync(new URL('../../../shared/fixtures/core/bitcoin-core-spend.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { group?: string; name?: string; response?: { body: { result: { psbt: string } } } });
const recorded = lines.find((l) => l.group === 'psbtbumpfee' && l.name === 'watch-only outgoing, fee_rate 25')!.response!.body.result.psbt;
const r = parsePsbt(decodeBase64Core(recorded)!);
if (!r.ok) throw new Error(r.message);
const tx = unsignedTxOf(r.psbt)!;
const node: UnsignedTxSpec = { version: tx.version, locktime: tx.locktime, inputs: tx.vin.map((i) => ({ txid: i.prevTxid, vout: i.vout, sequence: i.sequence })), outputs: tx.vout.map((o) => ({ script: o.script, value: o.value })) };

describe('a fee bump built twice', () => {
  it('the same coins and recipient: agrees, with the fees and locktimes side by side', () => {
    // ours: the payment's locktime 0, inputs in another order, change 50 sats lower (a slightly higher fee)
    const ours: UnsignedTxSpec = { ...node, locktime: 0, inputs: [...node.inputs].reverse(), outputs: [node.outputs[0]!, { ...node.outputs[1]!, value: node.outputs[1]!.value - 50n }] };
    const c = compareBumps(ours, 10_950n + 50n, 1, node);
    expect(c.same).toBe(true);
    expect(c.differences).toEqual([]);
    expect(c.note).toBe("fee 0.00011000 BTC here, 0.00010950 BTC by the node (its own size estimate); change 3.99989000 BTC here, 3.99989050 BTC by the node; locktime 0 here (the payment's), 124 by the node (set anew against fee sniping)");
  });

  it('a recipient paid less, or another coin: disagrees, naming it', () => {
    const less: UnsignedTxSpec = { ...node, outputs: [{ ...node.outputs[0]!, value: node.outputs[0]!.value - 1n }, node.outputs[1]!] };
    const c = compareBumps(less, 10_951n, 1, node);
    expect(c.same).toBe(false);
    expect(c.differences.map((x) => x.path)).toEqual(['outputs[0] (recipient)', 'outputs']);
    const other: UnsignedTxSpec = { ...node, inputs: [...node.inputs.slice(1), { txid: '00'.repeat(32), vout: 0, sequence: 0xfffffffd }] };
    expect(compareBumps(other, 10_950n, 1, node).differences.map((x) => x.path)).toEqual(['inputs']);
  });
});
