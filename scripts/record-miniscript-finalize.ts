/**
 * Records Core's finalizer on every spending path of the policies of issue #32
 * (test/support/miniscript-policies.ts) into test/fixtures/miniscript/finalize-core-<generation>.jsonl.
 * For each path: a watch-only wallet holding the policy gets one coin; createpsbt spends it with the
 * path's nSequence / nLockTime; the watch-only wallet fills it (walletprocesspsbt without signing);
 * Core key wallets holding the private keys sign in turn (walletprocesspsbt, finalize=false); then
 * finalizepsbt answers twice — the finalized PSBT (extract=false) and the network transaction
 * (extract=true) — and analyzepsbt on the signed PSBT (its size estimates satisfy the miniscript
 * with dummy signatures). test/bitcoin/miniscript-finalize.test.ts checks our finalizer against each line.
 *
 *   BITCOIND=$(/work/shared/core/unpack.sh 31.99)/bitcoind npx tsx scripts/record-miniscript-finalize.ts
 *   BITCOIND=$(/work/shared/core/unpack.sh 30.99)/bitcoind npx tsx scripts/record-miniscript-finalize.ts
 */
import { payOneCoin, recordOnCore } from './miniscript-recorder';
import { createPsbtArgs, createSigners, POLICIES, RANGE, signInTurn, watchDescriptor } from '../test/support/miniscript-policies';

async function main(): Promise<void> {
  await recordOnCore('finalize', 'finalizations', async ({ rpc, version, minerAddr }) => {
    await createSigners(rpc);
    const lines: string[] = [];
    for (const [pi, p] of POLICIES.entries()) {
      const desc = watchDescriptor(p);
      const wallet = `watch${pi}`;
      await rpc.call('createwallet', { wallet_name: wallet, disable_private_keys: true, blank: true });
      const imp = await rpc.call<{ success: boolean }[]>('importdescriptors', [[{ desc, range: RANGE, timestamp: 'now' }]], wallet);
      if (!imp[0]!.success) throw new Error(`${p.name}: import failed ${JSON.stringify(imp[0])}`);
      const addrs = await rpc.call<string[]>('deriveaddresses', [desc, RANGE]);
      for (const [ci, c] of p.cases.entries()) {
        const addr = addrs[ci]!;
        const { txid, vout } = await payOneCoin(rpc, addr);
        const psbt = await rpc.call<string>('createpsbt', createPsbtArgs(c, { txid, vout }, minerAddr, 0.9999));
        const filled = await rpc.call<{ psbt: string }>('walletprocesspsbt', [psbt, false, 'DEFAULT', true], wallet);
        const signed = await signInTurn(rpc, filled.psbt, c.signers);
        const finalized = await rpc.call<{ psbt: string; complete: boolean }>('finalizepsbt', [signed, false]);
        const extracted = await rpc.call<{ hex?: string; psbt?: string; complete: boolean }>('finalizepsbt', [signed, true]);
        const analyzed = await rpc.call<unknown>('analyzepsbt', [signed]);
        if (finalized.complete !== c.complete) throw new Error(`${p.name} / ${c.note}: Core says complete=${finalized.complete}, the case expects ${c.complete}`);
        lines.push(JSON.stringify({ core: version, policy: p.name, note: c.note, descriptor: desc, index: ci, signers: c.signers, signed, finalized, extracted, analyzed }));
      }
      await rpc.call('generatetoaddress', [1, minerAddr]);
    }
    return lines;
  });
}

await main();
