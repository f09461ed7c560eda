/**
 * Records Core's MuSig2 signing rounds and its finalizer on musig() descriptors (issue #32) into
 * test/fixtures/miniscript/musig-core-<generation>.jsonl. For each shape: a watch-only wallet
 * holding the descriptor gets one coin; createpsbt spends it; the watch-only wallet fills it
 * (walletprocesspsbt without signing); Core key wallets, one per participant (the descriptor with
 * that participant's tprv), run the rounds with walletprocesspsbt (finalize=false): first each in
 * turn adds its public nonce, then each alone its partial signature on that PSBT, joined by
 * combinepsbt (no aggregate yet: what finalizepsbt aggregates); a second run of the partial round
 * in turn shows the last signer's wallet aggregating itself.
 * Then finalizepsbt (extract=false and true) and analyzepsbt answer on variants of the PSBT: all partial
 * signatures, nonces only, one partial signature missing, one public nonce missing, one partial
 * signature changed, one that is not a scalar, the participants field reordered, one signer's
 * answer alone, the rounds with SIGHASH_ALL, and the wallet-aggregated PSBT; the complete
 * transaction goes through testmempoolaccept. test/bitcoin/musig-finalize.test.ts replays each line.
 *
 *   BITCOIND=$(/work/shared/core/unpack.sh 31.99)/bitcoind npx tsx scripts/record-musig.ts
 *   BITCOIND=$(/work/shared/core/unpack.sh 30.99)/bitcoind npx tsx scripts/record-musig.ts
 */
import { decodeBase64Core, encodeBase64, parsePsbt, serializePsbt } from '../shared/bitcoin/psbt';
import type { Psbt } from '../shared/bitcoin/psbt/types';
import { createMusigSigners, MUSIG_RANGE, MUSIG_SHAPES, musigWatchDescriptor, nonceRound, partialRound, processIn } from '../test/support/musig-shapes';
import { payOneCoin, recordOnCore } from './miniscript-recorder';

function edit(base64: string, change: (p: Psbt) => void): string {
  const r = parsePsbt(decodeBase64Core(base64)!);
  if (!r.ok) throw new Error(r.message);
  change(r.psbt);
  return encodeBase64(serializePsbt(r.psbt));
}

/** The first MuSig2 datum (partial sig or nonce) of participant number `n` (field order) on input 0. */
function datumKey(p: Psbt, which: 'musigPartialSigs' | 'musigPubnonces', n: number): string {
  const i = p.inputs[0]!;
  const parts = [...i.musigParticipants.values()][0]!.parts;
  const k = [...i[which].entries()].find(([, d]) => d.part === parts[n])?.[0];
  if (!k) throw new Error(`no ${which} entry for participant ${n}`);
  return k;
}

