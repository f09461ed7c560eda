// The watch channels end to end through `dispatch` on real services: the devnet `demo` chain on
// loopback, a real SQLite file, real refreshes. Truth is computed from the devnet's chain directly.
import { rmSync } from 'node:fs';
import { bech32 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { SpyglassApp } from '../../electron/main/app';
import type { AddressDetailView, BalanceRowView, HistoryView, LabelImportPreview, TransactionView, WatchOverview } from '../../shared/ipc/contract';
import { balanceRows } from '../../shared/ipc/balance-columns';
import { dispatchOk, startProfiledApp } from '../support/app';
import { TestRpc } from '../support/rpc';

let devnet: Devnet;
let app: SpyglassApp;
let dir: string;
let rpc: TestRpc;

const ok = <T>(channel: string, payload: unknown = {}): Promise<T> => dispatchOk<T>(app, channel, payload);

/** The overview with its balances as one object per row. */
async function overview(): Promise<WatchOverview & { rows: BalanceRowView[] }> {
  const o = await ok<WatchOverview>('watch:overview');
  return { ...o, rows: balanceRows(o.balances) };
}

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
  rpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
  let state: string;
  ({ app, dir, state } = await startProfiledApp({ prefix: 'watch', name: 'Demo node', nodeUrl: devnet.rpcUrl, indexUrl: devnet.indexUrl, rpcUser: 'u', password: 'p' }));
  expect(state).toBe('connected');
});

