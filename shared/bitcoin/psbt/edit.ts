/**
 * A copy of a parsed PSBT that the roles (fill, combine, finalize) may change: every input and
 * output map is a fresh Map (a parsed model shares one empty sentinel map between fields), byte
 * arrays are shared and never written to. Also the small byte helpers the roles share.
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hexOf } from '../tx';
import type { Psbt, PsbtInput, PsbtOutput, TapLeafScript } from './types';

export function hash160(b: Uint8Array): Uint8Array {
  return ripemd160(sha256(b));
}

/** CKeyID of a public key, as the model's map keys write it (hex). */
export function keyIdHex(pubkey: Uint8Array): string {
  return hexOf(ripemd160(sha256(pubkey)));
}

export function bytesEqual(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function copyLeaves(m: Map<string, TapLeafScript>): Map<string, TapLeafScript> {
  const out = new Map<string, TapLeafScript>();
  for (const [k, v] of m) out.set(k, { ...v, controls: new Map(v.controls) });
  return out;
}

export function editableInput(i: PsbtInput): PsbtInput {
  return {
    ...i,
    partialSigs: new Map(i.partialSigs),
    hdKeypaths: new Map(i.hdKeypaths),
    ripemd160: new Map(i.ripemd160),
    sha256: new Map(i.sha256),
    hash160: new Map(i.hash160),
    hash256: new Map(i.hash256),
    tapScriptSigs: new Map(i.tapScriptSigs),
    tapScripts: copyLeaves(i.tapScripts),
    tapBip32: new Map([...i.tapBip32].map(([k, v]) => [k, { ...v, leafHashes: [...v.leafHashes] }])),
    musigParticipants: new Map(i.musigParticipants),
    musigPubnonces: new Map(i.musigPubnonces),
    musigPartialSigs: new Map(i.musigPartialSigs),
    proprietary: new Map(i.proprietary),
    unknown: new Map(i.unknown),
  };
}

export function editableOutput(o: PsbtOutput): PsbtOutput {
  return {
    ...o,
    hdKeypaths: new Map(o.hdKeypaths),
    tapTree: [...o.tapTree],
    tapBip32: new Map([...o.tapBip32].map(([k, v]) => [k, { ...v, leafHashes: [...v.leafHashes] }])),
    musigParticipants: new Map(o.musigParticipants),
    proprietary: new Map(o.proprietary),
    unknown: new Map(o.unknown),
  };
}

/** A copy of the PSBT whose maps the caller may change. */
export function editablePsbt(p: Psbt): Psbt {
  return {
    ...p,
    xpubs: new Map([...p.xpubs].map(([k, v]) => [k, { origin: v.origin, xpubs: [...v.xpubs] }])),
    proprietary: new Map(p.proprietary),
    unknown: new Map(p.unknown),
    inputs: p.inputs.map(editableInput),
    outputs: p.outputs.map(editableOutput),
  };
}
