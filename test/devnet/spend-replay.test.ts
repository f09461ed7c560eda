/**
 * Replays ../shared/fixtures/core/bitcoin-core-spend.jsonl (Core 31.99) against the devnet as 31.99:
 * the recording's wallets and chain are rebuilt over RPC the way its README describes them (a
 * `watch` wallet following `hot`'s public descriptors, coins of every type, a 2-of-3 `vault`, a fee
 * history of six payments a block at 2–24 sat/vB over eight blocks, 0.33 BTC left unconfirmed, an
 * outgoing payment, a `late` wallet importing with timestamp 0). Requests whose replies do not depend
 * on keys are sent as recorded and must be answered identically; the others are sent with this
 * chain's addresses and txids, and must come back with the same status, keys in the same order,
 * the same types and 8-decimal amounts — and the same values where the rebuilt chain makes them the
 * same (categories, labels, amounts received, trust, confirmations counted from the same heights).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { coreFileGroup, type CoreRecording } from '../fixtures';
import { amountTokens, shapeOf, TestRpc } from '../support/rpc';

const FILE = 'bitcoin-core-spend.jsonl';
const rec = (group: string, name: string): CoreRecording => {
  const r = coreFileGroup(FILE, group).find((x) => x.name === name);
  if (!r) throw new Error(`no recording ${group} / ${name}`);
  return r;
};
type Body = { result: unknown; error: { code: number; message: string } | null };
const body = (r: CoreRecording): Body => r.response.body as Body;
const params = (r: CoreRecording): unknown[] => (JSON.parse(r.request.body) as { params: unknown[] }).params;
const order = (v: unknown): string => JSON.stringify(v);
type Entry = Record<string, unknown>;

/** Shapes of list entries by what they are: category, and confirmed or not. */
const kind = (e: Entry): string => `${String(e.category)}/${Number(e.confirmations) > 0 ? 'confirmed' : 'pending'}`;

