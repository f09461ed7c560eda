// The PSBT channels end to end through `dispatch` on real services: the devnet `demo` chain on loopback,
// a real SQLite file, a real refresh. A PSBT spending a watched coin is built from the devnet's own
// createrawtransaction and the chain's previous transaction; the review is checked against the chain,
// `psbt:crosscheck` against the devnet's decodepsbt; then the node goes down and the review goes on offline.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { SpyglassApp } from '../../electron/main/app';
import { diffJson, inferNetwork } from '../../electron/main/psbt/service';
import { formatBtc, parseBtc } from '../../shared/amounts';
import type { AddressDetailView, PsbtConvertReply, PsbtCrosscheckReply, PsbtReviewReply, WatchOverview } from '../../shared/ipc/contract';
import { MAINNET, REGTEST } from '../../shared/bitcoin/networks';
import { dispatchOk, startProfiledApp } from '../support/app';
import { TestRpc } from '../support/rpc';

let devnet: Devnet;
let devnetClosed = false;
let app: SpyglassApp;
let dir: string;
let rpc: TestRpc;

const ok = <T>(channel: string, payload: unknown = {}): Promise<T> => dispatchOk<T>(app, channel, payload);

const cs = (n: number): string => (n < 253 ? n.toString(16).padStart(2, '0') : 'fd' + Buffer.from([n & 0xff, n >> 8]).toString('hex'));
const kv = (key: string, value: string): string => cs(key.length / 2) + key + cs(value.length / 2) + value;
const i64 = (n: bigint): string => {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(n);
  return b.toString('hex');
};

interface Unspent {
  txid: string;
  vout: number;
  address: string;
  scriptPubKey: string;
  amount: number;
  label?: string;
}

/** A v0 PSBT spending one coin: the unsigned tx from the node's createrawtransaction, the UTXO data from the chain. */
async function buildPsbt(coin: Unspent, outputs: Array<[string, bigint]>): Promise<string> {
  const unsigned = await rpc.call<string>('createrawtransaction', [[{ txid: coin.txid, vout: coin.vout }], outputs.map(([a, v]) => ({ [a]: Number(formatBtc(v)) })), 0, true]);
  // No -txindex on the node: the previous transaction is asked for with the hash of its block.
  const block = devnet.node.chain.blocks.find((b) => b.txs.some((t) => t.txid === coin.txid))!;
  const prevHex = await rpc.call<string>('getrawtransaction', [coin.txid, 0, block.hash]);
  const amount = parseBtc(String(coin.amount));
  const spk = coin.scriptPubKey;
  const psbt =
    '70736274ff' +
    kv('00', unsigned) +
    '00' +
    kv('00', prevHex) +
    kv('01', i64(amount) + cs(spk.length / 2) + spk) +
    '00' +
    outputs.map(() => '00').join('');
  return Buffer.from(psbt, 'hex').toString('base64');
}

let coin: Unspent;
let external: string;
let changeAddress: string;
let psbt: string;
const PAY = 10_000_000n;
const FEE = 1_410n; // 141 vB at 10 sat/vB

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
  rpc = new TestRpc(devnet.rpcUrl, devnet.auth.user, devnet.auth.password);
  let state: string;
  ({ app, dir, state } = await startProfiledApp({ prefix: 'psbt', name: 'Demo node', nodeUrl: devnet.rpcUrl, indexUrl: devnet.indexUrl, rpcUser: 'u', password: 'p' }));
  expect(state).toBe('connected');

  // A fresh change address of the watch wallet joins the watched set; the refresh stores its getaddressinfo (ischange).
  changeAddress = await rpc.call<string>('getrawchangeaddress', ['bech32'], 'watch');
  await ok('watch:add', { text: changeAddress });
  await ok('watch:refresh');
  external = await rpc.call<string>('getnewaddress', ['', 'bech32'], 'other');

  const unspent = await rpc.call<Unspent[]>('listunspent', [1], 'watch');
  coin = unspent.find((u) => u.scriptPubKey.length === 44 && u.scriptPubKey.startsWith('0014') && u.amount >= 0.2)!;
  expect(coin).toBeDefined();
  const amount = parseBtc(String(coin.amount));
  psbt = await buildPsbt(coin, [
    [external, PAY],
    [changeAddress, amount - PAY - FEE],
  ]);
}, 180_000);

