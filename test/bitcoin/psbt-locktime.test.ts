/**
 * BIP370's "Determining Lock Time" (shared/bitcoin/psbt/locktime.ts) and the version 2 → 0
 * conversion built on it (convert.ts), one test per sentence of the BIP's rule:
 *
 *   "If none of the inputs have a PSBT_IN_REQUIRED_TIME_LOCKTIME and PSBT_IN_REQUIRED_HEIGHT_LOCKTIME,
 *    then PSBT_GLOBAL_FALLBACK_LOCKTIME must be used. If PSBT_GLOBAL_FALLBACK_LOCKTIME is not
 *    provided, then it is assumed to be 0."
 *   "If one or more inputs have a PSBT_IN_REQUIRED_TIME_LOCKTIME or PSBT_IN_REQUIRED_HEIGHT_LOCKTIME,
 *    then the field chosen is the one which is supported by all of the inputs. […] Inputs not
 *    specifying a lock time field can take both types of lock times, as can those that specify both.
 *    The lock time chosen is then the maximum value of the chosen type of lock time."
 *   "If a PSBT has both types of locktimes possible because one or more inputs specify both […],
 *    then locktime determined by looking at the PSBT_IN_REQUIRED_HEIGHT_LOCKTIME fields of the
 *    inputs must be chosen."
 *
 * Each PSBT is built as bytes, converted to version 0 as the app's export and `npm run psbt --
 * convert` do, and the version 0 PSBT's unsigned transaction must carry the locktime the BIP gives.
 */
import { describe, expect, it } from 'vitest';
import { b64, globalsV2, inputV2, kv, outputV2, psbtV2, u32 } from '../support/psbt-bytes';
import { computeLocktime, convertPsbtBase64, decodeBase64Core, determineLocktime, parsePsbt, type Psbt } from '../../shared/bitcoin/psbt';

const T1 = 600_000_000;
const T2 = 700_000_000;
const time = (t: number): string => kv('11', u32(t));
const height = (h: number): string => kv('12', u32(h));
const txid = (k: number): string => (k + 1).toString(16).padStart(2, '0').repeat(32);

/** A version 2 PSBT with one input per entry (each with the given locktime pairs) and the optional fallback. */
function v2(inputs: string[][], fallback?: number, extraGlobals: string[] = []): string {
  const g = globalsV2(inputs.length, 1, [...(fallback === undefined ? [] : [kv('03', u32(fallback))]), ...extraGlobals]);
  return b64(psbtV2(g, inputs.map((pairs, k) => inputV2(pairs, txid(k))), [outputV2()]));
}

function parse(base64: string): Psbt {
  const r = parsePsbt(decodeBase64Core(base64)!);
  if (!r.ok) throw new Error(r.message);
  return r.psbt;
}

/** Converted to version 0: the unsigned transaction's nLockTime and the notes. */
function toV0(base64: string): { locktime: number; notes: string[]; v0: Psbt } {
  const r = convertPsbtBase64(base64, 0);
  if (!r.ok) throw new Error(r.message);
  const v0 = parse(r.base64);
  expect(v0.version).toBe(0);
  return { locktime: v0.unsignedTx!.locktime, notes: r.notes, v0 };
}