async function main(): Promise<void> {
  await recordOnCore('musig', 'MuSig2 finalizations', async ({ rpc, version, minerAddr }) => {
    await createMusigSigners(rpc);
    const lines: string[] = [];
    for (const [si, s] of MUSIG_SHAPES.entries()) {
      const desc = musigWatchDescriptor(s);
      const wallet = `watch${si}`;
      await rpc.call('createwallet', { wallet_name: wallet, disable_private_keys: true, blank: true });
      const imp = await rpc.call<{ success: boolean }[]>('importdescriptors', [[{ desc, range: MUSIG_RANGE, timestamp: 'now' }]], wallet);
      if (!imp[0]!.success) throw new Error(`${s.name}: import failed ${JSON.stringify(imp[0])}`);
      const index = 2; // a derived child, not the first
      const addr = (await rpc.call<string[]>('deriveaddresses', [desc, [index, index]]))[0]!;
      const { txid, vout } = await payOneCoin(rpc, addr);
      const created = await rpc.call<string>('createpsbt', [[{ txid, vout }], [{ [minerAddr]: 0.9999 }], 0, true]);
      const filled = await processIn(rpc, created, wallet, false);
      const nonces = await nonceRound(rpc, filled, s.signers);
      // each signer makes its partial signature on the nonces PSBT alone; combinepsbt joins them
      const each = await partialRound(rpc, nonces, s.signers);
      const partials = await rpc.call<string>('combinepsbt', [each]);
      // both rounds again in turn (fresh nonces: each secret nonce signs once): the last signer's
      // walletprocesspsbt already aggregates
      let aggregated = filled;
      for (const w of [...s.signers, ...s.signers]) aggregated = await processIn(rpc, aggregated, `musig-${w}`);
      // the rounds again with SIGHASH_ALL (the aggregate then carries the hash type byte)
      const allNonces = await nonceRound(rpc, filled, s.signers, 'ALL');
      const allPartials = await rpc.call<string>('combinepsbt', [await partialRound(rpc, allNonces, s.signers, 'ALL')]);
      const last = s.signers.length - 1;
      const variants: { note: string; psbt: string; complete: boolean }[] = [
        { note: 'all partial signatures', psbt: partials, complete: true },
        { note: 'all partial signatures, SIGHASH_ALL', psbt: allPartials, complete: true },
        { note: 'public nonces only', psbt: nonces, complete: false },
        { note: 'filled, no MuSig2 round yet', psbt: filled, complete: false },
        { note: 'aggregated by the last signer wallet (partial signatures in turn)', psbt: aggregated, complete: true },
        { note: 'all partial signatures but one (one signer\'s answer)', psbt: each[0]!, complete: false },
        { note: 'the last participant\'s partial signature missing', psbt: edit(partials, (p) => p.inputs[0]!.musigPartialSigs.delete(datumKey(p, 'musigPartialSigs', last))), complete: false },
        { note: 'the first participant\'s public nonce missing', psbt: edit(partials, (p) => p.inputs[0]!.musigPubnonces.delete(datumKey(p, 'musigPubnonces', 0))), complete: false },
        {
          note: 'the first participant\'s partial signature changed (+1)',
          psbt: edit(partials, (p) => {
            const d = p.inputs[0]!.musigPartialSigs.get(datumKey(p, 'musigPartialSigs', 0))!;
            const v = (BigInt('0x' + d.value) + 1n).toString(16).padStart(64, '0');
            d.value = v;
          }),
          complete: false,
        },
        {
          note: 'the participants field in reverse order (Core aggregates in the field\'s order)',
          psbt: edit(partials, (p) => {
            const m = [...p.inputs[0]!.musigParticipants.values()][0]!;
            m.parts = [...m.parts].reverse();
          }),
          complete: false,
        },
        {
          note: 'the last participant\'s partial signature not a scalar (all ff)',
          psbt: edit(partials, (p) => {
            p.inputs[0]!.musigPartialSigs.get(datumKey(p, 'musigPartialSigs', last))!.value = 'ff'.repeat(32);
          }),
          complete: false,
        },
      ];
      for (const v of variants) {
        const finalized = await rpc.call<{ psbt: string; complete: boolean }>('finalizepsbt', [v.psbt, false]);
        const extracted = await rpc.call<{ hex?: string; psbt?: string; complete: boolean }>('finalizepsbt', [v.psbt, true]);
        const analyzed = await rpc.call<unknown>('analyzepsbt', [v.psbt]);
        const line: Record<string, unknown> = { core: version, shape: s.name, note: v.note, descriptor: desc, index, signers: s.signers, signed: v.psbt, finalized, extracted, analyzed };
        if (v.note === 'all partial signatures') line.rounds = { filled, nonces, partials };
        if (extracted.hex) line.mempool = await rpc.call<unknown>('testmempoolaccept', [[extracted.hex]]);
        if (finalized.complete !== v.complete) console.warn(`${s.name} / ${v.note}: Core says complete=${finalized.complete}, expected ${v.complete}`);
        lines.push(JSON.stringify(line));
      }
      await rpc.call('generatetoaddress', [1, minerAddr]);
    }
    return lines;
  });
}

await main();
