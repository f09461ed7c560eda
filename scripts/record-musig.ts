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
 * signature changed, one that is not a scalar, one signer's answer alone, and the
 * wallet-aggregated PSBT; the complete
 * transaction goes through testmempoolaccept. test/bitcoin/musig-finalize.test.ts replays each line.
 *
 *   BITCOIND=$(/work/shared/core/unpack.sh 31.99)/bitcoind npx tsx scripts/record-musig.ts
 *   BITCOIND=$(/work/shared/core/unpack.sh 30.99)/bitcoind npx tsx scripts/record-musig.ts
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { HDKey } from '@scure/bip32';
import { descriptorChecksum } from '../shared/bitcoin/descriptor-checksum';
import { toHex } from '../shared/bitcoin/hex';
import { decodeBase64Core, encodeBase64, parsePsbt, serializePsbt } from '../shared/bitcoin/psbt';
import type { Psbt } from '../shared/bitcoin/psbt/types';
import type { TestRpc } from '../test/support/rpc';
import { payOneCoin, recordOnCore } from './miniscript-recorder';

type Who = 'A' | 'B' | 'C' | 'D';
const TPUB = { public: 0x043587cf, private: 0x04358394 };

/** Participant accounts: fixed seeds, m/87'/1'/0' (tpub and tprv with their origin, no derivation after). */
function account(name: Who): { pub: string; prv: string } {
  const root = HDKey.fromMasterSeed(sha256(new TextEncoder().encode(`spyglass-musig-${name}`)), TPUB);
  const acct = root.derive("m/87'/1'/0'");
  const f = root.fingerprint;
  const fp = toHex(Uint8Array.from([(f >>> 24) & 0xff, (f >>> 16) & 0xff, (f >>> 8) & 0xff, f & 0xff]));
  return { pub: `[${fp}/87h/1h/0h]${acct.publicExtendedKey}`, prv: `[${fp}/87h/1h/0h]${acct.privateExtendedKey}` };
}
const KEYS: Record<Who, { pub: string; prv: string }> = { A: account('A'), B: account('B'), C: account('C'), D: account('D') };

interface Shape {
  name: string;
  /** The descriptor with A, B, C, D for the keys (no checksum). */
  template: string;
  /** The participants that sign (each has a key wallet). */
  signers: Who[];
}

const SHAPES: Shape[] = [
  { name: '2-of-2 key path, musig(xpubs)/0/*', template: 'tr(musig(A,B)/0/*)', signers: ['A', 'B'] },
  { name: '3-of-3 key path, ranged participants', template: 'tr(musig(A/0/*,B/0/*,C/0/*))', signers: ['A', 'B', 'C'] },
  { name: '2-of-2 key path with a script tree', template: 'tr(musig(A,B)/1/*,pk(D/0/*))', signers: ['A', 'B'] },
  { name: 'musig leaf in a script tree', template: 'tr(D/1/*,{pk(musig(A,B)/2/*),pk(C/2/*)})', signers: ['A', 'B'] },
  { name: 'musig leaf, ranged participants', template: 'tr(D/3/*,pk(musig(A/3/*,B/3/*,C/3/*)))', signers: ['A', 'B', 'C'] },
];

const fill = (t: string, key: (k: Who) => string): string => t.replace(/(?<=[(,{])([ABCD])(?=[/),}])/g, (_, k: Who) => key(k));
const withSum = (d: string): string => `${d}#${descriptorChecksum(d)}`;
const watchDescriptor = (s: Shape): string => withSum(fill(s.template, (k) => KEYS[k].pub));
const signerDescriptor = (s: Shape, who: Who): string => withSum(fill(s.template, (k) => (k === who ? KEYS[k].prv : KEYS[k].pub)));

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

async function process(rpc: TestRpc, psbt: string, wallet: string, sign = true): Promise<string> {
  return (await rpc.call<{ psbt: string }>('walletprocesspsbt', [psbt, sign, 'DEFAULT', true, false], wallet)).psbt;
}

async function main(): Promise<void> {
  await recordOnCore('musig', 'MuSig2 finalizations', async ({ rpc, version, minerAddr }) => {
    for (const who of ['A', 'B', 'C'] as Who[]) {
      await rpc.call('createwallet', { wallet_name: `musig-${who}`, blank: true });
      const req = SHAPES.filter((s) => s.signers.includes(who)).map((s) => ({ desc: signerDescriptor(s, who), range: [0, 5], timestamp: 'now' }));
      const imp = await rpc.call<{ success: boolean }[]>('importdescriptors', [req], `musig-${who}`);
      imp.forEach((r, i) => {
        if (!r.success) throw new Error(`signer ${who}, descriptor ${i}: import failed ${JSON.stringify(r)}`);
      });
    }
    const lines: string[] = [];
    for (const [si, s] of SHAPES.entries()) {
      const desc = watchDescriptor(s);
      const wallet = `watch${si}`;
      await rpc.call('createwallet', { wallet_name: wallet, disable_private_keys: true, blank: true });
      const imp = await rpc.call<{ success: boolean }[]>('importdescriptors', [[{ desc, range: [0, 5], timestamp: 'now' }]], wallet);
      if (!imp[0]!.success) throw new Error(`${s.name}: import failed ${JSON.stringify(imp[0])}`);
      const index = 2; // a derived child, not the first
      const addr = (await rpc.call<string[]>('deriveaddresses', [desc, [index, index]]))[0]!;
      const { txid, vout } = await payOneCoin(rpc, addr);
      const created = await rpc.call<string>('createpsbt', [[{ txid, vout }], [{ [minerAddr]: 0.9999 }], 0, true]);
      const filled = await process(rpc, created, wallet, false);
      let nonces = filled;
      for (const w of s.signers) nonces = await process(rpc, nonces, `musig-${w}`);
      // each signer makes its partial signature on the nonces PSBT alone; combinepsbt joins them
      const each: string[] = [];
      for (const w of s.signers) each.push(await process(rpc, nonces, `musig-${w}`));
      const partials = await rpc.call<string>('combinepsbt', [each]);
      // both rounds again in turn (fresh nonces: each secret nonce signs once): the last signer's
      // walletprocesspsbt already aggregates
      let aggregated = filled;
      for (const w of [...s.signers, ...s.signers]) aggregated = await process(rpc, aggregated, `musig-${w}`);
      const last = s.signers.length - 1;
      const variants: { note: string; psbt: string; complete: boolean }[] = [
        { note: 'all partial signatures', psbt: partials, complete: true },
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
