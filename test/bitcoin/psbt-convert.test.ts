/**
 * Writing PSBTs as Core writes them, and converting version 0 ↔ version 2 (shared/bitcoin/psbt:
 * serialize.ts, convert.ts), against bitcoin-core-spend.jsonl: every PSBT Core wrote there reads
 * and writes back to the same bytes; each PSBT recorded in both versions (the fill vectors, paired
 * by their unsigned transaction; createpsbt / converttopsbt / walletcreatefundedpsbt with
 * psbt_version 0 beside the default; the cosigners' combine and finalize) converts into the other
 * form byte for byte; round trips over every valid PSBT of the recordings; unknown and proprietary
 * fields survive; and what version 0 cannot hold is a clear error.
 */
import { describe, expect, it } from 'vitest';
import { coreFileGroup, coreFileLines, fillVectors, isFillVector, type CoreFile, type CoreRecording } from '../fixtures';
import { craftedSeeds } from '../fuzz/psbt-fuzz';
import { b64, globalsV2, inputV2, kv, outputV2, psbtV2, u32 } from '../support/psbt-bytes';
import { REGTEST } from '../../shared/bitcoin/networks';
import {
  convertPsbt,
  convertPsbtBase64,
  decodeBase64Core,
  decodePsbt,
  encodeBase64,
  parsePsbt,
  serializePsbt,
  unsignedTxOf,
  type Psbt,
} from '../../shared/bitcoin/psbt';
import { hexOf, serializeTx } from '../../shared/bitcoin/tx';

const SPEND: CoreFile = 'bitcoin-core-spend.jsonl';

function parse(base64: string): Psbt {
  const r = parsePsbt(decodeBase64Core(base64)!);
  if (!r.ok) throw new Error(r.message);
  return r.psbt;
}

const rewrite = (base64: string): string => encodeBase64(serializePsbt(parse(base64)));

function converted(base64: string, to: 0 | 2): string {
  const r = convertPsbtBase64(base64, to);
  if (!r.ok) throw new Error(r.message);
  return r.base64;
}

/** The unsigned transaction's serialization (Core's GetUnsignedTx), the same for a PSBT's v0 and v2 forms. */
const txKey = (base64: string): string => hexOf(serializeTx(unsignedTxOf(parse(base64))!, { witness: false }));

/** A recording's PSBT result (a string, or the psbt field of an object). */
function resultPsbt(rec: CoreRecording): string | undefined {
  const r = (rec.response.body as { result?: unknown } | null)?.result;
  const p = typeof r === 'string' ? r : r && typeof r === 'object' ? (r as { psbt?: unknown }).psbt : undefined;
  return typeof p === 'string' && p.startsWith('cHNidP8') ? p : undefined;
}

function paramPsbts(rec: CoreRecording): string[] {
  let params: unknown;
  try {
    params = (JSON.parse(rec.request.body) as { params?: unknown }).params;
  } catch {
    return []; // the http group's malformed bodies
  }
  return [params].flat(3).filter((p): p is string => typeof p === 'string' && p.startsWith('cHNidP8'));
}

function find(group: string, name: string): CoreRecording {
  const rec = coreFileGroup(SPEND, group).find((r) => r.name === name);
  if (!rec) throw new Error(`no ${group} recording "${name}"`);
  return rec;
}

describe('serializePsbt writes a PSBT as Core does', () => {
  it('every PSBT Core wrote in the spend file reads and writes back to the same bytes', () => {
    const written = new Set<string>();
    for (const line of coreFileLines(SPEND)) {
      if (isFillVector(line)) {
        written.add(line.psbt);
        written.add(line.expected);
      } else {
        const p = resultPsbt(line);
        if (p) written.add(p);
      }
    }
    expect(written.size).toBeGreaterThanOrEqual(40);
    for (const p of written) expect(rewrite(p)).toBe(p);
  });

  it('Core\'s own writes in the vectors file too (createpsbt, combinepsbt, finalizepsbt)', () => {
    const results = coreFileLines('bitcoin-core-psbt-vectors.jsonl').flatMap((l) => (!isFillVector(l) && l.group !== 'decodepsbt' ? [resultPsbt(l)] : []));
    const psbts = results.filter((p): p is string => p !== undefined);
    expect(psbts.length).toBeGreaterThanOrEqual(2);
    for (const p of psbts) expect(rewrite(p)).toBe(p);
  });

  it('what Core leaves out: the version key of a version 0 PSBT, the signing data of a finalized input', () => {
    const v0WithVersion = craftedSeeds()[1]!; // carries PSBT_GLOBAL_VERSION 0
    const out = serializePsbt(parse(Buffer.from(v0WithVersion).toString('base64')));
    expect(hexOf(out)).not.toContain('01fb0400000000');
    expect(out.length).toBe(v0WithVersion.length - 7);
    // A finalized input: the partial signatures are not written again (finalizepsbt's result has none).
    const finalized = resultPsbt(find('finalizepsbt', 'combined, no extract'))!;
    const combined = resultPsbt(find('combinepsbt', 'two cosigners'))!;
    expect(parse(combined).inputs[0]!.partialSigs.size).toBe(2);
    expect(parse(finalized).inputs[0]!.partialSigs.size).toBe(0);
  });
});

