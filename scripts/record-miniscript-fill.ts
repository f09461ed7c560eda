/**
 * Records Core's updater (walletprocesspsbt(psbt, sign=false, "DEFAULT", bip32derivs=true)) on a
 * watch-only wallet holding each policy of issue #32, into
 * test/fixtures/miniscript/fill-core-<generation>.jsonl: the unsigned PSBT spending one coin of the
 * policy, the wallet's descriptor, the previous transaction, and Core's filled PSBT.
 *
 *   BITCOIND=$(/work/shared/core/unpack.sh 31.99)/bitcoind npx tsx scripts/record-miniscript-fill.ts
 *   BITCOIND=$(/work/shared/core/unpack.sh 30.99)/bitcoind npx tsx scripts/record-miniscript-fill.ts
 */
import { payOneCoin, recordOnCore } from './miniscript-recorder';
import { CORPUS } from './record-miniscript';

const POLICIES = CORPUS.filter((c) => c.range && !c.descriptor.includes('<') && /^(A, or|2-of-3|tr multi_a|tr key path|tr tree)/.test(c.note));

async function main(): Promise<void> {
  await recordOnCore('fill', 'fills', async ({ rpc, version, minerAddr }) => {
    const lines: string[] = [];
    for (const [i, c] of POLICIES.entries()) {
      const info = await rpc.call<{ checksum: string }>('getdescriptorinfo', [c.descriptor]);
      const desc = `${c.descriptor}#${info.checksum}`;
      const wallet = `w${i}`;
      await rpc.call('createwallet', { wallet_name: wallet, disable_private_keys: true, blank: true });
      const imp = await rpc.call<{ success: boolean; error?: unknown }[]>('importdescriptors', [[{ desc, range: [0, 2], timestamp: 'now' }]], wallet);
      if (!imp[0]!.success) throw new Error(`${c.note}: import failed ${JSON.stringify(imp[0])}`);
      const [addr] = await rpc.call<string[]>('deriveaddresses', [desc, [1, 1]]);
      const { txid, vout, hex } = await payOneCoin(rpc, addr!);
      const psbt = await rpc.call<string>('createpsbt', [[{ txid, vout }], [{ [minerAddr]: 0.9999 }]]);
      const filled = await rpc.call<{ psbt: string; complete: boolean }>('walletprocesspsbt', [psbt, false, 'DEFAULT', true], wallet);
      lines.push(JSON.stringify({ core: version, note: c.note, descriptors: [{ desc, range: [0, 2] }], psbt, prevtxs: { [txid]: hex }, result: filled }));
    }
    return lines;
  });
}

await main();
