/**
 * combine, verify, finalize and analyze (shared/bitcoin/psbt) against Bitcoin Core: every
 * combinepsbt, finalizepsbt and analyzepsbt recording of the spend file and of Core's own PSBT
 * vectors, and the real-node file made by psbt-roles-node.gen.ts (a watch-only wallet of nineteen
 * descriptor kinds — taproot script trees and combo() among them — three signers, PSBTs v2 and v0: fill, sign, combine, finalize with and without
 * extract, analyze at each stage), compared byte for byte and field for field. Then what Core
 * does not do: name the bad signature, and refuse to finalize an input that carries one.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { coreFileGroup, type CoreFile } from '../fixtures';
import { REGTEST } from '../../shared/bitcoin/networks';
import {
  analysisJson,
  analyzePsbtBase64,
  combinePsbtsBase64,
  decodeBase64Core,
  describeProblem,
  encodeBase64,
  fillPsbtBase64,
  finalizePsbt,
  finalizePsbtBase64,
  parsePsbt,
  serializePsbt,
  verifyPsbtSignatures,
  type Psbt,
} from '../../shared/bitcoin/psbt';
import { hexOf } from '../../shared/bitcoin/tx';

interface NodeLine {
  group: string;
  name: string;
  params?: unknown[];
  result?: unknown;
  error?: { message: string } | null;
  psbt?: string;
  descriptors?: never;
  prevtxs?: Record<string, string>;
  bip32derivs?: boolean;
  expected?: string;
}

const NODE: NodeLine[] = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'psbt-roles-node.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as NodeLine);
const nodeGroup = (g: string): NodeLine[] => NODE.filter((l) => l.group === g);

function parse(base64: string): Psbt {
  const r = parsePsbt(decodeBase64Core(base64)!);
  if (!r.ok) throw new Error(r.message);
  return r.psbt;
}

/** Each role's answer in the recordings' shape: {result} or {error: message}. */
function answer(group: string, params: unknown[]): unknown {
  if (group === 'combinepsbt') {
    const r = combinePsbtsBase64(params[0] as string[]);
    return r.ok ? { result: r.psbt } : { error: r.error };
  }
  if (group === 'finalizepsbt') {
    const extract = (params[1] as boolean | undefined) ?? true;
    const strict = finalizePsbtBase64(params[0] as string, { extract });
    const core = finalizePsbtBase64(params[0] as string, { extract, strict: false });
    expect(strict).toEqual(core); // Core's signatures all verify: strict changes nothing
    return strict.ok ? { result: strict.result } : { error: strict.error };
  }
  const r = analyzePsbtBase64(params[0] as string);
  return r.ok ? { result: JSON.parse(analysisJson(r.analysis)) as unknown } : { error: r.error };
}

describe('combine, finalize, analyze: the recordings of the spend file and of Core’s PSBT vectors', () => {
  const files: CoreFile[] = ['bitcoin-core-spend.jsonl', 'bitcoin-core-psbt-vectors.jsonl'];
  for (const file of files) {
    for (const group of ['combinepsbt', 'finalizepsbt', 'analyzepsbt']) {
      for (const rec of coreFileGroup(file, group)) {
        it(`${file} ${group}: ${rec.name}`, () => {
          const body = rec.response.body as { result: unknown; error: { message: string } | null };
          const params = (JSON.parse(rec.request.body) as { params: unknown[] }).params;
          expect(answer(group, params)).toEqual(body.error ? { error: body.error.message } : { result: body.result });
        });
      }
    }
  }
});

describe('the real-node file (psbt-roles-node.gen.ts)', () => {
  it('holds every stage of every spend', () => {
    const count = (g: string): number => nodeGroup(g).length;
    expect([count('fill-vector'), count('combinepsbt'), count('finalizepsbt'), count('analyzepsbt'), count('walletprocesspsbt')]).toEqual([28, 24, 84, 86, 48]);
    const fin = nodeGroup('finalizepsbt').map((l) => l.result as { hex?: string; complete: boolean });
    expect(fin.filter((r) => r.hex).length).toBeGreaterThan(10);
    expect(fin.filter((r) => !r.complete).length).toBeGreaterThan(10);
  });
  for (const v of nodeGroup('fill-vector')) {
    it(`fill: ${v.name}`, () => {
      const r = fillPsbtBase64({ psbt: v.psbt!, descriptors: v.descriptors!, prevtxs: v.prevtxs!, network: REGTEST, bip32Derivs: v.bip32derivs !== false });
      expect(r).toEqual({ ok: true, psbt: v.expected, complete: false });
    });
  }
  for (const group of ['combinepsbt', 'finalizepsbt', 'analyzepsbt']) {
    for (const l of nodeGroup(group)) {
      it(`${group}: ${l.name}`, () => {
        expect(answer(group, l.params!)).toEqual(l.error ? { error: l.error.message } : { result: l.result });
      });
    }
  }
  it('verify: every signature the signers made is valid', () => {
    let n = 0;
    for (const l of nodeGroup('walletprocesspsbt')) {
      const rep = verifyPsbtSignatures(parse((l.result as { psbt: string }).psbt));
      expect(rep.problems, l.name).toEqual([]);
      n += rep.checks.length;
    }
    expect(n).toBeGreaterThan(50);
  });
});

