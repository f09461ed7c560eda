/**
 * electron/main/psbt/ur.ts: PSBTs as ur:crypto-psbt parts and the scanning session, round trips with lost frames
 * (fountain decoding), every refusal a camera can cause, the library's own decoder reading our parts, and the
 * whole path an air-gapped signer sees: parts → QR symbols (the qrcode package, as the app draws them) → pixels → jsqr → scanner → the PSBT.
 */
import { describe, expect, it } from 'vitest';
import { UR, UREncoder, URDecoder } from '@ngraveio/bc-ur';
import { qrSymbol } from '../../renderer/src/lib/qr-svg';
import { decodePsbtUr, encodePsbtUr, psbtUrSequence, PsbtUrScanner, UrScanError, type UrScanErrorCode } from '../../electron/main/psbt/ur';
import { decodeWithJsqr, rng } from '../qr/helpers';
import { parseUrPart } from '../../electron/main/psbt/ur-part';
import { MAX_QR_TEXT_CHARS, UR_MAX_MESSAGE_LENGTH, UR_MAX_SEQ_LEN } from '../../shared/limits';
import { craftPart, ISSUE_FRAMES, recordedPsbts } from '../support/ur-parts';

/** A PSBT-shaped message: the magic, then `length` seeded bytes (the UR layer does not parse the PSBT). */
function fakePsbt(length: number, seed: number): Uint8Array {
  const r = rng(seed);
  const bytes = Uint8Array.from({ length: 5 + length }, () => r.int(256));
  bytes.set([0x70, 0x73, 0x62, 0x74, 0xff]);
  return bytes;
}

