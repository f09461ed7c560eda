/**
 * The finalizer on MuSig2 spends against Core: test/fixtures/miniscript/musig-core-*.jsonl
 * (scripts/record-musig.ts: Core key wallets ran the MuSig2 rounds on musig() descriptors — key
 * path 2-of-2 and 3-of-3, with and without a script tree, musig() leaves, ranged participants and
 * ranged aggregates — and Core's finalizepsbt answered on all, missing, changed and non-scalar
 * partial signatures, SIGHASH_ALL rounds, and a participants field in another order). Our finalize must give Core's answer byte for byte (the finalized PSBT with
 * the aggregated signature in its witness, the complete flag, the network transaction Core's
 * testmempoolaccept took), and name what is missing when it cannot aggregate; analyzepsbt's answer
 * (next role, size estimate) must be Core's too. The devnet serves finalizepsbt and analyzepsbt with
 * the same shared code: it must answer every line as Core did.
 */
import { describe, expect, it } from 'vitest';
import { analysisJson, analyzePsbtBase64, encodeBase64, fillPsbtBase64, serializePsbt } from '../../shared/bitcoin/psbt';
import { REGTEST } from '../../shared/bitcoin/networks';
import type { PsbtInput } from '../../shared/bitcoin/psbt/types';
import { fromHex } from '../../shared/bitcoin/hex';
import { editablePsbt } from '../../shared/bitcoin/psbt/edit';
import { FlatProvider } from '../../shared/bitcoin/psbt/provider';
import { precompute, signPsbtInput } from '../../shared/bitcoin/psbt/sign-input';
import { devnetFinalizesAsCore, finalizesAsCore } from '../support/devnet-finalize';
import { readPsbt, recordings } from '../support/recordings';

interface MusigCase {
  core: string;
  descriptor: string;
  shape: string;
  note: string;
  signed: string;
  finalized: { psbt: string; complete: boolean };
  extracted: { hex?: string; psbt?: string; complete: boolean };
  mempool?: { allowed: boolean }[];
  analyzed: unknown;
}

const recorded = recordings<MusigCase>(/^musig-core-.*\.jsonl$/);
const files = recorded.map((r) => r.file);

/** The participant keys of the recorded PSBT's MuSig2 field (input 0), in the field's order. */
function participants(b64: string): string[] {
  return [...readPsbt(b64).inputs[0]!.musigParticipants.values()][0]!.parts;
}

describe('MuSig2 finalize recordings', () => {
  it('has finalizations recorded by both Core generations', () => {
    expect(files).toEqual(expect.arrayContaining(['musig-core-30.99.jsonl', 'musig-core-31.99.jsonl']));
  });
});