// ---------------------------------------------------------------------------------------------
// What Core does not say: which signature is bad, and why
// ---------------------------------------------------------------------------------------------

const N = secp256k1.Point.CURVE().n;
const lineNamed = (group: string, name: string): NodeLine => {
  const l = NODE.find((x) => x.group === group && x.name === name);
  if (!l) throw new Error(`no ${group} ${name}`);
  return l;
};

/** DER with a hash type byte from r and s. */
function der(r: bigint, s: bigint, hashType: number): Uint8Array {
  const int = (v: bigint): number[] => {
    let h = v.toString(16);
    if (h.length % 2) h = '0' + h;
    const b = [...Buffer.from(h, 'hex')];
    return b[0]! & 0x80 ? [0, ...b] : b;
  };
  const rb = int(r);
  const sb = int(s);
  return Uint8Array.from([0x30, 4 + rb.length + sb.length, 2, rb.length, ...rb, 2, sb.length, ...sb, hashType]);
}

function rsOf(sig: Uint8Array): { r: bigint; s: bigint } {
  const lr = sig[3]!;
  const ls = sig[5 + lr]!;
  return { r: BigInt('0x' + hexOf(sig.subarray(4, 4 + lr))), s: BigInt('0x' + hexOf(sig.subarray(6 + lr, 6 + lr + ls))) };
}

describe('verify and finalize: bad signatures are named and their inputs are not finalized', () => {
  // Two inputs of the multisig spend signed by sA and sB, three by all three signers.
  const twoOf = parse(lineNamed('combinepsbt', 'multisig kinds: sA + sB').result as string);
  const all = parse(lineNamed('combinepsbt', 'multisig kinds: sA + sB + sC').result as string);
  const single = parse((lineNamed('walletprocesspsbt', 'native single-sig and taproot: signed by sA').result as { psbt: string }).psbt);

  it('a changed ECDSA signature: input, key and reason', () => {
    const p = parse(encodeBase64(serializePsbt(twoOf)));
    const [id, e] = [...p.inputs[0]!.partialSigs][0]!;
    const { r, s } = rsOf(e.sig);
    p.inputs[0]!.partialSigs.set(id, { pubkey: e.pubkey, sig: der(r, s - 1n, 1) });
    const rep = verifyPsbtSignatures(p);
    expect(rep.ok).toBe(false);
    expect(rep.problems).toHaveLength(1);
    expect(rep.problems[0]).toMatchObject({ input: 0, kind: 'ecdsa', pubkey: hexOf(e.pubkey), status: 'invalid' });
    expect(describeProblem(rep.problems[0]!)).toBe(`input 0, key ${hexOf(e.pubkey)}: the signature does not verify (sighash 0x01)`);
    const fin = finalizePsbt(p);
    expect(fin.complete).toBe(false);
    expect(fin.psbt.inputs[0]!.finalScriptWitness).toBeUndefined();
    expect(fin.refused.map((c) => c.input)).toEqual([0]);
  });

  it('a high-S signature is not standard; a sighash other than the PSBT asks for is refused', () => {
    const p = parse(encodeBase64(serializePsbt(twoOf)));
    const [id, e] = [...p.inputs[1]!.partialSigs][0]!;
    const { r, s } = rsOf(e.sig);
    p.inputs[1]!.partialSigs.set(id, { pubkey: e.pubkey, sig: der(r, N - s, 1) });
    p.inputs[2]!.sighash = 0x81;
    const rep = verifyPsbtSignatures(p);
    const sigs2 = p.inputs[2]!.partialSigs.size;
    expect(sigs2).toBeGreaterThanOrEqual(2);
    expect(rep.problems.map((c) => [c.input, c.reason])).toEqual([
      [1, 'the signature has a high S value (not standard)'],
      ...Array.from({ length: sigs2 }, () => [2, 'it signs with sighash type 0x01 but the input asks for 129']),
    ]);
  });

  it('an unused bad signature: Core finalizes and drops it, strict mode refuses the input', () => {
    // Input 0 is 2-of-3 multi(A, B, C) signed by all three; break C's (the last key: not used).
    const p = parse(encodeBase64(serializePsbt(all)));
    const keys = [...p.inputs[0]!.partialSigs.values()];
    expect(keys).toHaveLength(3);
    const ws = p.inputs[0]!.witnessScript!;
    const lastKey = hexOf(ws.subarray(ws.length - 35, ws.length - 2));
    const target = [...p.inputs[0]!.partialSigs].find(([, v]) => hexOf(v.pubkey) === lastKey)!;
    const { r, s } = rsOf(target[1].sig);
    p.inputs[0]!.partialSigs.set(target[0], { pubkey: target[1].pubkey, sig: der(r, (s + 1n) % N, 1) });
    const core = finalizePsbt(p, { strict: false });
    const strict = finalizePsbt(p);
    expect(core.psbt.inputs[0]!.finalScriptWitness).toHaveLength(4);
    expect(strict.psbt.inputs[0]!.finalScriptWitness).toBeUndefined();
    expect(strict.refused).toEqual([expect.objectContaining({ input: 0, pubkey: lastKey, status: 'invalid' })]);
  });

  it('Schnorr: a changed taproot key path signature; an input without its UTXO cannot be checked', () => {
    const p = parse(encodeBase64(serializePsbt(single)));
    const tr = p.inputs.findIndex((i) => i.tapKeySig);
    expect(tr).toBeGreaterThan(0);
    expect(verifyPsbtSignatures(p).ok).toBe(true);
    const sig = Uint8Array.from(p.inputs[tr]!.tapKeySig!);
    sig[10]! ^= 1;
    p.inputs[tr]!.tapKeySig = sig;
    const rep = verifyPsbtSignatures(p);
    expect(rep.problems).toEqual([expect.objectContaining({ input: tr, kind: 'taproot-key', status: 'invalid', reason: 'the signature does not verify (sighash 0x01)' })]);
    delete p.inputs[0]!.witnessUtxo;
    delete p.inputs[0]!.nonWitnessUtxo;
    const rep2 = verifyPsbtSignatures(p);
    expect(rep2.problems.map((c) => [c.input, c.status])).toEqual([
      [0, 'unverifiable'],
      ...p.inputs.flatMap((inp, i) => (inp.tapKeySig ? [[i, 'unverifiable']] : [])),
    ]);
  });
});

