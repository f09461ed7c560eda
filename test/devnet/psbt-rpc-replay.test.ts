/**
 * createpsbt, converttopsbt and joinpsbts replayed from ../shared/fixtures/core/bitcoin-core-spend.jsonl
 * (Core 31.99): their replies do not depend on the chain, so every recorded line must come back
 * identical — except a successful joinpsbts, which Core shuffles: that one must hold the same inputs
 * and outputs with the same data, in some order. The devnet as Core 30 writes version 0 only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { coreFileGroup } from '../fixtures';
import { TestRpc } from '../support/rpc';

const order = (v: unknown): string => JSON.stringify(v);
type Decoded = { inputs: unknown[]; outputs: unknown[]; tx: { vin: unknown[]; vout: unknown[]; version: number; locktime: number } };

describe.each(['31.99', '30'] as const)('createpsbt, converttopsbt, joinpsbts as Core %s', (coreVersion) => {
  let devnet: Devnet;
  let rpc: TestRpc;
  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', coreVersion });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
  });
  afterAll(async () => {
    await devnet?.close();
  });

  it.runIf(coreVersion === '31.99')('every recorded line, identical (joinpsbts: the same parts, shuffled)', async () => {
    for (const group of ['createpsbt', 'converttopsbt', 'joinpsbts']) {
      const recs = coreFileGroup('bitcoin-core-spend.jsonl', group);
      expect(recs.length, group).toBeGreaterThan(0);
      for (const rec of recs) {
        const reply = await rpc.raw(rec.request.path, rec.request.body);
        expect(reply.status, rec.name).toBe(rec.response.status);
        const got = JSON.parse(reply.text) as { result: unknown };
        const want = rec.response.body as { result: unknown };
        if (group === 'joinpsbts' && reply.status === 200) {
          const dg = await rpc.call<Decoded>('decodepsbt', [got.result]);
          const dw = await rpc.call<Decoded>('decodepsbt', [want.result]);
          const pairs = (d: Decoded): string[] => d.tx.vin.map((v, i) => order([v, d.inputs[i]])).sort();
          const outs = (d: Decoded): string[] => d.tx.vout.map((v, i) => order([{ ...(v as object), n: undefined }, d.outputs[i]])).sort();
          expect(pairs(dg), rec.name).toEqual(pairs(dw));
          expect(outs(dg), rec.name).toEqual(outs(dw));
          expect([dg.tx.version, dg.tx.locktime]).toEqual([dw.tx.version, dw.tx.locktime]);
        } else {
          expect(order(got), rec.name).toBe(order(rec.response.body));
        }
      }
    }
  });

  it.runIf(coreVersion === '30')('writes version 0 PSBTs, and has no psbt_version argument', async () => {
    const rec = coreFileGroup('bitcoin-core-spend.jsonl', 'createpsbt').find((r) => r.name === 'one input per type, psbt_version 0')!;
    const params = (JSON.parse(rec.request.body) as { params: unknown[] }).params;
    expect(await rpc.call('createpsbt', params.slice(0, 5))).toBe((rec.response.body as { result: string }).result);
    await expect(rpc.call('createpsbt', params)).rejects.toMatchObject({ code: -1 });
  });
});

/**
 * combinepsbt, finalizepsbt and analyzepsbt: stateless, so every recorded line of the spend file and of
 * Core's own PSBT vectors (both answered by Core 31.99) comes back identical — status and body.
 */
describe('combinepsbt, finalizepsbt, analyzepsbt as Core 31.99', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', coreVersion: '31.99' });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
  });
  afterAll(async () => {
    await devnet?.close();
  });

  it.each(['combinepsbt', 'finalizepsbt', 'analyzepsbt'])('%s: every recorded line, identical', async (group) => {
    const recs = [...coreFileGroup('bitcoin-core-spend.jsonl', group), ...coreFileGroup('bitcoin-core-psbt-vectors.jsonl', group)];
    expect(recs.length).toBeGreaterThan(group === 'analyzepsbt' ? 3 : 5);
    for (const rec of recs) {
      const reply = await rpc.raw(rec.request.path, rec.request.body);
      expect(reply.status, rec.name).toBe(rec.response.status);
      // the recording keeps the body as parsed JSON: compared as such, field order included
      expect(order(JSON.parse(reply.text)), rec.name).toBe(order(rec.response.body));
    }
  });
});