afterAll(async () => {
  await app?.close();
  if (!devnetClosed) await devnet?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('psbt:review against the demo chain', () => {
  it('the change address is stored with getaddressinfo ischange', async () => {
    const d = await ok<AddressDetailView>('watch:address', { address: changeAddress });
    expect(d.info?.['ischange']).toBe(true);
  });

  it('a PSBT spending a watched coin: input watched, change recognised by ischange, external payment, fee and rate', async () => {
    const v = await ok<PsbtReviewReply>('psbt:review', { psbt });
    const amount = parseBtc(String(coin.amount));
    expect(v.coreError).toBeNull();
    expect(v.version).toBe(0);
    // Core's JSON, as the node itself decodes it.
    expect(JSON.parse(v.coreJson!)).toEqual(await rpc.call('decodepsbt', [psbt]));
    expect(v.context).toMatchObject({ chain: 'regtest', chainSource: 'node', offline: false, tipSource: 'node', tipHeight: devnet.node.chain.tipHeight() });
    const r = v.review;
    expect(r.inputs[0]).toMatchObject({
      outpoint: `${coin.txid}:${coin.vout}`,
      address: coin.address,
      amountSats: amount.toString(),
      watched: true,
      utxo: 'both',
      spendType: 'p2wpkh',
      finalized: false,
      signatures: { present: 0, required: 1, total: 1 },
      label: coin.label ? coin.label : null,
    });
    expect(r.outputs[0]).toMatchObject({ address: external, kind: 'external', amountSats: PAY.toString(), changeReason: null });
    expect(r.outputs[1]).toMatchObject({ address: changeAddress, kind: 'change', changeReason: 'ischange', used: false, amountSats: (amount - PAY - FEE).toString() });
    expect(r.summary).toMatchObject({
      inputTotalSats: amount.toString(),
      sentSats: PAY.toString(),
      changeSats: (amount - PAY - FEE).toString(),
      feeSats: FEE.toString(),
      vsize: 141,
      vsizeExact: false,
      feeRate: '10.00',
      feePercent: '0.014',
      rbf: true,
    });
    expect(r.warnings.map((w) => `${w.code}:${w.severity}`)).toEqual(['rbf:info']);
  });

  it('change back to the spent address (already used): output-to-used-address, change by the watched set only', async () => {
    const amount = parseBtc(String(coin.amount));
    const reuse = await buildPsbt(coin, [
      [external, PAY],
      [coin.address, amount - PAY - FEE],
    ]);
    const v = await ok<PsbtReviewReply>('psbt:review', { psbt: reuse });
    expect(v.review.outputs[1]).toMatchObject({ kind: 'change', changeReason: 'watched', used: true });
    const w = v.review.warnings.find((x) => x.code === 'output-to-used-address');
    expect(w).toMatchObject({ severity: 'warning', outputs: [1] });
    expect(w?.message).toContain(coin.address);
  });

  it('psbt:crosscheck: the node agrees (base64 and hex)', async () => {
    const c = await ok<PsbtCrosscheckReply>('psbt:crosscheck', { psbt });
    // The devnet answers as current Core (31.99) by default.
    expect(c).toEqual({ agrees: true, nodeAvailable: true, reason: null, node: '/Satoshi:31.99.0/', differences: [], truncated: false, offlineError: null, nodeError: null, asked: { version: 0, converted: false } });
    const hex = await ok<PsbtCrosscheckReply>('psbt:crosscheck', { psbt: Buffer.from(psbt, 'base64').toString('hex') });
    expect(hex.agrees).toBe(true);
  });

  it('psbt:crosscheck of a version 2 PSBT with current Core: asked as it is; psbt:convert both ways', async () => {
    // A version 2 PSBT as Core's createpsbt makes it (no modifiable flags): our v0 PSBT converted.
    const v2 = (await ok<{ base64: string; version: number }>('psbt:convert', { psbt, to: 2 })).base64;
    const c = await ok<PsbtCrosscheckReply>('psbt:crosscheck', { psbt: v2 });
    expect(c).toMatchObject({ agrees: true, nodeAvailable: true, differences: [], offlineError: null, nodeError: null, asked: { version: 2, converted: false } });
    const r = await ok<PsbtReviewReply>('psbt:review', { psbt: v2 });
    expect(r.version).toBe(2);
    expect(r.coreError).toBeNull();
    expect(r.context.nodeCoreVersion).toBe(31.99);
    expect(r.review.inputs[0]).toMatchObject({ watched: true, address: coin.address });
    // The conversion is a user action too, and goes back byte for byte.
    const v0 = await ok<{ base64: string; version: number }>('psbt:convert', { psbt: v2, to: 0 });
    expect(v0.version).toBe(0);
    // (Not the test's own bytes: Core writes a non_witness_utxo without its witness, as this does.)
    expect((await ok<PsbtCrosscheckReply>('psbt:crosscheck', { psbt: v0.base64 })).asked).toEqual({ version: 0, converted: false });
    expect((await ok<{ base64: string }>('psbt:convert', { psbt: v0.base64, to: 2 })).base64).toBe(v2);
  });

  it('psbt:crosscheck of a version 2 PSBT with a node that reads only version 0 (Core v30): asked in its version 0 form, never a false "disagrees"', async () => {
    const v30 = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p', coreVersion: '30' });
    const other = await startProfiledApp({ prefix: 'psbt-v30', name: 'Core v30', nodeUrl: v30.rpcUrl, indexUrl: v30.indexUrl, rpcUser: 'u', password: 'p' });
    try {
      expect(other.state).toBe('connected');
      const okV30 = <T>(channel: string, payload: unknown): Promise<T> => dispatchOk<T>(other.app, channel, payload);
      const v2 = (await okV30<{ base64: string }>('psbt:convert', { psbt, to: 2 })).base64;
      // The node itself refuses the version 2 bytes …
      await expect(new TestRpc(v30.rpcUrl, 'u', 'p').call('decodepsbt', [v2])).rejects.toThrow('Unsupported version number');
      // … so it is asked about the version 0 form, converted offline, and agrees.
      const c = await okV30<PsbtCrosscheckReply>('psbt:crosscheck', { psbt: v2 });
      expect(c).toMatchObject({ agrees: true, nodeAvailable: true, node: '/Satoshi:30.99.0/', differences: [], offlineError: null, nodeError: null, asked: { version: 0, converted: true } });
      // The review shows it as what it is, and knows the node reads only version 0.
      const r = await okV30<PsbtReviewReply>('psbt:review', { psbt: v2 });
      expect(r.version).toBe(2);
      expect(r.coreError).toBeNull();
      expect(r.context.nodeCoreVersion).toBe(30);

      // A version 2 PSBT still open to changes (modifiable flags, as @scure/btc-signer writes them):
      // its version 0 form drops the flags (as HWI's convert_to_v0), so the node is asked about that.
      const tx = new Transaction();
      tx.addInput({ txid: coin.txid, index: coin.vout, witnessUtxo: { script: Buffer.from(coin.scriptPubKey, 'hex'), amount: parseBtc(String(coin.amount)) } });
      tx.addOutput({ script: Buffer.from(coin.scriptPubKey, 'hex'), amount: 1000n });
      const open = Buffer.from(tx.toPSBT(2)).toString('base64');
      const c2 = await okV30<PsbtCrosscheckReply>('psbt:crosscheck', { psbt: open });
      expect(c2).toMatchObject({ agrees: true, nodeAvailable: true, differences: [], asked: { version: 0, converted: true } });
      const dropped = await okV30<PsbtConvertReply>('psbt:convert', { psbt: open, to: 0 });
      expect(dropped.version).toBe(0);
      expect(dropped.notes).toEqual([expect.stringMatching(/^The transaction-modifiable flags \(PSBT_GLOBAL_TX_MODIFIABLE: inputs modifiable, outputs modifiable\) were dropped/)]);
    } finally {
      await other.app.close();
      await v30.close();
      rmSync(other.dir, { recursive: true, force: true });
    }
  });

  it('diffJson: paths and values of what differs', () => {
    const d = diffJson(
      { tx: { vin: [{ txid: 'aa' }] }, fee: 0.0001, unknown: { f0: '01' }, inputs: [{}] },
      { tx: { vin: [{ txid: 'ab' }] }, fee: 0.0001, unknown: { f0: '02' }, inputs: [{}, {}] },
    );
    expect(d.differences).toEqual([
      { path: 'tx.vin[0].txid', offline: '"aa"', node: '"ab"' },
      { path: 'unknown.f0', offline: '"01"', node: '"02"' },
      { path: 'inputs[1]', offline: null, node: '{}' },
    ]);
    expect(diffJson({ '0a': 1 }, {}).differences[0]!.path).toBe('["0a"]');
  });

  it('inferNetwork: the chain of the watched addresses', () => {
    expect(inferNetwork(['bcrt1qwqle5hlhu9zjeu4g8nn6wnq75mqsec900e56jr', 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn'])).toBe(REGTEST);
    expect(inferNetwork(['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'])).toBe(MAINNET);
    expect(inferNetwork([])).toBeNull();
  });
});

describe('with the node down', () => {
  it('crosscheck: nodeAvailable false with the reason; the review still works', async () => {
    devnet.setFaults('rpc', { mode: 'reset' });
    const c = await ok<PsbtCrosscheckReply>('psbt:crosscheck', { psbt });
    expect(c.nodeAvailable).toBe(false);
    expect(c.agrees).toBe(false);
    expect(c.reason).toMatch(/^The node could not be asked: /);
    const v = await ok<PsbtReviewReply>('psbt:review', { psbt });
    expect(v.review.summary.feeSats).toBe(FEE.toString());
    expect(v.review.inputs[0]!.watched).toBe(true);
    devnet.setFaults('rpc', {});
  });

  it('offline (node and index gone): the review works from the store; crosscheck says why not', async () => {
    const snapHeight = (await ok<WatchOverview>('watch:overview')).snapshot!.nodeHeight;
    await devnet.close();
    devnetClosed = true;
    const st = await ok<{ state: string }>('connection:refresh');
    expect(st.state).toBe('failed');
    const v = await ok<PsbtReviewReply>('psbt:review', { psbt });
    expect(v.context).toMatchObject({ offline: true, chain: 'regtest', chainSource: 'watched-addresses', tipSource: 'snapshot', tipHeight: snapHeight });
    expect(v.coreJson).not.toBeNull();
    const r = v.review;
    expect(r.inputs[0]).toMatchObject({ watched: true, address: coin.address });
    expect(r.outputs[1]).toMatchObject({ kind: 'change', changeReason: 'ischange' });
    expect(r.summary).toMatchObject({ feeSats: FEE.toString(), feeRate: '10.00' });
    const c = await ok<PsbtCrosscheckReply>('psbt:crosscheck', { psbt });
    expect(c).toMatchObject({ agrees: false, nodeAvailable: false, differences: [] });
    expect(c.reason).toContain('not connected');
  });
});
