/**
 * CHECKMULTISIG without its trial checks (interp.ts multisigKnownToPass): when every signature
 * already has a "valid" verdict against a distinct key in order, and every signature and key is
 * well encoded, the finalizer's script evaluation answers "true" without trying signatures
 * against keys they are not for. Its answer must be Core's loop's answer in every case:
 *
 * - on real PSBTs (a 2-of-3 P2WSH spend, libsecp256k1 verdicts): after the PSBT's signatures are
 *   checked no signature is verified again, and the finalized bytes are those of a cold run;
 * - on every validity pattern of small m-of-n scripts, bare (legacy) and P2WSH, with keys Core's
 *   loop refuses (hybrid, or uncompressed in segwit) and empty signatures, against the loop alone.
 *   Its verdicts come from a table: that is the only way to reach a signature that verifies
 *   against two keys of the script it signs (a real one would need a hash collision, the script
 *   being part of what is signed), where the loop and the shortcut could part if it were wrong.
 */
import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { combinePsbts, finalizePsbt, parsePsbt, verifyPsbtSignatures, type Psbt } from '../../shared/bitcoin/psbt';
import { forgetSignatureVerdicts, TxChecker, type Checker } from '../../shared/bitcoin/psbt/checker';
import { verifyScript } from '../../shared/bitcoin/psbt/interp';
import { precompute } from '../../shared/bitcoin/psbt/sign-input';
import { bytesEqual, concatBytes } from '../../shared/bitcoin/psbt/edit';
import { pushAll } from '../../shared/bitcoin/psbt/produce';
import { hexOf } from '../../shared/bitcoin/tx';
import { multisigPsbts } from '../support/multisig-psbts';

function parse(b: Uint8Array): Psbt {
  const r = parsePsbt(b);
  if (!r.ok) throw new Error(r.message);
  return r.psbt;
}

/** A checker that counts the signature checks it makes (ecdsa) and passes every question on. */
function counting(c: Checker, known: boolean): Checker & { checks: number } {
  const out = {
    checks: 0,
    ecdsa: (sig: Uint8Array, pub: Uint8Array, code: Uint8Array, sv: 'base' | 'v0') => {
      out.checks++;
      return c.ecdsa(sig, pub, code, sv);
    },
    schnorr: c.schnorr.bind(c),
    checkLockTime: c.checkLockTime.bind(c),
    checkSequence: c.checkSequence.bind(c),
    ...(known && c.ecdsaKnownValid ? { ecdsaKnownValid: c.ecdsaKnownValid.bind(c) } : {}),
  };
  return out;
}

describe('real 2-of-3 P2WSH inputs (libsecp256k1)', () => {
  const N = 6;
  const [a, b] = multisigPsbts(N);
  const combined = (): Psbt => {
    const c = combinePsbts([parse(a), parse(b)]);
    if (!c.ok) throw new Error(c.error);
    return c.psbt;
  };

  it('after the signature check, the final scripts verify with no signature checked again; before it, by trying', () => {
    forgetSignatureVerdicts();
    const cold = finalizePsbt(combined(), { strict: false }); // no signature checked first
    expect(cold.complete).toBe(true);
    const p = combined();
    const pre = precompute(p)!;
    const run = (known: boolean): number[] => {
      const checks: number[] = [];
      for (let i = 0; i < N; i++) {
        const input = p.inputs[i]!;
        const c = counting(new TxChecker(pre.tx, i, input.witnessUtxo!.value, pre.data), known);
        expect(verifyScript(new Uint8Array(0), input.witnessUtxo!.script, cold.psbt.inputs[i]!.finalScriptWitness!, c)).toBeNull();
        checks.push(c.checks);
      }
      return checks;
    };
    forgetSignatureVerdicts();
    const tried = run(false);
    // Core's loop: each input's two signatures, and a try against the key between them when they skip it.
    for (const n of tried) expect(n === 2 || n === 3).toBe(true);
    expect(tried.some((n) => n === 3)).toBe(true);

    forgetSignatureVerdicts();
    expect(verifyPsbtSignatures(p).ok).toBe(true);
    expect(run(true)).toEqual(Array(N).fill(0));
    // Without the verdicts (a checker that knows none), the loop runs as before.
    forgetSignatureVerdicts();
    expect(run(true)).toEqual(tried);

    forgetSignatureVerdicts();
    const warm = finalizePsbt(combined()); // strict: the signatures are checked first
    expect(hexOf(warm.tx!)).toBe(hexOf(cold.tx!));
  });

  it('a bad signature still fails the script with the verdicts of the good ones known', () => {
    const [a1, b1] = multisigPsbts(2, { corruptInput: 1 });
    const c = combinePsbts([parse(a1), parse(b1)]);
    if (!c.ok) throw new Error(c.error);
    forgetSignatureVerdicts();
    expect(verifyPsbtSignatures(c.psbt).problems.map((x) => x.input)).toEqual([1]);
    const f = finalizePsbt(c.psbt, { strict: false });
    expect(f.complete).toBe(false);
    expect(f.incomplete.map((x) => x.input)).toEqual([1]);
    expect(f.psbt.inputs[0]!.finalScriptWitness?.length).toBe(4);
  });
});

// ---------------------------------------------------------------------------------------------
// Every validity pattern, against Core's loop
// ---------------------------------------------------------------------------------------------

