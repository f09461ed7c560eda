/**
 * The finalizer on miniscript hash challenges against Core: test/fixtures/miniscript/
 * finalize-hash-core-*.jsonl (scripts/record-miniscript-preimages.ts: policies with sha256(),
 * hash256(), ripemd160() and hash160() fragments — P2WSH and a tapscript leaf — whose PSBTs carry
 * the preimage field, none, a wrong preimage under the hash, or a 33-byte one; signed by Core key
 * wallets; Core's finalizepsbt and analyzepsbt on them). Our finalize must give Core's answer byte
 * for byte (finalized PSBT, complete flag, extracted transaction — which Core's mempool took), and
 * say why an input is left unfinalized: the preimage missing, or the one given not hashing to the
 * challenge / not 32 bytes. analyzepsbt must answer as Core. The devnet serves both recordings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analysisJson, analyzePsbtBase64 } from '../../shared/bitcoin/psbt';
import { devnetFinalizesAsCore, finalizesAsCore } from '../support/devnet-finalize';

interface HashFinalizeCase {
  core: string;
  policy: string;
  note: string;
  preimage: 'right' | 'none' | 'wrong' | 'long';
  signed: string;
  finalized: { psbt: string; complete: boolean };
  extracted: { hex?: string; psbt?: string; complete: boolean };
  analyzed: unknown;
  mempool: { allowed: boolean } | null;
}

const dir = join(import.meta.dirname, '..', 'fixtures', 'miniscript');
const files = readdirSync(dir).filter((f) => /^finalize-hash-core-.*\.jsonl$/.test(f));

describe('hash preimage finalize recordings', () => {
  it('has them from both Core generations', () => {
    expect(files.sort()).toEqual(['finalize-hash-core-30.99.jsonl', 'finalize-hash-core-31.99.jsonl']);
  });
});

for (const file of files) {
  const cases = readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as HashFinalizeCase);
  const coreVersion = cases[0]!.core.startsWith('30.') ? 30 : 31.99;

  describe(`hash challenges finalized as Core ${cases[0]!.core}`, () => {
    it('covers every hash fragment, complete and incomplete, every kind of preimage field', () => {
      const text = cases.map((c) => c.policy).join(' ');
      for (const fn of ['sha256', 'hash256', 'ripemd160', 'hash160']) expect(text).toContain(fn);
      expect(new Set(cases.map((c) => c.preimage))).toEqual(new Set(['right', 'none', 'wrong', 'long']));
      expect(cases.filter((c) => c.finalized.complete).length).toBeGreaterThanOrEqual(8);
      expect(cases.filter((c) => !c.finalized.complete).length).toBeGreaterThanOrEqual(7);
      // what Core finalized, its mempool took
      for (const c of cases.filter((x) => x.finalized.complete)) expect(c.mempool, c.note).toMatchObject({ allowed: true });
    });

    for (const c of cases) {
      it(`${c.policy} — ${c.note}: finalizepsbt's PSBT, complete flag and transaction, and why not`, () => {
        const incomplete = finalizesAsCore(c, coreVersion);
        if (c.finalized.complete) return;
        expect(incomplete).toHaveLength(1);
        const reason = incomplete[0]!.reason;
        if (c.preimage === 'none') expect(reason).toMatch(/no preimage of (sha256|hash256|ripemd160|hash160)\([0-9a-f]{40,64}\)/);
        if (c.preimage === 'wrong') expect(reason).toMatch(/the preimage given for (sha256|hash160)\([0-9a-f]{40,64}\) does not hash to it/);
        if (c.preimage === 'long') expect(reason).toMatch(/the preimage given for sha256\([0-9a-f]{64}\) is 33 bytes \(miniscript takes 32\)/);
      });

      it(`${c.policy} — ${c.note}: analyzepsbt as Core`, () => {
        const r = analyzePsbtBase64(c.signed, { coreVersion });
        if (!r.ok) throw new Error(r.error);
        expect(JSON.parse(analysisJson(r.analysis))).toEqual(c.analyzed);
      });
    }
  });

  devnetFinalizesAsCore(`the devnet as Core ${cases[0]!.core} finalizes hash challenges the same`, coreVersion, cases, { analyze: true });
}
