/**
 * The review reads version 2 exactly as version 0 (issue 14, part 2): the two forms of one PSBT —
 * as Core wrote them (the spend file's fill vectors and cosigner PSBTs), and every valid recorded
 * PSBT next to its conversion — give the same review (summary, inputs, outputs, warnings, "ours"
 * detection) except the version the summary states.
 */
import { describe, expect, it } from 'vitest';
import { coreFileGroup, coreFileLines, fillVectors, isFillVector, type CoreFile } from '../fixtures';
import { REGTEST } from '../../shared/bitcoin/networks';
import { convertPsbtBase64, decodeBase64Core, parsePsbtForReview, reviewPsbt, type PsbtReview, type ReviewContext } from '../../shared/bitcoin/psbt';

function review(base64: string, ctx: ReviewContext): PsbtReview {
  const p = parsePsbtForReview(decodeBase64Core(base64)!);
  if (!p.ok) throw new Error(p.message);
  return reviewPsbt(p.psbt, ctx);
}

/** The review as comparable JSON, without the stated version. */
function comparable(r: PsbtReview): unknown {
  const { version: _v, ...summary } = r.summary;
  return JSON.parse(JSON.stringify({ ...r, summary }, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)));
}

/** The addresses the PSBT's inputs spend from and its outputs pay (as a review with an empty wallet sees them). */
function addressesOf(base64: string): { inputs: string[]; outputs: string[] } {
  const r = review(base64, { network: REGTEST, watched: new Set() });
  const present = (a: string | null): a is string => a !== null;
  return { inputs: r.inputs.map((i) => i.address).filter(present), outputs: r.outputs.map((o) => o.address).filter(present) };
}

/** A wallet that watches half of the inputs' addresses and the last output's, which was used before. */
function walletFor(base64: string): ReviewContext {
  const { inputs, outputs } = addressesOf(base64);
  const watched = new Set([...inputs.filter((_, i) => i % 2 === 0), ...outputs.slice(-1)]);
  return {
    network: REGTEST,
    watched,
    changeHints: new Map(outputs.slice(-1).map((a) => [a, { ischange: true }])),
    usedAddresses: new Set(outputs.slice(-1)),
    tipHeight: 100,
    medianTime: 1_700_000_000,
    thresholds: { feeRateSatVb: 20, feePercent: 0.01 },
  };
}

function expectSameReview(v2: string, v0: string, what: string): void {
  const ctx = walletFor(v0);
  const a = review(v2, ctx);
  const b = review(v0, ctx);
  expect(a.summary.version, what).toBe(2);
  expect(b.summary.version, what).toBe(0);
  expect(comparable(a), what).toEqual(comparable(b));
}

describe('review parity: the forms Core wrote', () => {
  const vectors = fillVectors();
  const pairs = vectors
    .filter((f) => !f.name.endsWith(', psbt v0'))
    .map((f) => ({ name: f.name, v2: f, v0: vectors.find((g) => g.name === `${f.name}, psbt v0`)! }));

  it('has the six fill vectors in both versions', () => {
    expect(pairs.length).toBe(6);
  });

  for (const p of pairs) {
    it(`${p.name}: unsigned and filled, same review but the version`, () => {
      expectSameReview(p.v2.psbt, p.v0.psbt, `${p.name} (unsigned)`);
      expectSameReview(p.v2.expected, p.v0.expected, `${p.name} (filled)`);
      // Something to see: the filled PSBT's inputs are ours, with warnings.
      const r = review(p.v2.expected, walletFor(p.v0.expected));
      expect(r.inputs.some((i) => i.watched)).toBe(true);
      expect(r.warnings.length).toBeGreaterThan(0);
    });
  }

  it('the cosigners: one signature, then both, then finalized', () => {
    const spend = (group: string, name: string): string => {
      const rec = coreFileGroup('bitcoin-core-spend.jsonl', group).find((r) => r.name === name)!;
      const res = (rec.response.body as { result: unknown }).result;
      return typeof res === 'string' ? res : (res as { psbt: string }).psbt;
    };
    const cases: [string, string][] = [
      [spend('combinepsbt', 'two cosigners'), spend('combinepsbt', 'two cosigners, psbt v0')],
      [spend('finalizepsbt', 'combined, no extract'), spend('finalizepsbt', 'combined v0, no extract')],
      [spend('walletprocesspsbt', 'cosigner 1 signs the vault spend'), JSON.parse(coreFileGroup('bitcoin-core-spend.jsonl', 'combinepsbt').find((r) => r.name === 'two cosigners, psbt v0')!.request.body).params[0][0]],
    ];
    for (const [v2, v0] of cases) expectSameReview(v2, v0, v2.slice(0, 30));
    const done = review(cases[1]![0], walletFor(cases[1]![1]));
    expect(done.summary).toMatchObject({ finalized: true, signaturesComplete: true, vsizeExact: true });
  });
});

describe('review parity: every valid recorded PSBT and its conversion', () => {
  it('reviews alike in both versions (those version 0 can hold)', () => {
    const seen = new Set<string>();
    let compared = 0;
    for (const file of ['bitcoin-core-v30.jsonl', 'bitcoin-core-psbt-vectors.jsonl', 'bitcoin-core-spend.jsonl'] as CoreFile[]) {
      for (const line of coreFileLines(file)) {
        if (isFillVector(line) || line.group !== 'decodepsbt') continue;
        const p = (JSON.parse(line.request.body) as { params: unknown[] }).params[0];
        if (typeof p !== 'string' || seen.has(p) || (line.response.body as { error: unknown }).error) continue;
        seen.add(p);
        const version = (line.response.body as { result: { psbt_version: number } }).result.psbt_version;
        const other = convertPsbtBase64(p, version === 2 ? 0 : 2);
        if (!other.ok) continue; // conflicting required locktimes: no version 0 form
        const [v2, v0] = version === 2 ? [p, other.base64] : [other.base64, p];
        expectSameReview(v2, v0, `${file}: ${line.name}`);
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(100);
  });
});