describe('combine: what Core refuses', () => {
  const v2 = lineNamed('combinepsbt', 'multisig kinds: sA + sB').result as string;
  const v0 = lineNamed('combinepsbt', 'multisig kinds, psbt v0: sA + sB').result as string;
  it('different transactions or versions, nothing, bad base64', () => {
    expect(combinePsbtsBase64([v2, v0])).toEqual({ ok: false, code: -8, error: 'PSBTs not compatible (different transactions)' });
    expect(combinePsbtsBase64([])).toEqual({ ok: false, code: -8, error: "Parameter 'txs' cannot be empty" });
    expect(combinePsbtsBase64([v2, 'abc'])).toEqual({ ok: false, code: -22, error: 'TX decode failed invalid base64' });
  });
  it('convert: true combines a cosigner’s other version into the first one’s', () => {
    const a2 = (lineNamed('walletprocesspsbt', 'multisig kinds: signed by sA').result as { psbt: string }).psbt;
    const b0 = (lineNamed('walletprocesspsbt', 'multisig kinds, psbt v0: signed by sB').result as { psbt: string }).psbt;
    expect(combinePsbtsBase64([a2, b0])).toEqual({ ok: false, code: -8, error: 'PSBTs not compatible (different transactions)' });
    expect(combinePsbtsBase64([a2, b0], { convert: true })).toEqual({ ok: true, psbt: v2 });
  });
  it('combining a PSBT with itself gives it back', () => {
    expect(combinePsbtsBase64([v2, v2])).toEqual({ ok: true, psbt: v2 });
  });
});

describe('robustness: the roles answer every PSBT Core reads, and mutations of them, without throwing', () => {
  const files: CoreFile[] = ['bitcoin-core-psbt-vectors.jsonl', 'bitcoin-core-spend.jsonl', 'bitcoin-core-v31.99-stateless.jsonl'];
  const psbts: Psbt[] = [];
  for (const f of files) {
    for (const rec of coreFileGroup(f, 'decodepsbt')) {
      const param = (JSON.parse(rec.request.body) as { params: unknown[] }).params[0];
      const bytes = typeof param === 'string' ? decodeBase64Core(param) : null;
      const r = bytes && parsePsbt(bytes);
      if (r && r.ok) psbts.push(r.psbt);
    }
  }
  const roles = (p: Psbt): void => {
    analyzePsbtBase64(encodeBase64(serializePsbt(p)));
    verifyPsbtSignatures(p);
    finalizePsbt(p);
    finalizePsbt(p, { strict: false });
  };
  it(`${psbts.length} recorded PSBTs`, () => {
    expect(psbts.length).toBeGreaterThan(130);
    for (const p of psbts) roles(p);
  });
  it('300 one-byte mutations that still parse', () => {
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    let parsed = 0;
    for (let i = 0; i < 3000 && parsed < 300; i++) {
      const bytes = serializePsbt(psbts[rnd(psbts.length)]!);
      const at = 5 + rnd(bytes.length - 5);
      bytes[at] = bytes[at]! ^ (1 << rnd(8));
      const r = parsePsbt(bytes);
      if (!r.ok) continue;
      parsed++;
      roles(r.psbt);
    }
    expect(parsed).toBe(300);
  });
});