const priv = (i: number): Uint8Array => sha256(Uint8Array.of(0x4d, i));
const GOOD_KEYS = [0, 1, 2, 3].map((i) => secp256k1.getPublicKey(priv(i), true));
/** Keys CHECKMULTISIG refuses when it visits them: hybrid (STRICTENC) for bare scripts, uncompressed for segwit v0. */
const BAD_KEYS = {
  v0: [0, 1, 2, 3].map((i) => secp256k1.getPublicKey(priv(i), false)),
  base: [0, 1, 2, 3].map((i) => {
    const h = secp256k1.getPublicKey(priv(i), false);
    h[0] = 6 + (h[64]! & 1);
    return h;
  }),
};
/** Strictly DER-encoded, low-S signatures with SIGHASH_ALL (what they sign does not matter to a table). */
const SIGS = [0, 1, 2, 3].map((i) => {
  const compact = secp256k1.sign(sha256(Uint8Array.of(0x53, i)), priv(i), { prehash: false, format: 'compact' });
  return concatBytes(secp256k1.Signature.fromBytes(compact, 'compact').toBytes('der'), Uint8Array.of(1));
});

/** Verdicts from a table: sig i is valid against key j when valid[i][j]; known[i][j] said so already. */
function tableChecker(sigs: Uint8Array[], keys: Uint8Array[], valid: boolean[][], known: boolean[][] | null): Checker & { checks: number } {
  const at = (sig: Uint8Array, key: Uint8Array): [number, number] => [sigs.findIndex((s) => bytesEqual(s, sig)), keys.findIndex((k) => bytesEqual(k, key))];
  const out: Checker & { checks: number } = {
    checks: 0,
    ecdsa: (sig, key) => {
      out.checks++;
      const [i, j] = at(sig, key);
      return i >= 0 && j >= 0 && valid[i]![j]! ? null : 'the signature does not verify';
    },
    schnorr: () => 'no',
    checkLockTime: () => false,
    checkSequence: () => false,
  };
  if (known)
    out.ecdsaKnownValid = (sig, key) => {
      const [i, j] = at(sig, key);
      return i >= 0 && j >= 0 && known[i]![j]! && valid[i]![j]!;
    };
  return out;
}

function multisigScript(m: number, keys: Uint8Array[]): Uint8Array {
  return concatBytes(Uint8Array.of(0x50 + m), ...keys.map((k) => concatBytes(Uint8Array.of(k.length), k)), Uint8Array.of(0x50 + keys.length, 0xae));
}

/** verifyScript of m signatures (sigs[i] empty when empty[i]) against the m-of-n script, bare or P2WSH. */
function run(sv: 'base' | 'v0', m: number, keys: Uint8Array[], sigs: Uint8Array[], c: Checker): string | null {
  const ms = multisigScript(m, keys);
  if (sv === 'base') return verifyScript(pushAll([new Uint8Array(0), ...sigs]), ms, [], c);
  return verifyScript(new Uint8Array(0), concatBytes(Uint8Array.of(0, 32), sha256(ms)), [new Uint8Array(0), ...sigs, ms], c);
}

/** A small deterministic generator (the patterns' "known" subsets and where the odd cases go). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

describe('CHECKMULTISIG with known verdicts equals Core’s loop on every validity pattern', () => {
  for (const sv of ['base', 'v0'] as const) {
    it(`${sv === 'base' ? 'bare multisig' : 'P2WSH'}: m-of-n up to 12 signature–key pairs, odd keys and empty signatures`, () => {
      const rand = rng(sv === 'base' ? 1 : 2);
      let cases = 0;
      let skipped = 0; // answered without any signature check
      let passed = 0;
      for (let n = 1; n <= 4; n++) {
        for (let m = 1; m <= n; m++) {
          if (m * n > 12) continue;
          for (let bits = 0; bits < 2 ** (m * n); bits++) {
            const valid = Array.from({ length: m }, (_, i) => Array.from({ length: n }, (_, j) => ((bits >> (i * n + j)) & 1) === 1));
            // one variant each: plain; a bad key somewhere; an empty signature somewhere
            const badAt = rand() < 0.25 ? Math.floor(rand() * n) : -1;
            const emptyAt = badAt < 0 && rand() < 0.15 ? Math.floor(rand() * m) : -1;
            const keys = Array.from({ length: n }, (_, j) => (j === badAt ? BAD_KEYS[sv][j]! : GOOD_KEYS[j]!));
            const sigs = Array.from({ length: m }, (_, i) => (i === emptyAt ? new Uint8Array(0) : SIGS[i]!));
            const allKnown = valid;
            const someKnown = valid.map((row) => row.map((v) => v && rand() < 0.7));
            const core = run(sv, m, keys, sigs, tableChecker(sigs, keys, valid, null));
            for (const known of [allKnown, someKnown]) {
              const c = tableChecker(sigs, keys, valid, known);
              const ours = run(sv, m, keys, sigs, c);
              expect(ours, `m=${m} n=${n} pattern ${bits.toString(2)} bad key ${badAt} empty sig ${emptyAt}`).toBe(core);
              cases++;
              if (c.checks === 0) skipped++;
            }
            if (core === null) passed++;
          }
        }
      }
      expect(cases).toBeGreaterThan(9_000);
      // the shortcut is taken (and the loop too): the comparison covers both
      expect(skipped).toBeGreaterThan(1_000);
      expect(passed).toBeGreaterThan(1_000);
      expect(cases - skipped).toBeGreaterThan(1_000);
    });
  }
});
