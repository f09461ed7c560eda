/**
 * electron/main/psbt/fountain.ts: the fountain decoder chooses the very fragments @ngraveio/bc-ur's encoder
 * mixed — its random numbers bit for bit (bignumber.js's 20-decimal division included, ties and tiny values
 * computed exactly), its degree sampler, its shuffle — and puts messages back together from mixed parts alone.
 */
import { describe, expect, it } from 'vitest';
import BigNumber from 'bignumber.js';
import * as xoshiroModule from '@ngraveio/bc-ur/dist/xoshiro.js';
import * as fountainUtils from '@ngraveio/bc-ur/dist/fountainUtils.js';
import * as fountainEncoderModule from '@ngraveio/bc-ur/dist/fountainEncoder.js';
import { chooseFragments, DegreeSampler, exactDouble, FountainDecoder, UrRandom, urDouble } from '../../electron/main/psbt/fountain';
import { rng } from '../qr/helpers';

function cjsDefault<T>(m: { default: T }): T {
  const d = m.default as T & { default?: T };
  return d.default ?? d;
}
type LibXoshiro = { nextDouble(): { toNumber(): number } };
const Xoshiro = cjsDefault(xoshiroModule) as unknown as new (seed: Buffer) => LibXoshiro;
const FountainEncoder = cjsDefault(fountainEncoderModule);
const libChoose = (fountainUtils as unknown as { chooseFragments?: typeof fountainUtils.chooseFragments; default?: { chooseFragments: typeof fountainUtils.chooseFragments } }).chooseFragments ?? (fountainUtils as unknown as { default: { chooseFragments: typeof fountainUtils.chooseFragments } }).default.chooseFragments;

// The library's own division (xoshiro.js: `new BigNumber(roll.toString()).div(MAX_UINT64 + 1)`, where
// MAX_UINT64 is the literal 0xFFFFFFFFFFFFFFFF: the number 2^64, as 2 ** 64 is).
const libDouble = (v: bigint): number => new BigNumber(v.toString()).div(2 ** 64).toNumber();

describe('the random numbers', () => {
  it('Xoshiro256** gives the library’s doubles, draw for draw', () => {
    for (let k = 0; k < 20; k++) {
      const seed = Buffer.from(`seed ${k}`);
      const ours = new UrRandom(seed);
      const theirs = new Xoshiro(seed);
      for (let i = 0; i < 400; i++) expect(ours.nextDouble(), `seed ${k}, draw ${i}`).toBe(theirs.nextDouble().toNumber());
    }
  });

  it('the exact path equals bignumber.js’s 20-decimal division, on ties, tiny outputs and random ones', () => {
    const r = rng(7);
    const cases: bigint[] = [0n, 1n, 2n ** 64n - 1n, 2n ** 52n - 1n, 2n ** 52n, 2n ** 53n + 1n, 2n ** 63n + 2n ** 10n, 2n ** 60n + 2n ** 6n, 12345678901234n];
    for (let i = 0; i < 300; i++) {
      const hi = r.int(2 ** 32);
      const lo = r.int(2 ** 32);
      const shift = r.int(64);
      cases.push(((BigInt(hi) << 32n) | BigInt(lo)) >> BigInt(shift));
    }
    // Halfway between two doubles: the low bits below the double's precision are exactly 100…0.
    for (let bits = 54; bits <= 64; bits++) cases.push((1n << BigInt(bits - 1)) + (1n << BigInt(bits - 54)));
    for (const v of cases) expect(exactDouble(Number(v >> 32n), Number(v & 0xffffffffn)), v.toString()).toBe(libDouble(v));
  });


  it('the quick path gives the exact result on 100,000 random outputs of every size', () => {
    const r = rng(9);
    const differ: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const hi = r.int(2 ** 32) >>> r.int(32);
      const lo = r.int(2 ** 32);
      if (urDouble(hi, lo) !== exactDouble(hi, lo)) differ.push(`${hi}:${lo}`);
    }
    expect(differ).toEqual([]);
  });
});

describe('the fragments a mixed part mixes', () => {
  it('the degree sampler is the library’s alias tables', () => {
    for (const n of [1, 2, 3, 10, 97, 1000]) {
      const s = new DegreeSampler(n);
      for (let seqNum = n + 1; seqNum < n + 60; seqNum++) {
        const seed = Buffer.alloc(8);
        seed.writeUInt32BE(seqNum, 0);
        seed.writeUInt32BE(0xdeadbeef, 4);
        expect(s.degree(new UrRandom(seed)), `n ${n}, part ${seqNum}`).toBe(fountainUtils.chooseDegree(n, new Xoshiro(seed) as never));
      }
    }
  });

  it('chooseFragments picks the library’s indexes, pure and mixed parts, small and large degrees', () => {
    const r = rng(11);
    let large = 0;
    for (const n of [1, 2, 5, 17, 100, 400, 1500]) {
      const sampler = new DegreeSampler(n);
      for (let k = 0; k < 40; k++) {
        const seqNum = k < 3 ? k + 1 : n + 1 + r.int(100_000);
        const checksum = r.int(2 ** 32);
        const ours = chooseFragments(seqNum, n, checksum, sampler);
        if (ours!.length > 48) large++;
        expect([...ours!], `part ${seqNum} of ${n}`).toEqual(libChoose(seqNum, n, checksum));
      }
    }
    expect(large, 'the Fenwick-tree path ran').toBeGreaterThan(0);
  });
});

describe('the decoder', () => {
  it('rebuilds a message from the library’s mixed parts alone, and says when the checksum is wrong', () => {
    const message = Buffer.from(Uint8Array.from({ length: 5000 }, (_, i) => (i * 7 + 3) & 0xff));
    const enc = new FountainEncoder(message, 100);
    const seqLen = enc.seqLength();
    for (let i = 0; i < seqLen; i++) enc.nextPart(); // skip every pure part
    const first = enc.nextPart();
    const d = new FountainDecoder({ seqLen, messageLength: first.messageLength, checksum: first.checksum, fragmentLength: first.fragment.length });
    d.receive(first.seqNum, first.fragment);
    let parts = 1;
    while (!d.result && parts < 20 * seqLen) {
      const p = enc.nextPart();
      d.receive(p.seqNum, p.fragment);
      parts++;
      expect(d.received).toBeLessThanOrEqual(seqLen);
    }
    expect(Buffer.from(d.result!).equals(message)).toBe(true);
    expect(d.progress).toBe(1);

    const bad = new FountainDecoder({ seqLen: 2, messageLength: 20, checksum: 1, fragmentLength: 10 });
    bad.receive(1, new Uint8Array(10));
    expect(bad.failure).toBeNull();
    bad.receive(2, new Uint8Array(10));
    expect(bad.result).toBeNull();
    expect(bad.failure).toMatch(/CRC-32 is [0-9a-f]{8}, its parts say 00000001/);
  });
});