describe('the PSBT roles as Core 30 (version 0 only)', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', coreVersion: '30' });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
  });
  afterAll(async () => {
    await devnet?.close();
  });

  it('v0 PSBTs combine, finalize and analyze as recorded; a v2 PSBT is refused as v30 refuses it', async () => {
    const v0 = coreFileGroup('bitcoin-core-spend.jsonl', 'combinepsbt').find((r) => r.name === 'two cosigners, psbt v0')!;
    const params = (JSON.parse(v0.request.body) as { params: unknown[] }).params;
    expect(await rpc.call('combinepsbt', params)).toBe((v0.response.body as { result: string }).result);
    const v2 = coreFileGroup('bitcoin-core-spend.jsonl', 'combinepsbt').find((r) => r.name === 'two cosigners')!;
    const v2params = (JSON.parse(v2.request.body) as { params: string[][] }).params;
    await expect(rpc.call('combinepsbt', v2params)).rejects.toMatchObject({ code: -22, message: expect.stringMatching(/^TX decode failed/) });
    await expect(rpc.call('analyzepsbt', [v2params[0]![0]])).rejects.toMatchObject({ code: -22 });
    await expect(rpc.call('finalizepsbt', [v2params[0]![0]])).rejects.toMatchObject({ code: -22 });
  });
});


/**
 * utxoupdatepsbt on the devnet's own chain (its parity with real Core is in bitcoind-parity): a
 * confirmed segwit coin comes in as witness_utxo, a coin paid by a mempool transaction as the whole
 * previous transaction, an unknown coin gets nothing; a wallet descriptor adds the key origin.
 */
describe('utxoupdatepsbt on the devnet chain', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'demo' });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
  });
  afterAll(async () => {
    await devnet?.close();
  });

  type U = { txid: string; vout: number; address: string; confirmations: number; desc: string };
  type D = { inputs: Array<{ witness_utxo?: unknown; non_witness_utxo?: { txid: string }; bip32_derivs?: unknown[] }> };

  it('witness_utxo from the UTXO set, the previous transaction from the mempool, nothing for an unknown coin, key origins from a descriptor', async () => {
    const coins = await rpc.call<U[]>('listunspent', [0], 'watch');
    const confirmed = coins.find((c) => c.confirmations > 0 && c.address.startsWith('bcrt1q'))!;
    const pending = coins.find((c) => c.confirmations === 0)!;
    expect(confirmed && pending).toBeTruthy();
    const psbt = await rpc.call<string>('createpsbt', [[confirmed, pending, { txid: 'ab'.repeat(32), vout: 0 }].map((c) => ({ txid: c.txid, vout: c.vout })), [{ data: '00' }]]);
    const updated = await rpc.call<string>('utxoupdatepsbt', [psbt]);
    const d = await rpc.call<D>('decodepsbt', [updated]);
    expect(d.inputs[0]!.witness_utxo).toBeDefined();
    expect(d.inputs[0]!.non_witness_utxo).toBeUndefined();
    expect(d.inputs[1]!.non_witness_utxo?.txid).toBe(pending.txid);
    expect(d.inputs[2]!.witness_utxo ?? d.inputs[2]!.non_witness_utxo).toBeUndefined();
    const withDesc = await rpc.call<D>('decodepsbt', [await rpc.call<string>('utxoupdatepsbt', [psbt, [confirmed.desc]])]);
    expect(withDesc.inputs[0]!.bip32_derivs).toHaveLength(1);
    await expect(rpc.call('utxoupdatepsbt', [psbt, ['wpkh(nope)']])).rejects.toMatchObject({ code: -5 });
  });
});
