/**
 * The PSBT updaters and signers replayed from ../shared/fixtures/core/bitcoin-core-spend.jsonl (Core 31.99):
 * descriptorprocesspsbt does not depend on the chain when the PSBT carries its UTXOs, so its recorded
 * line (a cosigner's private descriptor signing the vault's 2-of-3 spend) must come back identical —
 * the same signature bytes: RFC6979, ground to a low R as Core grinds. walletprocesspsbt's refusals are
 * replayed as recorded; its fills are checked on the devnet's own wallets (psbt-wallet.test.ts) and
 * against real Core in bitcoind-parity.
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
});