describe('the devnet as Core 31.99 against the spend recordings', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  const s: Record<string, string> = {};

  const call = <T>(method: string, p: unknown[] | Record<string, unknown> = [], wallet?: string): Promise<T> => rpc.call<T>(method, p, wallet);
  /** The recorded request, sent as it is (same path, same body). */
  const same = async (r: CoreRecording): Promise<void> => {
    const reply = await rpc.raw(r.request.path, r.request.body);
    expect(reply.status, r.name).toBe(r.response.status);
    expect(order(JSON.parse(reply.text)), r.name).toBe(order(r.response.body));
  };
  /** The recorded request with other parameters: same status and shape (keys, order, types). */
  const shaped = async (r: CoreRecording, p: unknown[], wallet?: string): Promise<Body> => {
    const path = wallet === undefined ? r.request.path : `/wallet/${wallet}`;
    const reply = await rpc.raw(path, JSON.stringify({ jsonrpc: '1.0', id: 'replay', method: JSON.parse(r.request.body).method, params: p }));
    expect(reply.status, r.name).toBe(r.response.status);
    const got = JSON.parse(reply.text) as Body;
    for (const tok of amountTokens(reply.text, ['amount', 'fee', 'trusted', 'untrusted_pending', 'immature', 'nonmempool', 'feerate', 'total_fee'])) {
      expect(tok, `${r.name}: amount token`).toMatch(/^-?[0-9]+\.[0-9]{8}$/);
    }
    return got;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', coreVersion: '31.99' });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
    await call('setmocktime', [1_795_558_000]);
    for (const w of ['fund', 'hot', 'c1', 'c2', 'c3']) await call('createwallet', [w]);
    await call('createwallet', ['watch', true, true]);
    await call('createwallet', { wallet_name: 'vault', disable_private_keys: true, blank: true, load_on_startup: false });
    const fundAddr = await call<string>('getnewaddress', [], 'fund');
    await call('generatetoaddress', [110, fundAddr]);
    const hot = await call<{ descriptors: Array<{ desc: string; active: boolean; internal?: boolean }> }>('listdescriptors', [], 'hot');
    s.hotDescs = JSON.stringify(hot.descriptors);
    await call('importdescriptors', [hot.descriptors.map((d) => ({ desc: d.desc, active: d.active, internal: d.internal ?? false, range: [0, 60], timestamp: 0 }))], 'watch');
    s.legacy = await call('getnewaddress', ['', 'legacy'], 'watch');
    s.p2sh = await call('getnewaddress', ['', 'p2sh-segwit'], 'watch');
    s.rent = await call('getnewaddress', ['rent', 'bech32'], 'watch');
    s.taproot = await call('getnewaddress', ['', 'bech32m'], 'watch');
    // The vault: wsh(sortedmulti(2, …)) of the cosigners' BIP84 account keys, external and internal.
    const xpubs: string[] = [];
    for (const c of ['c1', 'c2', 'c3']) {
      const d = (await call<{ descriptors: Array<{ desc: string; internal?: boolean }> }>('listdescriptors', [], c)).descriptors.find((x) => x.desc.startsWith('wpkh(') && !x.internal)!;
      xpubs.push(/^wpkh\((\[[^\]]+\][a-zA-Z0-9]+)\/0\/\*\)/.exec(d.desc)![1]!);
    }
    const vault = async (branch: number): Promise<string> => (await call<{ descriptor: string }>('getdescriptorinfo', [`wsh(sortedmulti(2,${xpubs.map((x) => `${x}/${branch}/*`).join(',')}))`])).descriptor;
    await call('importdescriptors', [[{ desc: await vault(0), active: true, internal: false, timestamp: 'now' }, { desc: await vault(1), active: true, internal: true, timestamp: 'now' }]], 'vault');
    s.vault = await call('getnewaddress', ['cold vault'], 'vault');
    for (const a of [s.legacy, s.p2sh, s.rent, s.taproot]) {
      s[`big:${a}`] = await call('sendtoaddress', [a, 1.5], 'fund');
      s[`small:${a}`] = await call('sendtoaddress', [a, 0.25], 'fund');
    }
    await call('sendtoaddress', [s.vault, 4], 'fund');
    await call('sendtoaddress', [s.vault, 0.7], 'fund');
    await call('generatetoaddress', [1, fundAddr]);
    // The fee history: six payments a block at 2–24 sat/vB, eight blocks.
    for (let b = 0; b < 8; b++) {
      for (const rate of [2, 6, 10, 14, 18, 24]) await call('sendtoaddress', [fundAddr, 0.01, '', '', false, true, null, 'unset', false, rate], 'fund');
      await call('generatetoaddress', [1, fundAddr]);
    }
    s.pending = await call('sendtoaddress', [s.rent, 0.33], 'fund');
    s.recipient = await call('getnewaddress', [], 'fund');
    s.outgoing = await call('sendtoaddress', [s.recipient, 2], 'hot');
  }, 300_000);
  afterAll(async () => {
    await devnet?.close();
  });

  it('getwalletinfo, getbalances: same keys and order; the pending 0.33 is untrusted', async () => {
    for (const [name, wallet] of [['watch-only wallet', 'watch'], ['multisig watch-only wallet', 'vault']] as const) {
      const got = await shaped(rec('getwalletinfo', name), [], wallet);
      expect(order(shapeOf(got)), name).toBe(order(shapeOf(body(rec('getwalletinfo', name)))));
    }
    const r = rec('getbalances', 'watch-only wallet');
    const got = await shaped(r, []);
    expect(order(shapeOf(got))).toBe(order(shapeOf(body(r))));
    expect((got.result as { mine: Entry }).mine.untrusted_pending).toBe(0.33);
    expect((body(r).result as { mine: Entry }).mine.untrusted_pending).toBe(0.33);
  });

  it('gettransaction: confirmed, pending, verbose, outgoing, and a transaction of another wallet', async () => {
    const cases: Array<[string, unknown[], string?]> = [
      ['watch received, confirmed', [s[`small:${s.legacy}`]]],
      ['watch received, unconfirmed', [s.pending]],
      ['verbose', [s[`small:${s.legacy}`], true, true]],
      ['watch outgoing, unconfirmed', [s.outgoing]],
    ];
    for (const [name, p] of cases) {
      const r = rec('gettransaction', name);
      const got = (await shaped(r, p)).result as Entry;
      const want = body(r).result as Entry;
      expect(order(shapeOf({ ...got, details: [], decoded: undefined })), name).toBe(order(shapeOf({ ...want, details: [], decoded: undefined })));
      const gd = got.details as Entry[];
      const wd = want.details as Entry[];
      expect(gd.map(kind), name).toEqual(wd.map(kind));
      gd.forEach((e, i) => expect(order(shapeOf(e)), `${name} details[${i}]`).toBe(order(shapeOf(wd[i]))));
      for (const k of ['confirmations', 'trusted']) expect(k in got, `${name}: ${k}`).toBe(k in want);
      if (name !== 'watch outgoing, unconfirmed') expect(got.amount, name).toBe(want.amount);
      if (name === 'verbose') expect(Object.keys(got.decoded as Entry)).toEqual(Object.keys(want.decoded as Entry));
    }
    const r = rec('gettransaction', 'not a wallet transaction');
    expect(await shaped(r, [s[`small:${s.legacy}`]], 'vault')).toEqual({ result: null, error: body(r).error, id: 'replay' });
  });

  it('listtransactions and listsinceblock: entries of each kind with Core’s keys in Core’s order', async () => {
    for (const [group, name, p] of [
      ['listtransactions', 'watch last 10', ['*', 10]],
      ['listtransactions', 'watch with outgoing', ['*', 5]],
      ['listsinceblock', 'watch from genesis-ish', []],
    ] as const) {
      const r = rec(group, name);
      const got = (await shaped(r, [...p])).result as Entry | Entry[];
      const want = body(r).result as Entry | Entry[];
      const list = (x: Entry | Entry[]): Entry[] => (Array.isArray(x) ? x : (x.transactions as Entry[]));
      if (!Array.isArray(want)) expect(Object.keys(got as Entry), name).toEqual(Object.keys(want));
      // The rebuilt chain already holds the outgoing payment that Core's node made after the first two.
      const shapes = new Map(list(want).map((e) => [kind(e), order(shapeOf(e))]));
      for (const e of list(got)) {
        if (shapes.has(kind(e))) expect(order(shapeOf(e)), `${name}: ${kind(e)}`).toBe(shapes.get(kind(e)));
      }
      for (const k of shapes.keys()) expect(list(got).map(kind), name).toContain(k);
      if (name === 'watch with outgoing') expect(new Set(list(got).map(kind))).toEqual(new Set(list(want).map(kind)));
    }
  });

  it('gettxout, getmempoolinfo, estimatesmartfee: the same shapes; argument errors identical', async () => {
    const out = rec('gettxout', 'unspent');
    expect(order(shapeOf(await shaped(out, [s[`small:${s.legacy}`], 0])))).not.toBe('');
    await same(rec('gettxout', 'not found'));
    const info = rec('getmempoolinfo', 'after activity');
    expect(order(shapeOf(await shaped(info, [])))).toBe(order(shapeOf(body(info))));
    for (const r of coreFileGroup(FILE, 'estimatesmartfee')) {
      if (body(r).error) await same(r);
      else {
        const got = await shaped(r, params(r));
        expect(order(shapeOf(got)), r.name).toBe(order(shapeOf(body(r))));
      }
    }
  });

  it('testmempoolaccept and sendrawtransaction: decode errors and missing inputs identical; a refusal’s shape', async () => {
    await same(rec('testmempoolaccept', 'not hex'));
    for (const name of ['not hex', 'no transaction', 'spends missing inputs']) await same(rec('sendrawtransaction', name));
    // A transaction already in the mempool is refused with a reason and details, shaped like Core's refusals.
    const refused = rec('testmempoolaccept', 'dust output');
    const got = await shaped(refused, [[await call<string>('getrawtransaction', [s.outgoing])]]);
    expect(order(shapeOf(got))).toBe(order(shapeOf(body(refused))));
    expect((got.result as Entry[])[0]!['reject-reason']).toBe('txn-already-in-mempool');
  });

  it('bumpfee refuses a watch-only wallet with Core’s message', async () => {
    const r = rec('bumpfee', 'watch-only cannot sign');
    expect(await shaped(r, [s.outgoing])).toEqual({ result: null, error: body(r).error, id: 'replay' });
  });

  it('importdescriptors with timestamp 0 rescans; listreceivedbyaddress, rescanblockchain, abortrescan after it', async () => {
    await call('createwallet', ['late', true, true]);
    const rent = (JSON.parse(s.hotDescs!) as Array<{ desc: string; internal?: boolean }>).find((d) => d.desc.startsWith('wpkh(') && !d.internal)!.desc;
    const imp = rec('importdescriptors', 'timestamp 0 rescans history');
    expect(await shaped(imp, [[{ desc: rent, timestamp: 0, active: true, range: [0, 60], next_index: 0 }]])).toEqual({ ...body(imp), id: 'replay' });
    for (const name of ['invalid descriptor', 'missing timestamp', 'ranged without range on non-active']) await same(rec('importdescriptors', name));
    const lr = rec('listreceivedbyaddress', 'late wallet after rescan');
    const rows = (await shaped(lr, [0, false])).result as Entry[];
    const want = body(lr).result as Entry[];
    expect(rows.map((x) => ({ amount: x.amount, label: x.label, n: (x.txids as unknown[]).length }))).toEqual(want.map((x) => ({ amount: x.amount, label: x.label, n: (x.txids as unknown[]).length })));
    expect(order(shapeOf(rows))).toBe(order(shapeOf(want)));
    const scan = rec('rescanblockchain', 'from height 100');
    const got = (await shaped(scan, [100])).result as Entry;
    expect(Object.keys(got)).toEqual(Object.keys(body(scan).result as Entry));
    expect(got.stop_height).toBe(await call<number>('getblockcount'));
    await same(rec('abortrescan', 'nothing to abort'));
  });
});
