/**
 * The finalizer on miniscript and taproot script-path spends against Core:
 * test/fixtures/miniscript/finalize-core-*.jsonl (scripts/record-miniscript-finalize.ts: for every
 * path of the policies of issue #32, a PSBT Core key wallets signed, and Core's finalizepsbt on it).
 * Our finalize must give Core's answer byte for byte — the finalized PSBT with its final witness,
 * the complete flag, the extracted network transaction — and say why when a path is incomplete.
 * analyzepsbt's answer on the signed PSBT (its size estimate runs the satisfier with dummy
 * signatures) must be Core's too. A signature changed by one bit must keep the input unfinalized. The devnet serves finalizepsbt
 * with the same shared code: it must answer every line as Core did.
 */
import { describe, expect, it } from 'vitest';
import { analysisJson, analyzePsbtBase64, encodeBase64, finalizePsbtBase64, serializePsbt } from '../../shared/bitcoin/psbt';
import { devnetFinalizesAsCore, finalizesAsCore } from '../support/devnet-finalize';
import { readPsbt as read, recordings } from '../support/recordings';

interface FinalizeCase {
  core: string;
  policy: string;
  note: string;
  signers: string[];
  signed: string;
  finalized: { psbt: string; complete: boolean };
  extracted: { hex?: string; psbt?: string; complete: boolean };
  analyzed: unknown;
}

const recorded = recordings<FinalizeCase>(/^finalize-core-.*\.jsonl$/);
const files = recorded.map((r) => r.file);
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** The PSBT with the first signature Core's final witness uses changed in one bit, or null. */
function mutateUsedSignature(signed: string, finalized: string): string | null {
  const p = read(signed);
  const witness = read(finalized).inputs[0]!.finalScriptWitness ?? [];
  const used = (sig: Uint8Array): boolean => witness.some((w) => same(w, sig));
  const flip = (sig: Uint8Array): Uint8Array => {
    const s = sig.slice();
    s[10]! ^= 0x01; // inside r (DER) or R (Schnorr): the encoding stays valid
    return s;
  };
  const inp = p.inputs[0]!;
  if (inp.tapKeySig && used(inp.tapKeySig)) inp.tapKeySig = flip(inp.tapKeySig);
  else {
    const e = [...inp.partialSigs.entries()].find(([, v]) => used(v.sig));
    const t = [...inp.tapScriptSigs.entries()].find(([, v]) => used(v.sig));
    if (e) inp.partialSigs = new Map(inp.partialSigs).set(e[0], { ...e[1], sig: flip(e[1].sig) });
    else if (t) inp.tapScriptSigs = new Map(inp.tapScriptSigs).set(t[0], { ...t[1], sig: flip(t[1].sig) });
    else return null;
  }
  return encodeBase64(serializePsbt(p));
}

describe('miniscript finalize recordings', () => {
  it('has finalizations recorded by both Core generations', () => {
    expect(files).toEqual(expect.arrayContaining(['finalize-core-30.99.jsonl', 'finalize-core-31.99.jsonl']));
  });
});

for (const { cases } of recorded) {
  const coreVersion = cases[0]!.core.startsWith('30.') ? 30 : 31.99;

  describe(`finalize as Core ${cases[0]!.core}`, () => {
    it('covers complete and incomplete paths of every policy', () => {
      expect(new Set(cases.map((c) => c.policy)).size).toBeGreaterThanOrEqual(11);
      expect(cases.filter((c) => c.finalized.complete).length).toBeGreaterThanOrEqual(25);
      expect(cases.filter((c) => !c.finalized.complete).length).toBeGreaterThanOrEqual(8);
    });

    for (const c of cases) {
      it(`${c.policy} — ${c.note}: finalizepsbt's PSBT, complete flag and transaction`, () => {
        const incomplete = finalizesAsCore(c, coreVersion);
        if (!c.finalized.complete) {
          // the reason names what is missing: the timelock the transaction does not meet, or signers
          expect(incomplete).toHaveLength(1);
          const reason = incomplete[0]!.reason;
          if (/relative timelock/.test(c.note)) expect(reason).toMatch(/nSequence does not meet the relative timelock older\(\d+\)/);
          else if (/nLockTime below/.test(c.note)) expect(reason).toMatch(/nLockTime does not meet the absolute timelock after\(\d+\)/);
          else expect(reason).toMatch(/no signature yet by keys? [0-9a-f]{64}/);
        }
      });

      it(`${c.policy} — ${c.note}: analyzepsbt (next role, missing keys, size estimate) as Core`, () => {
        const r = analyzePsbtBase64(c.signed, { coreVersion });
        if (!r.ok) throw new Error(r.error);
        expect(JSON.parse(analysisJson(r.analysis))).toEqual(c.analyzed);
      });

      if (c.finalized.complete) {
        it(`${c.policy} — ${c.note}: a signature changed in one bit is refused`, () => {
          const bad = mutateUsedSignature(c.signed, c.finalized.psbt);
          expect(bad).not.toBeNull();
          const strict = finalizePsbtBase64(bad!, { coreVersion });
          expect(strict).toMatchObject({ ok: true, result: { complete: false } });
          if (strict.ok) expect(strict.refused.map((x) => x.status)).toEqual(['invalid']);
          // as Core: the witness that uses it does not verify, so the input stays unfinalized
          const lax = finalizePsbtBase64(bad!, { coreVersion, strict: false });
          expect(lax).toMatchObject({ ok: true, result: { complete: false } });
          if (lax.ok && 'psbt' in lax.result) expect(read(lax.result.psbt).inputs[0]!.finalScriptWitness).toBeUndefined();
        });
      }
    }
  });

  devnetFinalizesAsCore(`the devnet as Core ${cases[0]!.core} serves the same finalizepsbt`, coreVersion, cases, { analyze: false });
}
