/**
 * Records Core's finalizer on PSBTs whose miniscript has hash challenges (sha256, hash256,
 * ripemd160, hash160: test/support/miniscript-hash-policies.ts) into
 * test/fixtures/miniscript/finalize-hash-core-<generation>.jsonl. Core's wallet cannot add a
 * preimage to a PSBT, so for each case: a watch-only wallet holding the policy gets one coin;
 * createpsbt spends it; the watch-only wallet fills it (walletprocesspsbt without signing); this
 * script writes the case's PSBT_IN_<HASH> field (the preimage, a wrong one under the hash, a 33-byte
 * one, or none) with our serializer; the Core key wallets sign in turn (walletprocesspsbt,
 * finalize=false, which keeps the field); then finalizepsbt (extract=false and true) and analyzepsbt
 * on the signed PSBT. test/bitcoin/miniscript-finalize-hash.test.ts checks our finalizer against each line.
 *
 *   BITCOIND=$(/work/shared/core/unpack.sh 31.99)/bitcoind npx tsx scripts/record-miniscript-preimages.ts
 *   BITCOIND=$(/work/shared/core/unpack.sh 30.99)/bitcoind npx tsx scripts/record-miniscript-preimages.ts
 */
import { decodeBase64Core, encodeBase64, parsePsbt, serializePsbt } from '../shared/bitcoin/psbt';
import { payOneCoin, recordOnCore } from './miniscript-recorder';
import { casePreimage, HASH_POLICIES, type HashCase, type HashPolicy } from '../test/support/miniscript-hash-policies';
import { createPsbtArgs, createSigners, RANGE, signInTurn, watchDescriptor } from '../test/support/miniscript-policies';

/** The PSBT with the case's preimage field added to input 0 (none: unchanged). */
function withPreimage(base64: string, p: HashPolicy, c: HashCase): string {
  const pre = casePreimage(p, c);
  if (!pre) return base64;
  const r = parsePsbt(decodeBase64Core(base64)!, {});
  if (!r.ok) throw new Error(r.message);
  const inp = r.psbt.inputs[0]!;
  inp[p.fn] = new Map(inp[p.fn]).set(pre.hash, pre.preimage);
  return encodeBase64(serializePsbt(r.psbt));
}

async function main(): Promise<void> {
  await recordOnCore('finalize-hash', 'finalizations', async ({ rpc, version, minerAddr }) => {
    await createSigners(rpc, HASH_POLICIES, 'hsigner');
    const lines: string[] = [];
    for (const [pi, p] of HASH_POLICIES.entries()) {
      const desc = watchDescriptor(p);
      const wallet = `hwatch${pi}`;
      await rpc.call('createwallet', { wallet_name: wallet, disable_private_keys: true, blank: true });
      const imp = await rpc.call<{ success: boolean }[]>('importdescriptors', [[{ desc, range: RANGE, timestamp: 'now' }]], wallet);
      if (!imp[0]!.success) throw new Error(`${p.name}: import failed ${JSON.stringify(imp[0])}`);
      const addrs = await rpc.call<string[]>('deriveaddresses', [desc, RANGE]);
      for (const [ci, c] of p.cases.entries()) {
        const addr = addrs[ci]!;
        const { txid, vout } = await payOneCoin(rpc, addr);
        const psbt = await rpc.call<string>('createpsbt', createPsbtArgs(c, { txid, vout }, minerAddr, 0.9999));
        const filled = await rpc.call<{ psbt: string }>('walletprocesspsbt', [psbt, false, 'DEFAULT', true], wallet);
        const signed = await signInTurn(rpc, withPreimage(filled.psbt, p, c), c.signers, 'hsigner');
        const finalized = await rpc.call<{ psbt: string; complete: boolean }>('finalizepsbt', [signed, false]);
        const extracted = await rpc.call<{ hex?: string; psbt?: string; complete: boolean }>('finalizepsbt', [signed, true]);
        const analyzed = await rpc.call<unknown>('analyzepsbt', [signed]);
        if (finalized.complete !== c.complete) throw new Error(`${p.name} / ${c.note}: Core says complete=${finalized.complete}, the case expects ${c.complete}`);
        let mempool: unknown = null;
        if (extracted.hex) mempool = (await rpc.call<unknown[]>('testmempoolaccept', [[extracted.hex]]))[0];
        lines.push(JSON.stringify({ core: version, policy: p.name, note: c.note, descriptor: desc, index: ci, signers: c.signers, preimage: c.preimage, signed, finalized, extracted, analyzed, mempool }));
      }
      await rpc.call('generatetoaddress', [1, minerAddr]);
    }
    return lines;
  });
}

await main();