describe('BIP370 Determining Lock Time → the version 0 transaction’s nLockTime', () => {
  it('no input requires a locktime: the fallback locktime; without one, 0 — and no note', () => {
    const withFallback = v2([[], []], 812_345);
    expect(determineLocktime(parse(withFallback).inputs, 812_345)).toEqual({ ok: true, locktime: 812_345, rule: 'fallback', fallback: true });
    expect(toV0(withFallback)).toMatchObject({ locktime: 812_345, notes: [] });
    const none = v2([[]]);
    expect(determineLocktime(parse(none).inputs, undefined)).toEqual({ ok: true, locktime: 0, rule: 'fallback', fallback: false });
    expect(toV0(none)).toMatchObject({ locktime: 0, notes: [] });
  });

  it('heights only: the height kind, the maximum height (inputs without a requirement take any kind; the fallback is not used)', () => {
    const p = v2([[height(100)], [], [height(300)], [height(250)]], 7);
    const d = determineLocktime(parse(p).inputs, 7);
    expect(d).toEqual({ ok: true, locktime: 300, rule: 'height', inputs: [0, 2, 3], decidedBy: 2 });
    const { locktime, notes, v0 } = toV0(p);
    expect(locktime).toBe(300);
    expect(notes).toEqual([
      "The inputs' required locktimes became the transaction's nLockTime 300: inputs #0, #2, #3 require a block height locktime: the largest, 300 (input #2), per BIP370. Version 0 has no per-input locktime fields, so they are not kept.",
    ]);
    // Version 0 carries no per-input locktime fields.
    expect(v0.inputs.every((i) => i.timeLocktime === undefined && i.heightLocktime === undefined)).toBe(true);
  });

  it('times only: the time kind, the maximum time', () => {
    const p = v2([[time(T2)], [time(T1)]], 0);
    expect(determineLocktime(parse(p).inputs, 0)).toMatchObject({ ok: true, locktime: T2, rule: 'time', inputs: [0, 1], decidedBy: 0 });
    const { locktime, notes } = toV0(p);
    expect(locktime).toBe(T2);
    expect(notes[0]).toContain(`require a time locktime: the largest, ${T2} (input #0)`);
  });

  it('both kinds allowed by every input that specifies one: the height is chosen, its maximum', () => {
    const p = v2([[time(T2), height(120)], [time(T1), height(480)], []]);
    expect(determineLocktime(parse(p).inputs, undefined)).toMatchObject({ ok: true, locktime: 480, rule: 'height', decidedBy: 1 });
    expect(toV0(p).locktime).toBe(480);
  });

  it('the kind supported by all: an input requiring only one kind decides it, and the maximum of that kind over every input is taken', () => {
    // Input #1 requires only a height: heights are supported by all; #0's height (900) is the maximum.
    const heights = v2([[time(T2), height(900)], [height(200)]]);
    expect(toV0(heights).locktime).toBe(900);
    // Input #1 requires only a time: times are supported by all; #0's time is larger than #1's.
    const times = v2([[time(T2), height(900)], [time(T1)]]);
    expect(determineLocktime(parse(times).inputs, undefined)).toMatchObject({ ok: true, rule: 'time', locktime: T2, inputs: [0, 1] });
    expect(toV0(times).locktime).toBe(T2);
  });

  it('no kind supported by all the inputs with requirements (one only a time, another only a height): refused, saying why', () => {
    const p = v2([[time(T1)], [], [height(100)], [time(T2), height(5)]]);
    expect(determineLocktime(parse(p).inputs, undefined)).toEqual({ ok: false, timeOnly: [0], heightOnly: [2] });
    expect(convertPsbtBase64(p, 0)).toEqual({
      ok: false,
      message:
        'Cannot convert to PSBT version 0: input #0 requires a time-based locktime only (PSBT_IN_REQUIRED_TIME_LOCKTIME) and input #2 a height-based one only (PSBT_IN_REQUIRED_HEIGHT_LOCKTIME); a transaction\'s nLockTime is either a time or a height, so no locktime satisfies every input (BIP370, Determining Lock Time)',
    });
    // It is still a version 2 PSBT: Core reads it, and converting to 2 keeps it.
    expect(convertPsbtBase64(p, 2)).toEqual({ ok: true, base64: p, notes: [] });
  });

  it('agrees with Core’s ComputeTimeLock (the model’s locktime) on every case above', () => {
    const cases = [
      v2([[], []], 812_345),
      v2([[]]),
      v2([[height(100)], [], [height(300)]], 7),
      v2([[time(T2)], [time(T1)]]),
      v2([[time(T2), height(120)], [time(T1), height(480)]]),
      v2([[time(T2), height(900)], [time(T1)]]),
      v2([[time(T1)], [height(100)]]),
    ];
    for (const c of cases) {
      const p = parse(c);
      const d = determineLocktime(p.inputs, p.fallbackLocktime);
      expect(d.ok ? d.locktime : null).toBe(computeLocktime(p));
    }
  });

  it('the transaction-modifiable flags are dropped with a note; the transaction is the one version 2 describes', () => {
    const p = v2([[height(50)]], 3, [kv('06', '07')]);
    const r = toV0(p);
    expect(r.locktime).toBe(50);
    expect(r.v0.txModifiable).toBeUndefined();
    expect(r.notes[1]).toBe(
      "The transaction-modifiable flags (PSBT_GLOBAL_TX_MODIFIABLE: inputs modifiable, outputs modifiable, has SIGHASH_SINGLE) were dropped: a version 0 PSBT's transaction cannot be modified.",
    );
    // Back to version 2: the nLockTime becomes the fallback, the same transaction.
    const back = convertPsbtBase64(convertPsbtBase64(p, 0).ok ? (convertPsbtBase64(p, 0) as { base64: string }).base64 : '', 2);
    expect(back.ok && parse(back.base64).fallbackLocktime).toBe(50);
  });
});
