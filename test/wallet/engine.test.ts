/**
 * The fast derivation engine against references: the float-limb field against BigInt, the batched
 * k·G + A against @noble/curves (incl. the exceptional-addition fallback), HMAC-SHA512 keyed once
 * against @noble/hashes.
 */
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import * as F from '../../shared/wallet/field';
import { mulGAdd } from '../../shared/wallet/ec-batch';
import { Hmac512For37 } from '../../shared/wallet/hmac512';

const P = secp256k1.Point.Fp.ORDER;
const N = secp256k1.Point.CURVE().n;
const G = secp256k1.Point.BASE;

/** Deterministic pseudo-random 256-bit values (sha256 chain). */
function* randoms(seed: string): Generator<bigint> {
  let h = sha256(new TextEncoder().encode(seed));
  for (;;) {
    h = sha256(h);
    yield BigInt('0x' + Buffer.from(h).toString('hex'));
  }
}

function fe(x: bigint): F.Fe {
  const o = new Float64Array(F.LIMBS);
  F.ffromBig(o, 0, ((x % P) + P) % P);
  return o;
}

const EDGES = [0n, 1n, 2n, P - 1n, P - 2n, 2n ** 255n, 2n ** 32n + 977n, P - 2n ** 32n, 2n ** 256n - P, 0xffffffn];

describe('field arithmetic on 24-bit float limbs', () => {
  it('multiplies, squares, adds and subtracts (also fused) like BigInt mod p, on edge values and 3,000 random ones', () => {
    const r = randoms('field');
    const values = [...EDGES, ...Array.from({ length: 3000 }, () => r.next().value % P)];
    let bad = 0;
    for (let i = 0; i < values.length; i++) {
      const x = values[i]!;
      const y = values[(i * 7 + 3) % values.length]!;
      const a = fe(x);
      const b = fe(y);
      const o = new Float64Array(F.LIMBS);
      F.fmul(o, 0, a, 0, b, 0);
      if (F.ftoBig(o, 0) !== (x * y) % P) bad++;
      F.fsqr(o, 0, a, 0);
      if (F.ftoBig(o, 0) !== (x * x) % P) bad++;
      F.fsub(o, 0, a, 0, b, 0);
      if (F.ftoBig(o, 0) !== (((x - y) % P) + P) % P) bad++;
      F.fadd(o, 0, a, 0, b, 0);
      if (F.ftoBig(o, 0) !== (x + y) % P) bad++;
      F.fmulSub(o, 0, a, 0, b, 0, a, 0);
      if (F.ftoBig(o, 0) !== (((x * y - x) % P) + P) % P) bad++;
      F.fsqrSub2(o, 0, a, 0, b, 0, a, 0);
      if (F.ftoBig(o, 0) !== (((x * x - y - x) % P) + P) % P) bad++;
      F.fneg(o, 0, a, 0);
      if (F.ftoBig(o, 0) !== (P - x) % P) bad++;
    }
    expect(bad).toBe(0);
  });

  it('multiplies exactly when one factor has uncarried limbs up to 2^25.1 (as the batch additions feed it)', () => {
    const r = randoms('lazy');
    let bad = 0;
    for (let i = 0; i < 2000; i++) {
      // a limb vector with |limb| < 2^25.1 and value ≥ 0: a reduced element plus a multiple of p spread over the limbs
      const base = fe(r.next().value % P);
      const lazy = new Float64Array(F.LIMBS);
      for (let k = 0; k < F.LIMBS; k++) lazy[k] = base[k]! + 19_000_000 - Number(r.next().value % 4096n); // < 2^25.1
      let v = 0n;
      for (let k = F.LIMBS - 1; k >= 0; k--) v = (v << 24n) + BigInt(lazy[k]!);
      const y = r.next().value % P;
      const b = fe(y);
      const o = new Float64Array(F.LIMBS);
      F.fmul(o, 0, lazy, 0, b, 0);
      if (F.ftoBig(o, 0) !== (v * y) % P) bad++;
      F.fmulSub(o, 0, lazy, 0, b, 0, b, 0);
      if (F.ftoBig(o, 0) !== (((v * y - y) % P) + P) % P) bad++;
    }
    expect(bad).toBe(0);
  });

  it('stays exact through a long chain of operations on unreduced results', () => {
    const r = randoms('chain');
    const m = r.next().value % P;
    let big = r.next().value % P;
    const acc = fe(big);
    const mf = fe(m);
    let largest = 0;
    for (let i = 0; i < 50_000; i++) {
      F.fmul(acc, 0, acc, 0, mf, 0);
      F.fsub(acc, 0, acc, 0, mf, 0);
      F.fsqr(acc, 0, acc, 0);
      F.fadd(acc, 0, acc, 0, mf, 0);
      big = ((((big * m - m) % P) + P) % P) ** 2n % P;
      big = (big + m) % P;
      for (let k = 0; k < F.LIMBS; k++) largest = Math.max(largest, Math.abs(acc[k]!));
    }
    expect(largest).toBeLessThan(2 ** 24.5);
    expect(F.ftoBig(acc, 0)).toBe(big);
  });

  it('converts to and from 32 big-endian bytes canonically, inverts, and tells zero', () => {
    const r = randoms('bytes');
    for (const x of [...EDGES, ...Array.from({ length: 200 }, () => r.next().value % P)]) {
      const a = fe(x);
      const bytes = new Uint8Array(32);
      F.ftoBytes(a, 0, bytes);
      expect(BigInt('0x' + Buffer.from(bytes).toString('hex'))).toBe(x);
      const back = new Float64Array(F.LIMBS);
      F.ffromBytes(back, 0, bytes);
      expect(F.ftoBig(back, 0)).toBe(x);
      expect(F.fisZero(a, 0)).toBe(x === 0n);
      const inv = new Float64Array(F.LIMBS);
      expect(F.finv(inv, 0, a, 0)).toBe(x !== 0n);
      if (x !== 0n) {
        F.fmul(inv, 0, inv, 0, a, 0);
        expect(F.ftoBig(inv, 0)).toBe(1n);
      }
    }
    // p itself (a non-canonical zero) and values ≥ p from bytes reduce
    const pBytes = new Uint8Array(32);
    let v = P;
    for (let i = 31; i >= 0; i--, v >>= 8n) pBytes[i] = Number(v & 0xffn);
    const z = new Float64Array(F.LIMBS);
    F.ffromBytes(z, 0, pBytes);
    expect(F.fisZero(z, 0)).toBe(true);
    F.ffromBytes(z, 0, new Uint8Array(32).fill(0xff));
    expect(F.ftoBig(z, 0)).toBe((2n ** 256n - 1n) % P);
  });
});

