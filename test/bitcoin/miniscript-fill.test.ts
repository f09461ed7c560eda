/**
 * The updater on the policies of issue #32 against Core: test/fixtures/miniscript/fill-core-*.jsonl
 * (scripts/record-miniscript-fill.ts: a watch-only Core wallet holding the policy, one coin of it,
 * walletprocesspsbt without signing) — our fill must give Core's PSBT byte for byte: witness
 * scripts and every key's BIP32 derivation for wsh() miniscript, tap scripts, leaf hashes and tap
 * BIP32 derivations for tr() trees.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillPsbtBase64 } from '../../shared/bitcoin/psbt';
import { REGTEST } from '../../shared/bitcoin/networks';

interface FillCase {
  core: string;
  note: string;
  descriptors: { desc: string; range: [number, number] }[];
  psbt: string;
  prevtxs: Record<string, string>;
  result: { psbt: string; complete: boolean };
}

const dir = join(import.meta.dirname, '..', 'fixtures', 'miniscript');
const files = readdirSync(dir).filter((f) => /^fill-core-.*\.jsonl$/.test(f));

describe('miniscript fill recordings', () => {
  it('has fills recorded by both Core generations', () => {
    expect(files).toEqual(expect.arrayContaining(['fill-core-30.99.jsonl', 'fill-core-31.99.jsonl']));
  });
});

for (const file of files) {
  const cases = readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as FillCase);
  const coreVersion = cases[0]!.core.startsWith('30.') ? 30 : 31.99;
  describe(`fill as Core ${cases[0]!.core}`, () => {
    for (const c of cases) {
      it(`${c.note}: walletprocesspsbt's PSBT byte for byte`, () => {
        // Core added something: the test is about the fill, not an unchanged PSBT
        expect(c.result.psbt).not.toBe(c.psbt);
        const ours = fillPsbtBase64({ psbt: c.psbt, descriptors: c.descriptors, prevtxs: c.prevtxs, network: REGTEST, coreVersion });
        expect(ours).toEqual({ ok: true, psbt: c.result.psbt, complete: c.result.complete });
      });
    }
  });
}
