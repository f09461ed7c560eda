/**
 * The fast paths behind decodePsbtJson, each checked against the plain implementation it
 * replaces: bech32/bech32m addresses written into a buffer, the descriptor checksum over bytes,
 * the Legendre symbol mod p without BigInt, the x-only key cache, and the JSON text of
 * witness UTXOs written byte by byte (against writeJson of the object result).
 */
import { describe, expect, it } from 'vitest';
import { bech32Encode, convertBits, encodeDestination, writeSegwitAddress } from '../../shared/bitcoin/address';
import { descriptorChecksum } from '../../shared/bitcoin/descriptor-checksum';
import { fastDescriptorChecksum, isValidXOnly, isValidXOnlyAt, writeDescriptorChecksum } from '../../shared/bitcoin/infer';
import { MAINNET, REGTEST, TESTNET } from '../../shared/bitcoin/networks';
import { decodePsbt, decodePsbtJson } from '../../shared/bitcoin/psbt';
import { FIELD_P, curveRhs, isCurveX, isCurveXAt, jacobi, legendreP } from '../../shared/bitcoin/secp';
import { writeJson } from '../../shared/json';

/** Deterministic pseudo-random bytes (xorshift32). */
function rng(seed: number): (n: number) => Uint8Array {
  let s = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      out[i] = s & 0xff;
    }
    return out;
  };
}

function big(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

describe('writeSegwitAddress', () => {
  it('matches bech32Encode(version, ConvertBits<8,5>(program)) on random programs', () => {
    const bytes = rng(7);
    const buf = new Uint8Array(200);
    for (let k = 0; k < 3000; k++) {
      const [r0, r1, r2] = bytes(3);
      const len = 2 + (r0! % 39);
      const version = r1! % 17;
      const hrp = ['bc', 'tb', 'bcrt'][r2! % 3]!;
      const program = bytes(len);
      const pad = bytes(1)[0]! % 3;
      const src = new Uint8Array(len + 2 * pad);
      src.set(program, pad);
      for (const bech32m of [false, true]) {
        const n = writeSegwitAddress(buf, 5, hrp, version, src, pad, pad + len, bech32m);
        const got = String.fromCharCode(...buf.subarray(5, n));
        const want = bech32Encode(bech32m ? 'bech32m' : 'bech32', hrp, [version, ...convertBits(program, 8, 5, true)!]);
        expect(got).toBe(want);
      }
    }
  });

  it('gives encodeDestination the same addresses as before (BIP173/BIP350 vectors)', () => {
    const hex = (s: string): Uint8Array => Uint8Array.from(s.match(/../g)!.map((x) => parseInt(x, 16)));
    expect(encodeDestination({ type: 'witness_v0_keyhash', program: hex('751e76e8199196d454941c45d1b3a323f1433bd6') }, MAINNET)).toBe(
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    );
    expect(
      encodeDestination({ type: 'witness_v0_scripthash', program: hex('1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262') }, TESTNET),
    ).toBe('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7');
    expect(
      encodeDestination({ type: 'witness_v1_taproot', program: hex('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798') }, MAINNET),
    ).toBe('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0');
    expect(encodeDestination({ type: 'witness_unknown', version: 16, program: hex('751e') }, MAINNET)).toBe('bc1sw50qgdz25j');
  });
});

describe('descriptor checksum over bytes', () => {
  it('matches descriptorChecksum, including strings with characters outside the charset', () => {
    const bytes = rng(11);
    const alphabet = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
    const buf = new Uint8Array(300);
    for (let k = 0; k < 2000; k++) {
      const r = bytes(120);
      const len = r[0]! % 110;
      let s = '';
      for (let i = 0; i < len; i++) s += alphabet[r[i + 1]! % alphabet.length];
      if (k % 10 === 0 && len > 0) s = s.slice(0, len >> 1) + '\u00e9\n'[k % 2] + s.slice(len >> 1);
      const want = descriptorChecksum(s);
      expect(fastDescriptorChecksum(s), s).toBe(want);
      let ascii = true;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c > 0xff) ascii = false;
        buf[3 + i] = c;
      }
      if (!ascii) continue;
      const end = writeDescriptorChecksum(buf, 3, 3 + s.length);
      if (want === '') {
        expect(end).toBe(-1);
      } else {
        expect(end).toBe(3 + s.length + 9);
        expect(String.fromCharCode(...buf.subarray(3 + s.length, end))).toBe('#' + want);
      }
    }
  });
});