afterAll(async () => {
  await app?.close();
  await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('watch channels', () => {
  it('before the first refresh the overview is empty, not an error', async () => {
    const o = await overview();
    expect(o.snapshot).toBeNull();
    expect(o.rows).toEqual([]);
    expect(o.offline).toBe(false);
    // Nothing to compare yet: not "everything agrees".
    expect(await ok('watch:reconcile')).toEqual({ issues: [], snapshotTakenAt: null });
  });

  it('refresh: progress events, then balances equal the index UTXO set of the chain', async () => {
    const phases = new Set<string>();
    const off = app.services.on('refresh:progress', (p) => phases.add(p.phase));
    const summary = await ok<{ snapshotId: number; addresses: number; utxoLookups: number }>('watch:refresh');
    off();
    expect(phases.has('received')).toBe(true);
    expect(phases.has('utxos')).toBe(true);
    expect(summary.addresses).toBeGreaterThan(20);

    const o = await overview();
    expect(o.snapshot?.id).toBe(summary.snapshotId);
    expect(o.snapshot?.nodeHeight).toBe(devnet.node.chain.tipHeight());
    // Truth: a walk over the devnet's blocks — confirmed outputs to each address not spent in a block or the mempool.
    const chain = devnet.node.chain;
    const byScript = new Map(o.rows.map((r) => [Buffer.from(devnet.node.scriptFor(r.address)).toString('hex'), r.address]));
    const spent = new Set<string>();
    for (const b of chain.blocks) for (const t of b.txs) if (!t.coinbase) for (const i of t.vin) spent.add(`${i.txid}:${i.vout}`);
    for (const t of chain.mempoolTxs()) for (const i of t.vin) spent.add(`${i.txid}:${i.vout}`);
    const truth = new Map<string, bigint>();
    for (const b of chain.blocks) {
      for (const t of b.txs) {
        t.vout.forEach((out, vout) => {
          const address = byScript.get(Buffer.from(out.script).toString('hex'));
          if (address !== undefined && !spent.has(`${t.txid}:${vout}`)) truth.set(address, (truth.get(address) ?? 0n) + out.value);
        });
      }
    }
    for (const row of o.rows) expect(BigInt(row.balanceSats), row.address).toBe(truth.get(row.address) ?? 0n);
    const total = [...truth.values()].reduce((a, b) => a + b, 0n);
    expect(BigInt(o.totals.balanceSats)).toBe(total);
    expect(o.rows.every((r) => ['p2pkh', 'p2sh', 'p2wpkh', 'p2wsh', 'p2tr'].includes(r.type))).toBe(true);
  });

  it('address details carry getaddressinfo, UTXOs and txids; a transaction checks its merkle proof', async () => {
    const o = await overview();
    const row = o.rows.find((r) => r.utxoCount > 0 && r.minConfirmations !== null && r.minConfirmations > 0)!;
    const d = await ok<AddressDetailView>('watch:address', { address: row.address });
    expect(d.info?.['address']).toBe(row.address);
    expect(d.utxos.length).toBe(row.utxoCount);
    // Each transaction with what it paid this address (the node wallet's gettransaction), newest first.
    expect(d.transactions).not.toBeNull();
    expect(d.transactions!.map((t) => t.txid).sort()).toEqual([...d.txids].sort());
    const received = d.transactions!.reduce((a, t) => a + BigInt(t.amountSats), 0n);
    expect(received).toBe(BigInt(row.receivedSats!));
    const heights = d.transactions!.map((t) => t.blockHeight ?? Infinity);
    expect(heights).toEqual([...heights].sort((a, b) => b - a));
    for (const t of d.transactions!) expect(t.time).toBeGreaterThan(1_200_000_000);
    const tx = await ok<TransactionView>('watch:transaction', { txid: d.utxos[0]!.txid });
    expect(tx.merkle).toMatchObject({ checked: true, valid: true });
    expect(tx.confirmations).toBeGreaterThan(0);
    // The block's time, as the chain has it.
    const block = devnet.node.chain.blocks.find((b) => b.hash === tx.blockHash)!;
    expect(tx.blockTime).toBe(block.time);
    expect(tx.outputs.some((out) => out.address === row.address && out.watched)).toBe(true);
    if (!tx.coinbase) {
      // The index knows every input's amount: none is unknown here.
      const inSum = tx.inputs.reduce((a, i) => a + BigInt(i.amountSats!), 0n);
      const outSum = tx.outputs.reduce((a, i) => a + BigInt(i.amountSats!), 0n);
      expect(BigInt(tx.feeSats!)).toBe(inSum - outSum);
    }
    // Spenders: the UTXO's output is unspent; every output lists what the chain says spends it.
    expect(tx.outputs[d.utxos[0]!.vout]!.spentBy).toEqual([]);
    expect(tx.inputs.every((i) => i.spentBy === null)).toBe(true);
    tx.outputs.forEach((out, n) => expect(out.spentBy, `output ${n}`).toEqual(devnet.node.chain.spenders(tx.txid, n).map((x) => ({ txid: x.txid, vin: x.vin }))));
    if (!tx.coinbase) {
      // The transaction it spends from lists it as the spender of that output.
      const [prevTxid, prevVout] = tx.inputs[0]!.outpoint!.split(':') as [string, string];
      const prev = await ok<TransactionView>('watch:transaction', { txid: prevTxid });
      expect(prev.outputs[Number(prevVout)]!.spentBy).toContainEqual({ txid: tx.txid, vin: 0 });
    }
  });

  it('adding addresses: an invalid line adds nothing; a valid list adds them with CSV labels', async () => {
    const bad = await ok<{ added: number; errors: { line: number; message: string }[] }>('watch:add', { text: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080\nnot-an-address\n' });
    expect(bad.added).toBe(0);
    expect(bad.errors[0]?.line).toBe(2);
    const good = await ok<{ added: number; errors: unknown[] }>('watch:add', { text: 'address,label\nbcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080,Friend\n' });
    expect(good).toMatchObject({ added: 1, errors: [], unserved: 0, unservedExamples: [] });
    await ok('watch:refresh');
    const o = await overview();
    const added = o.rows.find((r) => r.address === 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
    expect(added).toMatchObject({ source: 'user', label: 'Friend' });
    // A BIP21 URI's label labels the address it adds.
    const vault = bech32.encode('bcrt', [0, ...bech32.toWords(new Uint8Array(32).fill(7))]);
    expect(await ok('watch:add', { text: `bitcoin:${vault}?amount=0.1&label=Rent%20deposit` })).toMatchObject({ added: 1, errors: [] });
    await ok('watch:refresh');
    expect((await overview()).rows.find((r) => r.address === vault)).toMatchObject({ source: 'user', label: 'Rent deposit' });
  });

  it('a payment and a mined block show up in the next refresh and in the history diff', async () => {
    const before = await overview();
    const target = before.rows.find((r) => r.source === 'node' && r.type === 'p2wpkh')!;
    const txid = await rpc.call<string>('sendtoaddress', [target.address, 0.5], 'miner');
    await rpc.call('generatetoaddress', [1, await rpc.call<string>('getnewaddress', [], 'miner')]);
    const summary = await ok<{ diff: { newUtxos: number }; utxoLookups: number }>('watch:refresh');
    expect(summary.diff.newUtxos).toBeGreaterThanOrEqual(1);
    const h = await ok<HistoryView>('watch:history');
    expect(h.points.length).toBeGreaterThanOrEqual(3);
    expect(h.diff?.newUtxos.some((u) => u.txid === txid && u.address === target.address && u.amountSats === '50000000')).toBe(true);
    expect(h.diff?.newTxids).toContain(txid);
    const after = await overview();
    expect(BigInt(after.rows.find((r) => r.address === target.address)!.balanceSats)).toBe(BigInt(target.balanceSats) + 50_000_000n);
  });

  it('labels: set inline, export BIP329, import round trip with a merge rule', async () => {
    const o = await overview();
    const a = o.rows[0]!.address;
    await ok('labels:set', { type: 'addr', ref: a, label: 'Cold storage' });
    const exported = await ok<{ text: string; records: number }>('labels:export');
    expect(exported.text).toContain(`{"type":"addr","ref":"${a}","label":"Cold storage"}`);
    await ok('labels:set', { type: 'addr', ref: a, label: '' });
    const preview = await ok<LabelImportPreview>('labels:preview', { text: exported.text, rule: 'replace' });
    expect(preview.errors).toEqual([]);
    expect(preview.added).toBeGreaterThanOrEqual(1);
    // Row by row: the cleared label comes back.
    expect(preview.changes).toContainEqual({ type: 'addr', ref: a, before: null, after: 'Cold storage' });
    await ok('labels:import', { text: exported.text, rule: 'replace' });
    const again = await overview();
    expect(again.rows.find((r) => r.address === a)?.label).toBe('Cold storage');
    const broken = await ok<LabelImportPreview>('labels:import', { text: '{"type":"addr","ref":"nope","label":"x"}\n', rule: 'replace' });
    expect(broken.errors[0]?.line).toBe(1);
  });

  it('CSV export and reconciliation', async () => {
    const csv = await ok<{ text: string; rows: number }>('watch:export-csv', { unit: 'sats' });
    expect(csv.text.split('\r\n')[0]).toContain('label,node_label,address,type,received_sats,balance_sats');
    expect(csv.rows).toBeGreaterThan(20);
    const rec = await ok<{ issues: { kind: string }[]; snapshotTakenAt: string | null }>('watch:reconcile');
    expect(rec.snapshotTakenAt).toBe((await overview()).snapshot!.takenAt);
    expect(rec.issues.filter((i) => i.kind === 'amount-mismatch' || i.kind === 'index-missing-tx')).toEqual([]);
  });

  it('offline: with the node gone the last snapshot is still shown, marked offline', async () => {
    await devnet.close();
    const state = await ok<{ state: string }>('connection:refresh');
    expect(state.state).toBe('failed');
    const o = await overview();
    expect(o.offline).toBe(true);
    expect(o.snapshot).not.toBeNull();
    expect(o.rows.length).toBeGreaterThan(20);
    const r = await app.dispatch('watch:refresh', {});
    expect(r.ok).toBe(false);
    expect(await ok<{ text: string }>('labels:export')).toBeTruthy();
  });
});
