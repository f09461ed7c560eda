/**
 * MuSig2 partial signatures checked on their own (shared/bitcoin/psbt/musig2-verify.ts), on Core's
 * recordings (test/fixtures/miniscript/musig-core-*.jsonl): every partial signature Core's signers
 * made verifies; a changed one or one that is not a scalar is invalid and names its participant; a
 * missing nonce or a reordered participants field makes it unverifiable, not invalid. And where the
 * finalizer never looks at the partial signatures — the input already has its key path signature —
 * strict finalize still refuses the input with a bad one, and a combine drops it.
 */
import { describe, expect, it } from 'vitest';
import { combineJob } from '../../electron/main/send/jobs';
import { encodeBase64, finalizePsbt, serializePsbt, verifyPsbtSignatures, type SignatureCheck } from '../../shared/bitcoin/psbt';
import { N } from '../../shared/bitcoin/psbt/ecc';
import { editablePsbt } from '../../shared/bitcoin/psbt/edit';
import type { Psbt } from '../../shared/bitcoin/psbt/types';
import { hexOf } from '../../shared/bitcoin/tx';
import { readPsbt as read, recordings } from '../support/recordings';

interface MusigCase {
  core: string;
  shape: string;
  note: string;
  signed: string;
  finalized: { psbt: string; complete: boolean };
}

const musigChecks = (p: Psbt): SignatureCheck[] => verifyPsbtSignatures(p).checks.filter((c) => c.kind === 'musig2-partial');

// (musig-finalize.test.ts checks both generations' files are there)
for (const { cases } of recordings<MusigCase>(/^musig-core-.*\.jsonl$/)) {
  describe(`MuSig2 partial signatures of Core ${cases[0]!.core}'s rounds`, () => {
    for (const c of cases) {
      it(`${c.shape} — ${c.note}`, () => {
        const p = read(c.signed);
        const input = p.inputs[0]!;
        const parts = [...input.musigParticipants.values()][0]?.parts ?? [];
        const sigs = [...input.musigPartialSigs.values()];
        const checks = musigChecks(p);
        expect(checks.map((x) => x.pubkey).sort()).toEqual(sigs.map((s) => s.part).sort());
        const status = (part: string): string | undefined => checks.find((x) => x.pubkey === part)?.status;
        if (/changed/.test(c.note)) {
          expect(status(parts[0]!)).toBe('invalid');
          for (const other of parts.slice(1)) expect(status(other)).toBe('valid');
        } else if (/not a scalar/.test(c.note)) {
          expect(checks.find((x) => x.pubkey === parts.at(-1))).toMatchObject({ status: 'invalid', reason: 'the MuSig2 partial signature is not a scalar below the curve order' });
          for (const other of parts.slice(0, -1)) expect(status(other)).toBe('valid');
        } else if (/reverse order/.test(c.note)) {
          expect(checks.length).toBeGreaterThan(0);
          for (const x of checks) expect(x).toMatchObject({ status: 'unverifiable', reason: expect.stringMatching(/^the participant keys, in the participants field's order, do not aggregate to 0[23]/) });
        } else if (/public nonce missing/.test(c.note)) {
          expect(checks.length).toBeGreaterThan(0);
          for (const x of checks) expect(x).toMatchObject({ status: 'unverifiable', reason: `no public nonce yet by participant ${parts[0]}` });
        } else {
          for (const x of checks) expect(x.status, `${x.pubkey}: ${x.reason}`).toBe('valid');
          if (/^all partial signatures($|,)/.test(c.note)) expect(checks).toHaveLength(parts.length);
        }
      });
    }

    const all = cases.filter((x) => x.note === 'all partial signatures' && x.finalized.complete);
    for (const c of all) {
      it(`${c.shape}: a bad partial signature beside a finished signature is refused by strict finalize and dropped by a combine`, () => {
        const p = editablePsbt(read(c.signed)); // the parsed model shares its empty maps: edit a copy
        const input = p.inputs[0]!;
        // What the finished aggregate gave: the key path signature, or the leaf's script signature.
        const final = read(c.finalized.psbt).inputs[0]!.finalScriptWitness!;
        const keyPath = final.length === 1;
        if (keyPath) input.tapKeySig = final[0]!;
        else {
          // [signature, leaf script `<key> OP_CHECKSIG`, control block]
          const leaf = [...input.musigPartialSigs.values()][0]!.leaf;
          const key = hexOf(final[1]!.subarray(1, 33));
          input.tapScriptSigs.set(key + leaf, { pubkey: key, leaf, sig: final[0]! });
        }
        const loose = finalizePsbt(p, { strict: false });
        expect(loose.complete).toBe(true); // as Core: the finished signature is used, the partial ones never looked at
        const first = { ...[...input.musigPartialSigs.entries()][0]![1] };
        input.musigPartialSigs.set([...input.musigPartialSigs.keys()][0]!, first);
        first.value = ((BigInt('0x' + first.value) + 1n) % N).toString(16).padStart(64, '0');
        expect(finalizePsbt(p, { strict: false }).complete).toBe(true);
        const strict = finalizePsbt(p);
        expect(strict.complete).toBe(false);
        expect(strict.refused).toEqual([expect.objectContaining({ input: 0, kind: 'musig2-partial', pubkey: first.part, aggregate: first.agg, status: 'invalid' })]);

        // The draft before the partial signatures came back; a cosigner's answer brings them, one bad.
        const draft = editablePsbt(read(c.signed));
        draft.inputs[0]!.musigPartialSigs.clear();
        const { combined, dropped } = combineJob({ psbts: [encodeBase64(serializePsbt(draft)), encodeBase64(serializePsbt(p))] });
        expect(dropped).toEqual([expect.stringMatching(new RegExp(`^signed PSBT 1: input 0, MuSig2 participant ${first.part} for ${first.agg}.*: the MuSig2 partial signature does not verify$`))]);
        const kept = [...read(combined).inputs[0]!.musigPartialSigs.values()];
        expect(kept.map((s) => s.part).sort()).toEqual([...input.musigPartialSigs.values()].map((s) => s.part).filter((x) => x !== first.part).sort());
      });
    }
  });
}