describe('convert: the version 0 and version 2 forms Core wrote of the same PSBT', () => {
  it('fill vectors: paired by their unsigned transaction, the unsigned and the filled PSBT convert into each other', () => {
    const vectors = fillVectors();
    const v2 = vectors.filter((f) => parse(f.psbt).version === 2);
    const v0 = vectors.filter((f) => parse(f.psbt).version === 0);
    expect({ v2: v2.length, v0: v0.length }).toEqual({ v2: 6, v0: 6 });
    for (const f of v2) {
      const twin = v0.filter((g) => txKey(g.psbt) === txKey(f.psbt));
      expect(twin.map((g) => g.name), f.name).toEqual([`${f.name}, psbt v0`]);
      const g = twin[0]!;
      expect(converted(f.psbt, 0), f.name).toBe(g.psbt);
      expect(converted(g.psbt, 2), f.name).toBe(f.psbt);
      expect(converted(f.expected, 0), f.name).toBe(g.expected);
      expect(converted(g.expected, 2), f.name).toBe(f.expected);
    }
  });

  const pairs: { what: string; v2: string; v0: string }[] = [
    ['createpsbt', 'one input per type, payment + change', 'createpsbt', 'one input per type, psbt_version 0'],
    ['createpsbt', 'tx version 3 (v2 psbt)', 'createpsbt', 'tx version 3, psbt_version 0'],
    ['converttopsbt', 'unsigned raw', 'converttopsbt', 'unsigned raw, psbt_version 0'],
    ['walletcreatefundedpsbt', 'coin control, add_inputs false, change address', 'walletcreatefundedpsbt', 'coin control, psbt_version 0'],
    ['combinepsbt', 'two cosigners', 'combinepsbt', 'two cosigners, psbt v0'],
    ['finalizepsbt', 'combined, no extract', 'finalizepsbt', 'combined v0, no extract'],
  ].map(([g2, n2, g0, n0]) => ({ what: `${g2} "${n2}"`, v2: resultPsbt(find(g2!, n2!))!, v0: resultPsbt(find(g0!, n0!))! }));
  // The cosigners' signed PSBTs: combinepsbt's inputs in either version.
  const cosigned = paramPsbts(find('combinepsbt', 'two cosigners'));
  const cosignedV0 = paramPsbts(find('combinepsbt', 'two cosigners, psbt v0'));
  cosigned.forEach((p, i) => pairs.push({ what: `combinepsbt "two cosigners" input ${i}`, v2: p, v0: cosignedV0[i]! }));

  for (const p of pairs) {
    it(`${p.what}: v2 → v0 and v0 → v2 byte for byte`, () => {
      expect(parse(p.v2).version).toBe(2);
      expect(parse(p.v0).version).toBe(0);
      expect(converted(p.v2, 0)).toBe(p.v0);
      expect(converted(p.v0, 2)).toBe(p.v2);
    });
  }

  it('the converted PSBT decodes to the same transaction, fields and fee', () => {
    for (const p of pairs) {
      const a = decodePsbt(converted(p.v0, 2), REGTEST);
      const b = decodePsbt(p.v2, REGTEST);
      expect(a.ok && b.ok && JSON.stringify(a.result) === JSON.stringify(b.result), p.what).toBe(true);
    }
  });
});

