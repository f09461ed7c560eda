/**
 * MuSig2 spends on real Bitcoin Core with Spyglass's own fill, combine and finalize: one private
 * regtest node; Core key wallets holding A's, B's and C's private keys run the MuSig2 rounds
 * (test/support/musig-shapes.ts: nonces in turn, then each signer's partial signature alone) on
 * every musig() shape — key path 2-of-2 and 3-of-3, with a script tree, musig() leaves, ranged
 * participants and ranged aggregates. Each spend (a payment, and change back to the descriptor) is
 * created by createpsbt, filled by OUR updater from the watch-only descriptor — byte for byte what
 * Core's watch-only wallet writes: the MuSig2 participants fields of input and change output, the
 * participants' key origins — its partial signatures joined by OUR combiner and aggregated by
 * OUR finalizer; Core's finalizepsbt on the same PSBT must give the same bytes (fresh nonces on
 * every run), the mempool must take the transaction and a block confirm it. One signer's answer
 * alone must stay unfinalized, naming the participant whose partial signature is missing.
 */
import { expect, it } from 'vitest';
import { combinePsbtsBase64, fillPsbtBase64, finalizePsbtBase64 } from '../../shared/bitcoin/psbt';
import { REGTEST } from '../../shared/bitcoin/networks';
import { describeWithBitcoind } from '../support/bitcoind';
import { createMusigSigners, MUSIG_RANGE, MUSIG_SHAPES, musigWatchDescriptor, nonceRound, partialRound, processIn } from '../support/musig-shapes';

describeWithBitcoind('MuSig2 spends on real Core, with our fill, combine and finalize', (node) => {
  it('aggregates every shape as Core does; the mempool takes each transaction and a block confirms it', async () => {
    const rpc = node().rpc;
    const coreVersion = node().generation.startsWith('30.') ? 30 : 31.99;
    await rpc.call('createwallet', ['miner']);
    const miner = await rpc.call<string>('getnewaddress', [], 'miner');
    await rpc.call('generatetoaddress', [101, miner]);
    await createMusigSigners(rpc);

    const index = 4;
    const coins = [];
    for (const [si, s] of MUSIG_SHAPES.entries()) {
      const desc = musigWatchDescriptor(s);
      const watch = `watch${si}`;
      await rpc.call('createwallet', { wallet_name: watch, disable_private_keys: true, blank: true });
      await rpc.call('importdescriptors', [[{ desc, range: MUSIG_RANGE, timestamp: 'now' }]], watch);
      const [addr, change] = await rpc.call<string[]>('deriveaddresses', [desc, [index, index + 1]]);
      coins.push({ s, desc, watch, addr: addr!, change: change! });
    }
    const fundTxid = await rpc.call<string>('sendmany', ['', Object.fromEntries(coins.map((k) => [k.addr, 1]))], 'miner');
    const fundHex = await rpc.call<string>('getrawtransaction', [fundTxid]);
    const fundTx = await rpc.call<{ vout: { n: number; scriptPubKey: { address?: string } }[] }>('decoderawtransaction', [fundHex]);
    await rpc.call('generatetoaddress', [1, miner]);

    const sent: string[] = [];
    for (const k of coins) {
      const label = k.s.name;
      const vout = fundTx.vout.find((o) => o.scriptPubKey.address === k.addr)!.n;
      // a payment and change back to the same descriptor (its fields filled too)
      const psbt = await rpc.call<string>('createpsbt', [[{ txid: fundTxid, vout }], [{ [miner]: 0.5 }, { [k.change]: 0.4999 }], 0, true]);
      const filled = fillPsbtBase64({ psbt, descriptors: [{ desc: k.desc, range: MUSIG_RANGE }], prevtxs: [fundHex], network: REGTEST, coreVersion });
      if (!filled.ok) throw new Error(`${label}: ${filled.error}`);
      // our fill is Core's watch-only wallet's: the participants field, the participants' key origins
      expect(filled.psbt, `${label}: our fill is walletprocesspsbt's`).toBe(await processIn(rpc, psbt, k.watch, false));
      const nonces = await nonceRound(rpc, filled.psbt, k.s.signers);
      const each = await partialRound(rpc, nonces, k.s.signers);

      // one signer's answer alone: no aggregate, and the reason names who has not signed
      const one = finalizePsbtBase64(each[0]!, { coreVersion });
      if (!one.ok) throw new Error(one.error);
      expect(one.result.complete, label).toBe(false);
      expect(one.incomplete[0]?.reason, label).toMatch(/no partial signature yet by participants? 0[23][0-9a-f]{64}/);
      expect((await rpc.call<{ complete: boolean }>('finalizepsbt', [each[0]!])).complete, label).toBe(false);

      const combined = combinePsbtsBase64(each, { coreVersion });
      if (!combined.ok) throw new Error(combined.error);
      expect(combined.psbt, `${label}: our combine is Core's`).toBe(await rpc.call<string>('combinepsbt', [each]));
      for (const extract of [false, true]) {
        const ours = finalizePsbtBase64(combined.psbt, { coreVersion, extract });
        expect(ours, label).toMatchObject({ ok: true, result: await rpc.call('finalizepsbt', [combined.psbt, extract]), refused: [], incomplete: [] });
      }
      const fin = finalizePsbtBase64(combined.psbt, { coreVersion, extract: true });
      if (!fin.ok || !('hex' in fin.result)) throw new Error(`${label}: not complete`);
      const [accept] = await rpc.call<{ allowed: boolean }[]>('testmempoolaccept', [[fin.result.hex]]);
      expect(accept, label).toMatchObject({ allowed: true });
      sent.push(await rpc.call<string>('sendrawtransaction', [fin.result.hex]));
    }
    await rpc.call('generatetoaddress', [1, miner]);
    for (const txid of sent) expect((await rpc.call<{ confirmations: number }>('gettransaction', [txid, true], 'miner')).confirmations).toBe(1);
  });
});
