/**
 * The PSBT updaters and signers replayed from ../shared/fixtures/core/bitcoin-core-spend.jsonl (Core 31.99):
 * descriptorprocesspsbt does not depend on the chain when the PSBT carries its UTXOs, so its recorded
 * line (a cosigner's private descriptor signing the vault's 2-of-3 spend) must come back identical —
 * the same signature bytes: RFC6979, ground to a low R as Core grinds. walletprocesspsbt's refusal is
 * replayed as recorded; its fills, psbtbumpfee and the signing wallets are checked on the devnet's own
 * wallets (psbt-wallet.test.ts) and against real Core in bitcoind-parity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { coreFileGroup } from '../fixtures';
import { TestRpc } from '../support/rpc';

const order = (v: unknown): string => JSON.stringify(v);

describe.each(['31.99', '30'] as const)('descriptorprocesspsbt and walletprocesspsbt as Core %s', (coreVersion) => {
  let devnet: Devnet;
  let rpc: TestRpc;
  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', coreVersion });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
  });
  afterAll(async () => {
    await devnet?.close();
  });

  it.runIf(coreVersion === '31.99')('descriptorprocesspsbt: every recorded line, identical (a private descriptor signs)', async () => {
    const recs = coreFileGroup('bitcoin-core-spend.jsonl', 'descriptorprocesspsbt');
    expect(recs.length).toBeGreaterThan(0);
    for (const rec of recs) {
      const reply = await rpc.raw(rec.request.path, rec.request.body);
      expect(reply.status, rec.name).toBe(rec.response.status);
      expect(order(JSON.parse(reply.text)), rec.name).toBe(order(rec.response.body));
    }
  });

  it.runIf(coreVersion === '30')('the recorded version 2 PSBT is refused as Core 30.99 refuses it; descriptors are read before the PSBT', async () => {
    const rec = coreFileGroup('bitcoin-core-spend.jsonl', 'descriptorprocesspsbt')[0]!;
    const params = (JSON.parse(rec.request.body) as { params: unknown[] }).params;
    await expect(rpc.call('descriptorprocesspsbt', params)).rejects.toMatchObject({ code: -22, message: 'TX decode failed Unsupported version number: iostream error' });
    await expect(rpc.call('descriptorprocesspsbt', [params[0], ['wpkh(nope)']])).rejects.toMatchObject({ code: -5, message: "wpkh(): key 'nope' is not valid" });
    await expect(rpc.call('utxoupdatepsbt', ['xx', ['wpkh(nope)']])).rejects.toMatchObject({ code: -5, message: "wpkh(): key 'nope' is not valid" });
  });

  it('walletprocesspsbt: the recorded refusal of an invalid PSBT, identical', async () => {
    await rpc.call('createwallet', ['watch', true, true]);
    const rec = coreFileGroup('bitcoin-core-spend.jsonl', 'walletprocesspsbt').find((r) => r.name === 'invalid psbt')!;
    const reply = await rpc.raw(rec.request.path, rec.request.body);
    expect(reply.status).toBe(rec.response.status);
    expect(order(JSON.parse(reply.text))).toBe(order(rec.response.body));
  });
});