function scalarBytes(ks: bigint[]): Uint8Array {
  const out = new Uint8Array(ks.length * 32);
  ks.forEach((k, i) => {
    for (let b = 31, v = k; b >= 0; b--, v >>= 8n) out[i * 32 + b] = Number(v & 0xffn);
  });
  return out;
}

function points(ps: InstanceType<typeof secp256k1.Point>[]): { x: F.Fe; y: F.Fe } {
  const x = new Float64Array(ps.length * F.LIMBS);
  const y = new Float64Array(ps.length * F.LIMBS);
  ps.forEach((p, i) => {
    const a = p.toAffine();
    F.ffromBig(x, i * F.LIMBS, a.x);
    F.ffromBig(y, i * F.LIMBS, a.y);
  });
  return { x, y };
}

describe('batched k·G + A', () => {
  it('equals @noble/curves for random scalars and addends, and for edge scalars', () => {
    const r = randoms('ec');
    const ks = [1n, 2n, N - 1n, N - 2n, 2n ** 255n, 0xfffn, 2n ** 128n + 1n, ...Array.from({ length: 120 }, () => (r.next().value % (N - 1n)) + 1n)];
    const adds = ks.map(() => G.multiply((r.next().value % (N - 1n)) + 1n));
    const a = points(adds);
    const ox = new Float64Array(ks.length * F.LIMBS);
    const oy = new Float64Array(ks.length * F.LIMBS);
    mulGAdd(ks.length, scalarBytes(ks), a.x, a.y, ox, oy);
    ks.forEach((k, i) => {
      const want = G.multiply(k).add(adds[i]!).toAffine();
      expect([F.ftoBig(ox, i * F.LIMBS), F.ftoBig(oy, i * F.LIMBS)]).toEqual([want.x, want.y]);
    });
    // without addends: k·G alone
    mulGAdd(ks.length, scalarBytes(ks), null, null, ox, oy);
    ks.forEach((k, i) => expect(F.ftoBig(ox, i * F.LIMBS)).toBe(G.multiply(k).toAffine().x));
  });

  it('redoes a batch exactly when an addition is exceptional (A = k·G is a doubling)', () => {
    const k = 0x1234567890abcdefn;
    const ks = [k, 5n, k + 1n];
    const adds = [G.multiply(k), G.multiply(7n), G.multiply(3n)];
    const a = points(adds);
    const ox = new Float64Array(3 * F.LIMBS);
    const oy = new Float64Array(3 * F.LIMBS);
    mulGAdd(3, scalarBytes(ks), a.x, a.y, ox, oy);
    expect(F.ftoBig(ox, 0)).toBe(G.multiply(2n * k).toAffine().x);
    expect(F.ftoBig(ox, F.LIMBS)).toBe(G.multiply(12n).toAffine().x);
    expect(F.ftoBig(oy, 2 * F.LIMBS)).toBe(G.multiply(k + 4n).toAffine().y);
  });

  it('refuses a zero scalar and a result at infinity', () => {
    const ox = new Float64Array(F.LIMBS);
    const oy = new Float64Array(F.LIMBS);
    expect(() => mulGAdd(1, new Uint8Array(32), null, null, ox, oy)).toThrow(/zero/);
    const a = points([G.multiply(N - 9n)]);
    expect(() => mulGAdd(1, scalarBytes([9n]), a.x, a.y, ox, oy)).toThrow(/infinity/);
  });
});

describe('HMAC-SHA512 keyed once', () => {
  it('equals @noble/hashes for keys of every length up to a block and random messages', () => {
    const r = randoms('hmac');
    for (let len = 0; len <= 128; len += 1) {
      const key = sha512(new TextEncoder().encode(`key ${len}`)).subarray(0, Math.min(len, 64));
      const longKey = len > 64 ? new Uint8Array([...key, ...sha512(key).subarray(0, len - 64)]) : key;
      const h = new Hmac512For37(longKey);
      const msg = new Uint8Array(37);
      const seedBytes = sha512(new TextEncoder().encode(String(r.next().value)));
      msg.set(seedBytes.subarray(0, 37));
      const out = new Uint8Array(40);
      h.il(msg, 0, out, 8);
      expect(Buffer.from(out.subarray(8)).toString('hex')).toBe(Buffer.from(hmac(sha512, longKey, msg).subarray(0, 32)).toString('hex'));
    }
    expect(() => new Hmac512For37(new Uint8Array(129))).toThrow(/longer than a block/);
  });
});