function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const r = rng(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function refusal(scanner: PsbtUrScanner, text: string): UrScanErrorCode {
  try {
    scanner.receive(text);
  } catch (e) {
    if (e instanceof UrScanError) return e.code;
    throw e;
  }
  throw new Error(`accepted: ${text.slice(0, 40)}`);
}

describe('PSBT → UR parts', () => {
  it('fragments: seqLen pure parts in order, then mixed ones, uppercase (alphanumeric QR), as the library writes them', () => {
    const psbt = fakePsbt(1000, 1);
    const ur = encodePsbtUr(psbt, { maxFragmentLength: 100 });
    expect(ur).toMatchObject({ kind: 'multi', seqLen: 11, messageLength: 1008, fragmentLength: 92, type: 'crypto-psbt' });
    expect(ur.parts).toHaveLength(11);
    ur.parts.forEach((p, i) => expect(p).toMatch(new RegExp(`^UR:CRYPTO-PSBT/${i + 1}-11/[A-Z]+$`)));
    const lib = new UREncoder(new UR(UR.fromBuffer(Buffer.from(psbt)).cbor, 'crypto-psbt'), 100);
    expect(ur.parts).toEqual(ur.parts.map(() => lib.nextPart().toUpperCase()));
    // Mixed parts and every byte value through the bytewords table (a 20 kB message: all 256 values occur).
    const big = fakePsbt(20_000, 21);
    const mixed = encodePsbtUr(big, { maxFragmentLength: 400, fountainParts: 5, type: 'psbt' });
    const libBig = new UREncoder(new UR(UR.fromBuffer(Buffer.from(big)).cbor, 'psbt'), 400);
    expect(mixed.parts).toEqual(mixed.parts.map(() => libBig.nextPart().toUpperCase()));
  });

  it('any part is made directly, in any order, equal to the library\'s part of that number (the paged animated QR)', () => {
    const psbt = fakePsbt(20_000, 24);
    const all = encodePsbtUr(psbt, { maxFragmentLength: 250, fountainParts: 90 });
    const seq = psbtUrSequence(psbt, { maxFragmentLength: 250 });
    expect(seq).toMatchObject({ kind: 'multi', seqLen: all.seqLen, fragmentLength: all.fragmentLength, messageLength: all.messageLength });
    for (const k of [170, 0, 81, 169, 5, 80, 120, 5]) expect(seq.part(k), `part ${k}`).toBe(all.parts[k]);
    expect(() => seq.part(-1)).toThrow(RangeError);
    const single = psbtUrSequence(fakePsbt(100, 25));
    expect(single.kind).toBe('single');
    expect(single.part(0)).toBe(encodePsbtUr(fakePsbt(100, 25)).parts[0]);
    expect(() => single.part(1)).toThrow(/only part 0/);
  });

  it('a small PSBT is one single-part UR (a static QR); the threshold is the message length', () => {
    const psbt = fakePsbt(200, 2);
    const single = encodePsbtUr(psbt); // 205-byte PSBT → 207-byte message (CBOR: 58 CD, then the bytes) ≤ 250
    expect(single).toMatchObject({ kind: 'single', seqLen: 1, messageLength: 207 });
    expect(single.parts).toHaveLength(1);
    expect(single.parts[0]).toMatch(/^UR:CRYPTO-PSBT\/[A-Z]+$/);
    expect(URDecoder.decode(single.parts[0]!).decodeCBOR()).toEqual(Buffer.from(psbt));
    expect(single.parts[0]).toBe(UREncoder.encodeSinglePart(new UR(UR.fromBuffer(Buffer.from(psbt)).cbor, 'crypto-psbt')).toUpperCase());
    expect(encodePsbtUr(psbt, { maxFragmentLength: 100 }).kind).toBe('multi');
    expect(encodePsbtUr(psbt, { maxFragmentLength: 100, singlePartMaxLength: 207 }).kind).toBe('single');
    expect(encodePsbtUr(psbt, { singlePartMaxLength: 0, maxFragmentLength: 207 }).kind).toBe('single'); // one fragment
    expect(encodePsbtUr(psbt, { type: 'psbt' }).parts[0]).toMatch(/^UR:PSBT\//);
  });

  it('the largest fragments still fit a QR symbol (version 40-L at most)', () => {
    for (const part of [...encodePsbtUr(fakePsbt(9000, 22), { maxFragmentLength: 2000 }).parts, ...encodePsbtUr(fakePsbt(1990, 23), { maxFragmentLength: 2000 }).parts]) {
      expect(qrSymbol(part, 'L').version).toBeLessThanOrEqual(40);
    }
  });

  it('refuses what is not a PSBT and options out of range', () => {
    expect(() => encodePsbtUr(new TextEncoder().encode('hello world'))).toThrow(/Not a PSBT/);
    expect(() => encodePsbtUr(fakePsbt(10, 3), { maxFragmentLength: 9 })).toThrow(/maxFragmentLength must be an integer 10..2000, got 9/);
    expect(() => encodePsbtUr(fakePsbt(10, 3), { maxFragmentLength: 2001 })).toThrow(/2000/);
    expect(() => encodePsbtUr(fakePsbt(10, 3), { fountainParts: -1 })).toThrow(/fountainParts/);
  });
});

describe('scanning UR parts back', () => {
  it('any order, duplicates, mixed case; progress is parts received / expected', () => {
    const psbt = fakePsbt(3000, 4);
    const { parts, seqLen } = encodePsbtUr(psbt, { maxFragmentLength: 150 });
    const scanner = new PsbtUrScanner();
    expect([scanner.progress, scanner.expected, scanner.complete]).toEqual([0, 0, false]);
    const order = shuffled(parts, 5);
    let last = 0;
    order.forEach((p, i) => {
      const text = i % 3 === 0 ? p.toLowerCase() : i % 3 === 1 ? p : p.slice(0, 20).toLowerCase() + p.slice(20);
      const r = scanner.receive(text);
      if (i < order.length - 1) {
        expect(r).toEqual({ status: 'accepted', progress: (i + 1) / seqLen, received: i + 1, expected: seqLen });
        expect(r.progress).toBeGreaterThan(last);
        last = r.progress;
        expect(scanner.receive(order[0]!).status).toBe('duplicate');
        expect(() => scanner.result()).toThrow(/not complete yet/);
      } else {
        expect(r).toEqual({ status: 'complete', progress: 1, received: seqLen, expected: seqLen });
      }
    });
    expect(scanner.complete).toBe(true);
    expect(scanner.type).toBe('crypto-psbt');
    expect(scanner.result()).toEqual(psbt);
    expect(scanner.receive(parts[0]!).status).toBe('complete'); // later frames change nothing
  });

  it('lost frames: with fountain parts, the parts that got through are enough', () => {
    for (const [len, frag, seed] of [[2000, 100, 6], [6000, 200, 7], [777, 30, 8]] as const) {
      const psbt = fakePsbt(len, seed);
      const { parts, seqLen } = encodePsbtUr(psbt, { maxFragmentLength: frag, fountainParts: 3 * Math.ceil(len / frag) });
      // Drop a third of all frames, pure and mixed alike, and deliver the rest shuffled.
      const r = rng(seed * 31);
      const kept = parts.filter(() => r.int(3) !== 0);
      const lostPure = parts.slice(0, seqLen).filter((p) => !kept.includes(p)).length;
      expect(lostPure, 'some pure fragments are lost, so mixed parts must stand in').toBeGreaterThan(0);
      expect(decodePsbtUr(shuffled(kept, seed))).toEqual(psbt);
    }
  });

  it('the library decodes our parts, and we decode the library’s (mixed parts included)', () => {
    const psbt = fakePsbt(1500, 9);
    const { parts } = encodePsbtUr(psbt, { maxFragmentLength: 120, fountainParts: 30 });
    const lib = new URDecoder();
    for (const p of parts.slice(3)) lib.receivePart(p);
    expect(lib.isSuccess()).toBe(true);
    expect(lib.resultUR().decodeCBOR()).toEqual(Buffer.from(psbt));
    const enc = new UREncoder(new UR(UR.fromBuffer(Buffer.from(psbt)).cbor, 'psbt'), 120);
    const theirs = Array.from({ length: enc.fragmentsLength + 30 }, () => enc.nextPart()).slice(3);
    expect(decodePsbtUr(theirs)).toEqual(psbt);
  });

  it('refuses garbage, other types, another PSBT mid-scan and damaged parts, and carries on', () => {
    const psbt = fakePsbt(900, 10);
    const other = fakePsbt(900, 11);
    const { parts } = encodePsbtUr(psbt, { maxFragmentLength: 100 });
    const otherParts = encodePsbtUr(other, { maxFragmentLength: 100 }).parts;
    const scanner = new PsbtUrScanner();
    scanner.receive(parts[0]!);
    expect(refusal(scanner, 'https://example.com/')).toBe('not-ur');
    expect(refusal(scanner, 'bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe('not-ur');
    expect(refusal(scanner, 'ur:crypto-psbt')).toBe('malformed');
    expect(refusal(scanner, 'ur:crypto psbt/abc')).toBe('malformed');
    expect(refusal(scanner, parts[1]!.replace('/2-10/', '/2-x/'))).toBe('malformed');
    expect(refusal(scanner, 'ur:crypto-psbt/1-10/lpadbkcfadbdcyhsytzoeyhkfgidecfmihtkzoemtkjkdwzosrasasa')).toBe('corrupt');
    // One letter changed: the CRC-32 of the part no longer matches.
    const p2 = parts[1]!;
    const i = p2.length - 30;
    expect(refusal(scanner, p2.slice(0, i) + (p2[i] === 'A' ? 'E' : 'A') + p2.slice(i + 1))).toBe('corrupt');
    expect(refusal(scanner, new UREncoder(UR.fromBuffer(Buffer.from('hello')), 100).nextPart())).toBe('wrong-type');
    expect(refusal(scanner, otherParts[1]!)).toBe('other-message');
    expect(refusal(scanner, encodePsbtUr(fakePsbt(50, 12)).parts[0]!)).toBe('other-message'); // a whole small PSBT
    // A psbt-typed part while scanning crypto-psbt.
    expect(refusal(scanner, encodePsbtUr(psbt, { maxFragmentLength: 100, type: 'psbt' }).parts[1]!)).toBe('other-message');
    expect(scanner.progress).toBe(0.1);
    for (const p of parts.slice(1)) scanner.receive(p);
    expect(scanner.result()).toEqual(psbt);
    // A well-formed crypto-psbt whose bytes are not a PSBT.
    const notPsbt = UREncoder.encodeSinglePart(new UR(UR.fromBuffer(Buffer.from('not a psbt at all')).cbor, 'crypto-psbt'));
    expect(refusal(new PsbtUrScanner(), notPsbt)).toBe('not-psbt');
    const error = (() => {
      try {
        new PsbtUrScanner().receive('WIFI:S:cafe;;');
      } catch (e) {
        return e as UrScanError;
      }
    })();
    expect(error?.message).toBe('This QR code is not a UR code (it does not start with "ur:")');
  });

  it('reset() starts a new scan', () => {
    const a = encodePsbtUr(fakePsbt(500, 13), { maxFragmentLength: 100 }).parts;
    const b = fakePsbt(500, 14);
    const scanner = new PsbtUrScanner();
    scanner.receive(a[0]!);
    scanner.reset();
    expect([scanner.progress, scanner.expected]).toEqual([0, 0]);
    for (const p of encodePsbtUr(b, { maxFragmentLength: 100 }).parts) scanner.receive(p);
    expect(scanner.result()).toEqual(b);
  });
});

describe('untrusted frames: checked before any decoding, within the limits of shared/limits.ts', () => {
  const parseRefusal = (text: string): [UrScanErrorCode, string] => {
    try {
      parseUrPart(text);
    } catch (e) {
      if (e instanceof UrScanError) return [e.code, e.message];
      throw e;
    }
    throw new Error(`accepted: ${text.slice(0, 40)}`);
  };

  it('the limits follow from the largest PSBT the app accepts (15 MiB) and the shortest fragment (10 bytes)', () => {
    expect(UR_MAX_MESSAGE_LENGTH).toBe(15 * 1024 * 1024 + 5);
    expect(UR_MAX_SEQ_LEN).toBe(1_572_865);
  });

  it('the three frames of issue #27 are refused by the check, the decoder never sees them, and a real animated QR still scans', () => {
    expect(parseRefusal(ISSUE_FRAMES[0])).toEqual(['too-large', 'This animated QR announces 4,294,967,295 parts; the largest PSBT Spyglass reads (15 MiB) needs at most 1,572,865, so this is not a PSBT to scan']);
    expect(parseRefusal(ISSUE_FRAMES[1])).toEqual(['too-large', 'This animated QR announces 100,000,000 parts; the largest PSBT Spyglass reads (15 MiB) needs at most 1,572,865, so this is not a PSBT to scan']);
    expect(parseRefusal(ISSUE_FRAMES[2])).toEqual(['corrupt', 'This UR part is damaged: 200,000 fragments of 10 bytes cannot carry a message of 1,000 bytes']);
    const scanner = new PsbtUrScanner();
    const psbt = recordedPsbts().find((p) => p.length > 600)!;
    const { parts } = encodePsbtUr(psbt, { maxFragmentLength: 100, fountainParts: 4 });
    scanner.receive(parts[0]!);
    for (const frame of ISSUE_FRAMES) {
      expect(refusal(scanner, frame)).not.toBe('other-message');
      expect(scanner.partsDecoded, 'the refused frame never reached the fountain decoder').toBe(1);
    }
    for (const p of parts.slice(1)) scanner.receive(p);
    expect(scanner.result()).toEqual(psbt);
    // A fresh scanner: the frames first, then the whole QR.
    const fresh = new PsbtUrScanner();
    for (const frame of ISSUE_FRAMES) refusal(fresh, frame);
    expect([fresh.partsDecoded, fresh.expected, fresh.progress]).toEqual([0, 0, 0]);
    expect(decodePsbtUr(parts.slice(2)), 'two pure frames lost, the fountain parts stand in').toEqual(psbt);
  });

  it('refuses each inconsistent or oversized header with its own reason', () => {
    const frag = new Uint8Array(10).fill(7);
    const part = (over: Partial<Parameters<typeof craftPart>[0]>): string => craftPart({ seqNum: 1, seqLen: 3, messageLength: 30, checksum: 99, fragment: frag, ...over });
    expect(parseRefusal(part({ seqLen: UR_MAX_SEQ_LEN + 1, messageLength: 10 * (UR_MAX_SEQ_LEN + 1) }))[0]).toBe('too-large');
    expect(parseRefusal(part({ messageLength: UR_MAX_MESSAGE_LENGTH + 1, seqLen: Math.ceil((UR_MAX_MESSAGE_LENGTH + 1) / 10), seqNum: 1 }))).toEqual(['too-large', 'This animated QR announces a message of 15,728,646 bytes, more than the largest PSBT Spyglass reads (15 MiB)']);
    expect(parseRefusal(part({ messageLength: 31 }))[1]).toBe('This UR part is damaged: 3 fragments of 10 bytes cannot carry a message of 31 bytes');
    expect(parseRefusal(part({ seqLen: 5, messageLength: 15, fragment: new Uint8Array(3) }))[1]).toMatch(/5 fragments of 3 bytes/); // below the 10-byte minimum
    expect(parseRefusal(part({ seqNum: 0 }))[0]).toBe('malformed');
    expect(parseRefusal('ur:crypto-psbt/99999999999-3/' + part({}).split('/')[2])[0]).toBe('malformed');
    expect(parseRefusal('ur:crypto-psbt/2-3/' + part({}).split('/')[2])).toEqual(['corrupt', 'This UR part is damaged: its body says part 1-3, its name 2-3']);
    expect(parseRefusal(part({}).slice(0, -1))[1]).toMatch(/odd number of letters/);
    expect(parseRefusal(part({}).slice(0, -2) + 'qq')[1]).toMatch(/^This UR part is damaged: "qq" \(letters \d+–\d+\) is no byteword$/);
    expect(parseRefusal('u' + 'r'.repeat(MAX_QR_TEXT_CHARS))[0]).toBe('too-large');
    expect(parseRefusal('ur:crypto-psbt/1-3/' + 'ae'.repeat(2000))[0]).toBe('corrupt');
    // One part mid-scan with another fragment length is another message.
    const s = new PsbtUrScanner();
    s.receive(part({}));
    expect(refusal(s, craftPart({ seqNum: 2, seqLen: 3, messageLength: 30, checksum: 99, fragment: new Uint8Array(16) }))).toBe('corrupt');
    expect(refusal(s, craftPart({ seqNum: 2, seqLen: 3, messageLength: 30, checksum: 99, fragment: new Uint8Array(11) }))).toBe('other-message');
    expect(refusal(s, craftPart({ seqNum: 2, seqLen: 2, messageLength: 20, checksum: 99, fragment: frag }))).toBe('other-message');
    expect(s.partsDecoded).toBe(1);
  });

  it('a consistent mixed part of the largest animated QR is decoded with work bounded by its size', () => {
    const scanner = new PsbtUrScanner();
    const big = craftPart({ seqNum: UR_MAX_SEQ_LEN + 12345, seqLen: UR_MAX_SEQ_LEN, messageLength: UR_MAX_MESSAGE_LENGTH, checksum: 42, fragment: new Uint8Array(10) });
    for (let k = 0; k < 3; k++) {
      const r = scanner.receive(big.replace(`${UR_MAX_SEQ_LEN + 12345}-`, `${UR_MAX_SEQ_LEN + 12345}-`));
      expect(r.expected).toBe(UR_MAX_SEQ_LEN);
    }
    expect(scanner.partsDecoded).toBe(1); // the same part again is a duplicate
    for (let n = 1; n <= 20; n++) scanner.receive(craftPart({ seqNum: UR_MAX_SEQ_LEN + n, seqLen: UR_MAX_SEQ_LEN, messageLength: UR_MAX_MESSAGE_LENGTH, checksum: 42, fragment: new Uint8Array(10) }));
    expect(scanner.partsDecoded).toBe(21);
    expect(scanner.complete).toBe(false);
  });
});

describe('end to end: UR parts as QR symbols, read by a QR decoder, scanned back', () => {
  it('every frame of an animated PSBT QR decodes with jsqr and the scanner rebuilds the PSBT', () => {
    const psbt = fakePsbt(2500, 15);
    const { parts } = encodePsbtUr(psbt, { maxFragmentLength: 250, fountainParts: 2 });
    const scanner = new PsbtUrScanner();
    for (const part of parts) {
      const m = qrSymbol(part, 'L');
      const read = decodeWithJsqr(m, 2);
      expect(read?.text, `frame ${part.slice(0, 24)}`).toBe(part);
      scanner.receive(read!.text);
    }
    expect(scanner.result()).toEqual(psbt);
  });
});
