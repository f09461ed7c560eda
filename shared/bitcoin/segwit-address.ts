/**
 * Segwit addresses written straight into a byte buffer: bech32::Encode(encoding, hrp, [version,
 * ConvertBits<8, 5, true>(program)]) without the intermediate arrays, and with the checksum taken
 * two 5-bit values per step. Used by EncodeDestination and by the PSBT fast paths that write many
 * addresses.
 */
import { BECH32_CONST, BECH32M_CONST, CHARSET, CHECKSUM_SIZE, polyModStep, type Bech32Encoding } from './bech32';

const CHARSET_CODES = Uint8Array.from(CHARSET, (c) => c.charCodeAt(0));

/** PolyMod generator terms for the top 5 bits t of the state (xor of the constants for t's bits). */
const BECH_GEN = new Int32Array(32);
for (let t = 0; t < 32; t++) BECH_GEN[t] = polyModStep(t << 25, 0);

/**
 * Two PolyMod steps at once (see polyModStep2): the terms they add depend only on the top 10
 * bits of the state. With t1 = bits 29..25 and t2 = bits 24..20, the first step adds G(t1),
 * whose top 5 bits change the second step's selector to t2 ^ (G(t1) >>> 25).
 */
const BECH_GEN2 = new Int32Array(1024);
for (let t = 0; t < 1024; t++) {
  const g1 = BECH_GEN[t >> 5]!;
  BECH_GEN2[t] = ((g1 & 0x1ffffff) << 5) ^ BECH_GEN[(t & 31) ^ (g1 >>> 25)]!;
}

/** polyModStep(polyModStep(c, a), b). */
function polyModStep2(c: number, a: number, b: number): number {
  return ((c & 0xfffff) << 10) ^ (a << 5) ^ b ^ BECH_GEN2[c >>> 20]!;
}

/** PolyMod state after the expanded hrp, per hrp. */
const hrpStates = new Map<string, number>();

function hrpState(hrp: string): number {
  let c = hrpStates.get(hrp);
  if (c === undefined) {
    c = 1;
    for (let i = 0; i < hrp.length; i++) c = polyModStep(c, hrp.charCodeAt(i) >> 5);
    c = polyModStep(c, 0);
    for (let i = 0; i < hrp.length; i++) c = polyModStep(c, hrp.charCodeAt(i) & 0x1f);
    if (hrpStates.size < 64) hrpStates.set(hrp, c);
  }
  return c;
}

/**
 * Writes the segwit address of (version, program[start..end]) as ASCII into `out` at `pos` and
 * returns the position after it: bech32::Encode(encoding, hrp, [version, ConvertBits<8, 5,
 * true>(program)]) without the intermediate arrays. `hrp` is lowercase ASCII; `out` must have
 * room for hrp.length + 8 + ceil(8·(end − start)/5) bytes.
 */
export function writeSegwitAddress(
  out: Uint8Array,
  pos: number,
  hrp: string,
  version: number,
  program: Uint8Array,
  start: number,
  end: number,
  bech32m: boolean,
): number {
  for (let i = 0; i < hrp.length; i++) out[pos++] = hrp.charCodeAt(i);
  out[pos++] = 0x31; // '1'
  // The 5-bit values (version, then the program regrouped) go out as characters first; the
  // checksum then runs over those characters two at a time.
  const v0 = pos;
  out[pos++] = version;
  let acc = 0;
  let bits = 0;
  for (let i = start; i < end; i++) {
    acc = ((acc << 8) | program[i]!) & 0xfff;
    bits += 8;
    if (bits >= 10) {
      bits -= 10;
      out[pos] = (acc >> (bits + 5)) & 31;
      out[pos + 1] = (acc >> bits) & 31;
      pos += 2;
    } else if (bits >= 5) {
      bits -= 5;
      out[pos++] = (acc >> bits) & 31;
    }
  }
  if (bits >= 5) {
    bits -= 5;
    out[pos++] = (acc >> bits) & 31;
  }
  if (bits > 0) out[pos++] = (acc << (5 - bits)) & 31;
  let c = hrpState(hrp);
  let i = v0;
  for (; i + 2 <= pos; i += 2) {
    const a = out[i]!;
    const b = out[i + 1]!;
    c = polyModStep2(c, a, b);
    out[i] = CHARSET_CODES[a]!;
    out[i + 1] = CHARSET_CODES[b]!;
  }
  if (i < pos) {
    const a = out[i]!;
    out[i] = CHARSET_CODES[a]!;
    c = polyModStep2(c, a, 0); // the last value and the first of the six zeros
    c = polyModStep2(c, 0, 0);
    c = polyModStep2(c, 0, 0);
    c = polyModStep(c, 0);
  } else {
    c = polyModStep2(c, 0, 0);
    c = polyModStep2(c, 0, 0);
    c = polyModStep2(c, 0, 0);
  }
  const mod = (c ^ (bech32m ? BECH32M_CONST : BECH32_CONST)) >>> 0;
  for (let k = 0; k < CHECKSUM_SIZE; k++) out[pos++] = CHARSET_CODES[(mod >>> (5 * (5 - k))) & 31]!;
  return pos;
}

let addrScratch = new Uint8Array(128);

/** The segwit address of (version, program): bech32::Encode as a string. */
export function segwitEncode(encoding: Bech32Encoding, hrp: string, version: number, program: Uint8Array): string {
  const need = hrp.length + 8 + Math.ceil((program.length * 8) / 5);
  if (addrScratch.length < need) addrScratch = new Uint8Array(need);
  const n = writeSegwitAddress(addrScratch, 0, hrp, version, program, 0, program.length, encoding === 'bech32m');
  return String.fromCharCode.apply(null, addrScratch.subarray(0, n) as unknown as number[]);
}