/** Every PSBT of the recordings that current Core reads (parameters and results, all groups). */
function allValidPsbts(): string[] {
  const out = new Set<string>();
  for (const file of ['bitcoin-core-spend.jsonl', 'bitcoin-core-psbt-vectors.jsonl', 'bitcoin-core-v30.jsonl'] as CoreFile[]) {
    for (const line of coreFileLines(file)) {
      const found = isFillVector(line) ? [line.psbt, line.expected] : [...paramPsbts(line), resultPsbt(line)];
      for (const p of found) {
        const bytes = p ? decodeBase64Core(p) : null;
        if (bytes && parsePsbt(bytes).ok) out.add(p!);
      }
    }
  }
  return [...out];
}

describe('convert: round trips and errors', () => {
  const valid = allValidPsbts();

  it('version 0 → 2 → 0 gives the PSBT back as Core writes it, for every valid version 0 PSBT of the recordings', () => {
    const v0 = valid.filter((p) => parse(p).version === 0);
    expect(v0.length).toBeGreaterThanOrEqual(60);
    for (const p of v0) expect(converted(converted(p, 2), 0), p.slice(0, 40)).toBe(rewrite(p));
  });

  it('version 2 → 0 → 2 gives it back whenever version 0 holds it all; required locktimes become the nLockTime Core computes; only conflicting ones refuse', () => {
    const v2 = valid.filter((p) => parse(p).version === 2);
    expect(v2.length).toBeGreaterThanOrEqual(45);
    let back = 0;
    let refused = 0;
    let noted = 0;
    for (const p of v2) {
      const m = parse(p);
      const r = convertPsbtBase64(p, 0);
      const locks = m.inputs.some((i) => i.timeLocktime !== undefined || i.heightLocktime !== undefined);
      const flags = (m.txModifiable ?? 0) !== 0;
      if (!r.ok) {
        refused++;
        // Core's ComputeTimeLock finds no locktime either.
        expect(m.locktime, r.message).toBeNull();
        expect(r.message).toMatch(/^Cannot convert to PSBT version 0: input .* requires a time-based locktime only .* so no locktime satisfies every input/);
        continue;
      }
      // The version 0 PSBT describes the transaction Core builds from the version 2 one.
      expect(txKey(r.base64)).toBe(txKey(p));
      expect(parse(r.base64).unsignedTx!.locktime).toBe(m.locktime);
      expect(r.notes.length > 0).toBe(locks || flags);
      if (locks || flags) {
        noted++;
        continue;
      }
      // Core writes the fallback locktime and every sequence explicitly; with them the trip is exact.
      const explicit = m.fallbackLocktime !== undefined && m.inputs.every((i) => i.hasSequence) && m.txModifiable === undefined;
      const trip = converted(r.base64, 2);
      if (explicit) {
        expect(trip).toBe(rewrite(p));
        back++;
      } else {
        const a = parse(trip);
        expect(a.locktime).toBe(m.locktime);
        expect(a.inputs.map((i) => i.sequence)).toEqual(m.inputs.map((i) => i.sequence));
      }
    }
    // Core's vectors with required locktimes (and modifiable flags) all have a version 0 form; conflicts: psbt-locktime.test.ts.
    expect(noted).toBeGreaterThanOrEqual(10);
    expect(refused).toBe(0);
    expect(back).toBeGreaterThanOrEqual(30);
  });

  it('unknown and proprietary fields of every map survive both ways', () => {
    const seed = Buffer.from(craftedSeeds()[1]!).toString('base64'); // proprietary and unknown keys in each map
    const before = decodePsbt(seed, REGTEST);
    const asV2 = converted(seed, 2);
    const after = decodePsbt(asV2, REGTEST);
    expect(before.ok && after.ok).toBe(true);
    if (!before.ok || !after.ok) return;
    const pick = (r: Record<string, unknown>): unknown => ({
      proprietary: r.proprietary,
      unknown: r.unknown,
      inputs: (r.inputs as Record<string, unknown>[]).map((i) => [i.proprietary, i.unknown]),
      outputs: (r.outputs as Record<string, unknown>[]).map((o) => [o.proprietary, o.unknown]),
    });
    expect(pick(after.result)).toEqual(pick(before.result));
    expect((before.result.unknown as Record<string, string>).f0aa).toBe('99');
    expect(converted(asV2, 0)).toBe(rewrite(seed));
  });

  it('a version 2 PSBT without a fallback locktime or sequences: the defaults Core uses (locktime 0, sequence final)', () => {
    const bare = b64(psbtV2(globalsV2(1, 1), [inputV2()], [outputV2()]));
    const v0 = parse(converted(bare, 0));
    expect(v0.unsignedTx).toMatchObject({ locktime: 0, version: 2 });
    expect(v0.unsignedTx!.vin[0]).toMatchObject({ sequence: 0xffffffff, vout: 0, prevTxid: '11'.repeat(32) });
    // Back to version 2 as Core writes it: with the fallback and the sequence.
    expect(parse(converted(converted(bare, 0), 2))).toMatchObject({ fallbackLocktime: 0, inputs: [{ hasSequence: true, sequence: 0xffffffff }] });
    // Flags that allow nothing (0) are what version 0 means: converted.
    expect(convertPsbtBase64(b64(psbtV2(globalsV2(1, 1, [kv('06', '00')]), [inputV2()], [outputV2()])), 0).ok).toBe(true);
  });

  it('errors: inputs requiring conflicting locktimes, a PSBT Core cannot read; required locktimes and modifiable flags convert with notes', () => {
    const conflict = b64(psbtV2(globalsV2(2, 1), [inputV2([kv('11', u32(600_000_000))]), inputV2([kv('12', u32(100))], '22'.repeat(32))], [outputV2()]));
    expect(convertPsbtBase64(conflict, 0)).toEqual({
      ok: false,
      message:
        "Cannot convert to PSBT version 0: input #0 requires a time-based locktime only (PSBT_IN_REQUIRED_TIME_LOCKTIME) and input #1 a height-based one only (PSBT_IN_REQUIRED_HEIGHT_LOCKTIME); a transaction's nLockTime is either a time or a height, so no locktime satisfies every input (BIP370, Determining Lock Time)",
    });
    // Still a valid version 2 PSBT: converting to 2 rewrites it.
    expect(convertPsbtBase64(conflict, 2)).toEqual({ ok: true, base64: conflict, notes: [] });
    const height = b64(psbtV2(globalsV2(1, 1, [kv('03', u32(7))]), [inputV2([kv('12', u32(800_000))])], [outputV2()]));
    const heightV0 = convertPsbtBase64(height, 0);
    expect(heightV0.ok && parse(heightV0.base64).unsignedTx!.locktime).toBe(800_000);
    expect(heightV0.ok && heightV0.notes).toEqual([
      "The inputs' required locktimes became the transaction's nLockTime 800000: input #0 requires a block height locktime: the largest, 800000 (input #0), per BIP370. Version 0 has no per-input locktime fields, so they are not kept.",
    ]);
    const flags = b64(psbtV2(globalsV2(1, 1, [kv('06', '03')]), [inputV2()], [outputV2()]));
    const flagsV0 = convertPsbtBase64(flags, 0);
    expect(flagsV0.ok && flagsV0.notes).toEqual([
      "The transaction-modifiable flags (PSBT_GLOBAL_TX_MODIFIABLE: inputs modifiable, outputs modifiable) were dropped: a version 0 PSBT's transaction cannot be modified.",
    ]);
    expect(convertPsbtBase64('cHNidP8', 2)).toEqual({ ok: false, message: 'TX decode failed invalid base64' });
    expect(convertPsbtBase64('cHNidP8=', 0)).toEqual({ ok: false, message: 'TX decode failed Separator is missing at the end of the global map: iostream error' });
    expect(convertPsbt(parse(flags), 1 as 0)).toEqual({ ok: false, message: 'The PSBT version can only be 2 or 0 (not 1)' });
  });

  it('a PSBT read with Core v30 rules is converted as current Core reads it (v2 fields in v0 are not kept as unknown)', () => {
    const v0WithV2Field = '70736274ff' + kv('00', '02000000' + '01' + '11'.repeat(32) + '00000000' + '00' + 'ffffffff' + '01' + '1027000000000000' + '00' + '00000000') + kv('03', u32(5)) + '00' + '00' + '00';
    expect(decodePsbt(b64(v0WithV2Field), REGTEST, { coreVersion: 30 }).ok).toBe(true);
    expect(convertPsbtBase64(b64(v0WithV2Field), 2)).toEqual({ ok: false, message: 'TX decode failed PSBT_GLOBAL_FALLBACK_LOCKTIME is not allowed in PSBTv0: iostream error' });
  });
});