describe('Legendre symbol mod p without BigInt', () => {
  it('agrees with the BigInt Jacobi symbol on random and edge values', () => {
    const bytes = rng(3);
    const values: bigint[] = [1n, 2n, 3n, 7n, FIELD_P - 1n, FIELD_P - 2n, FIELD_P - 7n, (1n << 255n) - 1n, 1n << 255n, (1n << 32n) + 977n];
    for (let i = 1n; i < 200n; i++) values.push(i, FIELD_P - i, (1n << 128n) + i, i * i, (FIELD_P - i * i) % FIELD_P);
    for (let k = 0; k < 3000; k++) values.push(big(bytes(32)) % FIELD_P, big(bytes(1 + (k % 32))));
    for (const v of values) {
      const a = v % FIELD_P;
      expect(legendreP(a), a.toString(16)).toBe(jacobi(a, FIELD_P));
    }
    expect(legendreP(0n)).toBe(0);
  });

  it('isCurveX / isCurveXAt give the x³ + 7 residuosity, and reject x ≥ p', () => {
    const bytes = rng(5);
    for (let k = 0; k < 500; k++) {
      const b = bytes(40);
      const x = big(b.subarray(4, 36));
      const want = x < FIELD_P && jacobi(curveRhs(x), FIELD_P) !== -1;
      expect(isCurveX(x)).toBe(want);
      expect(isCurveXAt(b, 4)).toBe(want);
    }
    const p = new Uint8Array(32);
    let v = FIELD_P;
    for (let i = 31; i >= 0; i--) {
      p[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    expect(isCurveXAt(p, 0)).toBe(false);
    expect(isCurveX(FIELD_P)).toBe(false);
    expect(isCurveX(FIELD_P + 1n)).toBe(false);
  });
});

describe('isValidXOnly cache', () => {
  it('keys sharing the cache slot (same first bytes) keep their own results', () => {
    const bytes = rng(9);
    const keys: Uint8Array[] = [];
    for (let k = 0; k < 400; k++) {
      const x = bytes(32);
      x[0] = 0x12;
      x[1] = 0x34;
      x[2] = 0x56;
      x[3] = 0x78;
      keys.push(x);
    }
    const want = keys.map((x) => isCurveX(big(x)));
    expect(new Set(want).size).toBe(2);
    for (let round = 0; round < 3; round++) {
      keys.forEach((x, i) => {
        expect(isValidXOnly(x)).toBe(want[i]);
        const padded = new Uint8Array(40);
        padded.set(x, 5);
        expect(isValidXOnlyAt(padded, 5)).toBe(want[i]);
      });
    }
    expect(isValidXOnly(new Uint8Array(31))).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// decodePsbtJson on made-up PSBTs whose witness UTXOs take the byte-written paths
// ---------------------------------------------------------------------------------------------

function compactSize(n: number): number[] {
  if (n < 253) return [n];
  return [253, n & 0xff, n >> 8];
}

function le(v: bigint, bytes: number): number[] {
  const out: number[] = [];
  let x = BigInt.asUintN(8 * bytes, v);
  for (let i = 0; i < bytes; i++) {
    out.push(Number(x & 0xffn));
    x >>= 8n;
  }
  return out;
}

function psbtWithWitnessUtxos(utxos: { value: bigint; script: Uint8Array }[], seed: number): string {
  const bytes = rng(seed);
  const tx: number[] = [...le(2n, 4), ...compactSize(utxos.length)];
  for (let i = 0; i < utxos.length; i++) tx.push(...bytes(32), ...le(BigInt(i), 4), 0, ...le(0xfffffffdn, 4));
  tx.push(1, ...le(1000n, 8), 22, 0x00, 0x14, ...bytes(20), ...le(0n, 4));
  const out: number[] = [0x70, 0x73, 0x62, 0x74, 0xff, 1, 0x00, ...compactSize(tx.length), ...tx, 0];
  for (const u of utxos) {
    const val = [...le(u.value, 8), ...compactSize(u.script.length), ...u.script];
    out.push(1, 0x01, ...compactSize(val.length), ...val, 0);
  }
  out.push(0);
  return Buffer.from(out).toString('base64');
}

describe('decodePsbtJson byte-written witness UTXOs', () => {
  it('writes the same text as writeJson(decodePsbt().result)', () => {
    const bytes = rng(21);
    const scripts: Uint8Array[] = [];
    for (let k = 0; k < 60; k++) {
      scripts.push(Uint8Array.of(0x51, 0x20, ...bytes(32))); // P2TR, x-only key valid or not
      scripts.push(Uint8Array.of(0x00, 0x14, ...bytes(20))); // P2WPKH
      scripts.push(Uint8Array.of(0x00, 0x20, ...bytes(32))); // P2WSH
    }
    const p = new Uint8Array(34);
    p[0] = 0x51;
    p[1] = 0x20;
    p.fill(0xff, 2); // x ≥ p
    scripts.push(p, Uint8Array.of(0x51, 0x02, 0x4e, 0x73), Uint8Array.of(0x52, 0x20, ...bytes(32)), Uint8Array.of(0x6a));
    scripts.push(Uint8Array.of(0x51, 0x20, ...bytes(31)).subarray(0, 33), Uint8Array.of(0x00, 0x14, ...bytes(21)));
    const values = [0n, 1n, 99_999_999n, 100_000_000n, 2_100_000_000_000_000n, 9_007_199_254_740_991n, 9_007_199_254_740_993n, -5n, -1n, (1n << 62n) + 7n];
    const utxos = scripts.map((script, i) => ({ script, value: values[i % values.length]! }));
    for (const net of [REGTEST, MAINNET, TESTNET]) {
      const b64 = psbtWithWitnessUtxos(utxos, 1);
      const a = decodePsbt(b64, net);
      const b = decodePsbtJson(b64, net);
      expect(a.ok && b.ok).toBe(true);
      if (a.ok && b.ok) expect(b.json).toBe(writeJson(a.result));
      // All amounts in range: a fee line is written too.
      const inRange = psbtWithWitnessUtxos(utxos.slice(0, 30).map((u, i) => ({ ...u, value: BigInt(i) * 123_456_789n })), 2);
      const c = decodePsbt(inRange, net);
      const d = decodePsbtJson(inRange, net);
      expect(c.ok && d.ok).toBe(true);
      if (c.ok && d.ok) {
        expect(d.json).toBe(writeJson(c.result));
        expect(d.json).toContain('"fee":');
      }
    }
  });
});