for (const { cases } of recorded) {
  const coreVersion = cases[0]!.core.startsWith('30.') ? 30 : 31.99;

  describe(`MuSig2 finalize as Core ${cases[0]!.core}`, () => {
    it('covers key path and leaves, complete and incomplete, and Core took every complete transaction', () => {
      expect(new Set(cases.map((c) => c.shape)).size).toBe(5);
      const complete = cases.filter((c) => c.finalized.complete);
      expect(complete.length).toBe(15);
      expect(cases.length - complete.length).toBe(40);
      for (const c of complete) expect(c.mempool?.[0]?.allowed, `${c.shape} — ${c.note}`).toBe(true);
    });

    for (const c of cases) {
      it(`${c.shape} — ${c.note}: finalizepsbt's PSBT, complete flag and transaction`, () => {
        const parts = participants(c.signed);
        const last = parts[parts.length - 1]!;
        // Strict mode refuses a partial signature that does not verify, on its own (musig2-verify.ts)
        const bad = /changed/.test(c.note) ? parts[0] : /not a scalar/.test(c.note) ? last : null;
        const incomplete = finalizesAsCore(c, coreVersion, (refused) => {
          if (!bad) return expect(refused).toEqual([]);
          expect(refused).toEqual([expect.objectContaining({ input: 0, kind: 'musig2-partial', pubkey: bad, status: 'invalid', reason: /not a scalar/.test(c.note) ? 'the MuSig2 partial signature is not a scalar below the curve order' : 'the MuSig2 partial signature does not verify' })]);
        });
        if (c.finalized.complete) return;
        expect(incomplete).toHaveLength(1);
        const reason = incomplete[0]!.reason;
        // the reason names the participant whose contribution is missing or bad
        if (/partial signature missing/.test(c.note)) expect(reason).toContain(`no partial signature yet by participant ${last}`);
        else if (/public nonce missing/.test(c.note)) expect(reason).toContain(`no public nonce yet by participant ${parts[0]}`);
        else if (/changed/.test(c.note)) expect(reason).toContain(`the partial signature of participant ${parts[0]} does not verify`);
        else if (/reverse order/.test(c.note)) expect(reason).toMatch(/the participant keys do not aggregate to 0[23][0-9a-f]{64}/);
        else if (/not a scalar/.test(c.note)) expect(reason).toContain(`the partial signature of participant ${last} is not below the curve order`);
        else if (/one signer's answer/.test(c.note)) expect(reason).toMatch(/no partial signature yet by participants? [0-9a-f]{66}/);
        else if (/nonces only/.test(c.note)) expect(reason).toContain(`no partial signature yet by participants ${parts.join(', ')}`);
        else expect(reason).toContain(`no public nonce or partial signature yet (participants ${parts.join(', ')})`);
      });

      if (c.note === 'filled, no MuSig2 round yet') {
        it(`${c.shape}: the participants' key origins go in as Core's signer puts them (SignMuSig2)`, () => {
          // Core's watch-only wallet filled this PSBT; its provider knows each participant's origin
          const p = editablePsbt(readPsbt(c.signed));
          const input = p.inputs[0]!;
          const provider = new FlatProvider();
          const parts = participants(c.signed);
          for (const part of parts) {
            const x = part.slice(2);
            provider.addKey(fromHex(part), input.tapBip32.get(x)!.origin);
            input.tapBip32.delete(x);
          }
          expect(encodeBase64(serializePsbt(p))).not.toBe(c.signed);
          expect(signPsbtInput(provider, p, 0, precompute(p)!, { finalize: false })).toBe('INCOMPLETE');
          expect(encodeBase64(serializePsbt(p))).toBe(c.signed);
        });

        it(`${c.shape}: our fill from the descriptor is Core's watch-only walletprocesspsbt`, () => {
          // the PSBT as createpsbt made it, plus the spent output (the funding transaction is not recorded)
          const created = editablePsbt(readPsbt(c.signed));
          created.inputs = created.inputs.map((input) => {
            const empty = Object.fromEntries(Object.entries(input).filter(([, v]) => v instanceof Map).map(([k]) => [k, new Map()]));
            const { prevHash, prevTxid, vout, sequence, hasSequence, witnessUtxo } = input;
            return { ...(empty as unknown as PsbtInput), prevHash, prevTxid, vout, sequence, hasSequence, witnessUtxo };
          });
          expect(encodeBase64(serializePsbt(created))).not.toBe(c.signed);
          const f = fillPsbtBase64({ psbt: encodeBase64(serializePsbt(created)), descriptors: [{ desc: c.descriptor, range: [0, 5] }], prevtxs: [], network: REGTEST, coreVersion });
          expect(f).toMatchObject({ ok: true, psbt: c.signed });
        });
      }

      it(`${c.shape} — ${c.note}: analyzepsbt as Core`, () => {
        const r = analyzePsbtBase64(c.signed, { coreVersion });
        if (!r.ok) throw new Error(r.error);
        expect(JSON.parse(analysisJson(r.analysis))).toEqual(c.analyzed);
      });
    }
  });

  devnetFinalizesAsCore(`the devnet as Core ${cases[0]!.core} serves the same MuSig2 finalizepsbt and analyzepsbt`, coreVersion, cases, { analyze: true });
}
