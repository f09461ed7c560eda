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
