/**
 * The devnet's script and signature verification without a real node: coins of every standard kind
 * (paid by a devnet wallet to fixed keys) spent with each sighash type are accepted; spoiled
 * signatures are refused with Core's script error texts (the live comparison checks the same
 * against real Core in both generations: parity/steps-policy.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';
import { OTHER_MINER, withOutputValue } from './parity/keys';
import { highS, KINDS, replaceOnce, signKinds, type Kind, type KindCoin } from './parity/sign';

const BTC = 100_000_000n;
type Verdict = { allowed: boolean; 'reject-reason'?: string; 'reject-details'?: string };

describe('the devnet verifies every input’s script and signature', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  const coins = new Map<Kind, KindCoin[]>();

  const accept = async (hex: string): Promise<Verdict> => (await rpc.call<Verdict[]>('testmempoolaccept', [[hex]]))[0]!;
  const spend = (kind: Kind, n: number, sighash?: number, outs = 1): string => {
    const c = { ...coins.get(kind)![n]!, sighash };
    return signKinds([c], outs === 1 ? [{ address: OTHER_MINER.address, value: BTC - 10_000n }] : [{ address: OTHER_MINER.address, value: BTC / 2n }, { address: OTHER_MINER.address, value: BTC / 2n - 10_000n }]).hex;
  };

  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty' });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
    await rpc.call('createwallet', ['payer']);
    await rpc.call('generatetoaddress', [110, await rpc.call<string>('getnewaddress', [], 'payer')]);
    for (const kind of Object.keys(KINDS) as Kind[]) {
      const list: KindCoin[] = [];
      for (let n = 0; n < 2; n++) {
        const txid = await rpc.call<string>('sendtoaddress', [KINDS[kind].address, 1], 'payer');
        const hex = await rpc.call<string>('getrawtransaction', [txid]);
        const tx = await rpc.call<{ vout: Array<{ value: number; scriptPubKey: { address?: string } }> }>('decoderawtransaction', [hex]);
        const vout = tx.vout.findIndex((o) => o.scriptPubKey.address === KINDS[kind].address);
        list.push({ txid, vout, value: BTC, kind, prevHex: hex });
      }
      coins.set(kind, list);
    }
    await rpc.call('generatetoaddress', [1, OTHER_MINER.address]);
  }, 120_000);
  afterAll(async () => {
    await devnet?.close();
  });

  it('accepts each kind with each sighash type', async () => {
    for (const kind of Object.keys(KINDS) as Kind[]) {
      const types = kind === 'p2tr' ? [undefined, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83] : [0x01, 0x02, 0x03, 0x81, 0x82, 0x83];
      for (const t of types) expect(await accept(spend(kind, 0, t, 2)), `${kind} ${t}`).toMatchObject({ allowed: true });
    }
  });

  it('refuses a signature that no longer matches, for each kind, with Core’s text', async () => {
    for (const kind of Object.keys(KINDS) as Kind[]) {
      const v = await accept(withOutputValue(spend(kind, 1), BTC - 10_000n, BTC - 9_000n));
      const text = kind === 'p2tr' ? 'Invalid Schnorr signature' : 'Signature must be zero for failed CHECK(MULTI)SIG operation';
      expect(v, kind).toMatchObject({ allowed: false, 'reject-reason': `mempool-script-verify-flag-failed (${text})` });
      expect(v['reject-details'], kind).toMatch(/^mempool-script-verify-flag-failed \(.+\), input 0 of [0-9a-f]{64} \(wtxid [0-9a-f]{64}\), spending [0-9a-f]{64}:[0-9]+$/);
    }
  });

  it('refuses non-canonical signatures: high S, an undefined hash type, not DER; Schnorr size and hash type', async () => {
    const wpkh = spend('p2wpkh', 1);
    const x = highS(wpkh);
    const reason = async (hex: string): Promise<string | undefined> => (await accept(hex))['reject-reason'];
    expect(await reason(replaceOnce(wpkh, x.sig, x.high))).toBe('mempool-script-verify-flag-failed (Non-canonical signature: S value is unnecessarily high)');
    expect(await reason(replaceOnce(wpkh, x.sig, `${x.sig.slice(0, -2)}04`))).toBe('mempool-script-verify-flag-failed (Signature hash type missing or not understood)');
    expect(await reason(replaceOnce(wpkh, x.sig, `${x.sig.slice(0, 2)}31${x.sig.slice(4)}`))).toBe('mempool-script-verify-flag-failed (Non-canonical DER signature)');
    const tr = spend('p2tr', 1);
    expect(await reason(tr.replace(/0140([0-9a-f]{128})00000000$/, '0141$10000000000'))).toBe('mempool-script-verify-flag-failed (Invalid Schnorr signature hash type)');
    expect(await reason(tr.replace(/0140([0-9a-f]{126})[0-9a-f]{2}00000000$/, '013f$100000000'))).toBe('mempool-script-verify-flag-failed (Invalid Schnorr signature size)');
  });

  it('sends a valid spend and refuses a spoiled one on sendrawtransaction (-26)', async () => {
    await expect(rpc.call('sendrawtransaction', [withOutputValue(spend('p2sh-2of3', 1), BTC - 10_000n, BTC - 9_000n)])).rejects.toMatchObject({ code: -26 });
    expect(await rpc.call('sendrawtransaction', [spend('p2sh-2of3', 1)])).toMatch(/^[0-9a-f]{64}$/);
  });
});
