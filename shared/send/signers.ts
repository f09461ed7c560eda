/**
 * Who has signed a PSBT, per input and per cosigner, as Sparrow and Caravan show it: each input's
 * keys (from its multisig script, else its single key) with their origins (fingerprint and path from
 * the PSBT's BIP32 derivations), which of them have a partial signature, how many are still needed
 * ("2 of 3, missing: a0ca0919"), and, over the whole PSBT, each cosigner's count. Pure data from
 * what the PSBT carries; whether the signatures verify is verify.ts's business.
 */
import { toHex } from '../bitcoin/hex';
import type { KeyOrigin, Psbt, PsbtInput } from '../bitcoin/psbt';
import { solver } from '../bitcoin/script';

export interface KeyStatus {
  /** Public key hex (x-only for taproot). */
  pubkey: string;
  fingerprint: string | null;
  path: string | null;
  signed: boolean;
}

export interface InputSigning {
  index: number;
  /** Signatures needed (m). */
  required: number;
  /** Keys that can sign (n); 1 for single-key inputs. */
  total: number;
  keys: KeyStatus[];
  signed: number;
  final: boolean;
  /** "2 of 3, missing: a0ca0919" / "signed" / "final". */
  text: string;
}

export interface CosignerStatus {
  fingerprint: string;
  /** Inputs this key can sign, and has signed. */
  inputs: number;
  signed: number;
}

export interface SigningStatus {
  inputs: InputSigning[];
  cosigners: CosignerStatus[];
  /** Every input has its m signatures (or is final). */
  complete: boolean;
  /** The fewest further signatures any input still needs … */
  missing: number;
  /** One line for the whole PSBT. */
  text: string;
}

export function pathText(o: KeyOrigin): string {
  return ['m', ...o.path.map((s) => (s >= 0x80000000 ? `${s - 0x80000000}h` : String(s)))].join('/');
}

function originOf(input: PsbtInput, pubkey: Uint8Array): KeyOrigin | null {
  const hex = toHex(pubkey);
  const o = input.hdKeypaths.get(hex);
  if (o) return o;
  if (pubkey.length === 32) return input.tapBip32.get(hex)?.origin ?? null;
  return null;
}

function signedBy(input: PsbtInput, pubkey: Uint8Array): boolean {
  const hex = toHex(pubkey);
  for (const s of input.partialSigs.values()) if (toHex(s.pubkey) === hex) return true;
  if (pubkey.length === 32 && input.tapKeySig !== undefined && input.tapInternalKey && toHex(input.tapInternalKey) === hex) return true;
  return false;
}

function keyStatus(input: PsbtInput, pubkey: Uint8Array): KeyStatus {
  const o = originOf(input, pubkey);
  return { pubkey: toHex(pubkey), fingerprint: o ? toHex(o.fp) : null, path: o ? pathText(o) : null, signed: signedBy(input, pubkey) };
}

function keysOf(input: PsbtInput): { required: number; keys: Uint8Array[] } {
  const script = input.witnessScript ?? input.redeemScript;
  if (script) {
    const s = solver(script);
    if (s.type === 'multisig') return { required: s.solutions[0]![0]!, keys: s.solutions.slice(1, -1) };
  }
  if (input.tapInternalKey) return { required: 1, keys: [input.tapInternalKey] };
  const derived = [...input.hdKeypaths.keys()];
  if (derived.length === 1) return { required: 1, keys: [fromHexKey(derived[0]!)] };
  const sig = [...input.partialSigs.values()][0];
  return { required: 1, keys: sig ? [sig.pubkey] : [] };
}

function fromHexKey(hex: string): Uint8Array {
  const b = new Uint8Array(hex.length / 2);
  for (let i = 0; i < b.length; i++) b[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return b;
}

const label = (k: KeyStatus): string => k.fingerprint ?? `key ${k.pubkey.slice(0, 8)}…`;

/** "2 of 3, missing: c3c3c3c3 — enough (2 needed)" / "1 of 3, missing: b2b2b2b2, c3c3c3c3 — 2 needed". */
function multiText(signed: number, required: number, total: number, missing: readonly KeyStatus[]): string {
  const head = `${signed} of ${total}${missing.length ? `, missing: ${missing.map(label).join(', ')}` : ''}`;
  return `${head} — ${signed >= required ? `enough (${required} needed)` : `${required} needed`}`;
}

export function signingStatus(p: Psbt): SigningStatus {
  const inputs: InputSigning[] = p.inputs.map((input, index) => {
    const final = input.finalScriptSig !== undefined || input.finalScriptWitness !== undefined;
    const { required, keys } = keysOf(input);
    const ks = keys.map((k) => keyStatus(input, k));
    const signed = ks.filter((k) => k.signed).length;
    const missing = ks.filter((k) => !k.signed);
    let text: string;
    if (final) text = 'final';
    else if (ks.length === 0) text = 'no key known';
    else if (ks.length === 1) text = signed ? 'signed' : `not signed, missing: ${label(ks[0]!)}`;
    else text = multiText(signed, required, ks.length, missing);
    return { index, required, total: ks.length, keys: ks, signed, final, text };
  });
  const byFp = new Map<string, CosignerStatus>();
  for (const i of inputs) {
    for (const k of i.keys) {
      if (!k.fingerprint) continue;
      const c = byFp.get(k.fingerprint) ?? { fingerprint: k.fingerprint, inputs: 0, signed: 0 };
      c.inputs++;
      if (k.signed || i.final) c.signed++;
      byFp.set(k.fingerprint, c);
    }
  }
  const needs = inputs.map((i) => (i.final ? 0 : Math.max(0, i.required - i.signed)));
  const complete = needs.every((n) => n === 0);
  const cosigners = [...byFp.values()];
  const first = inputs.find((i) => !i.final && i.signed < i.required) ?? inputs.find((i) => !i.final);
  let text: string;
  if (inputs.every((i) => i.final)) text = 'Every input is final';
  else if (first && first.total > 1) text = first.text;
  else if (complete) text = 'Every input is signed';
  else text = `${needs.filter((n) => n > 0).length} of ${inputs.length} inputs still need a signature`;
  return { inputs, cosigners, complete, missing: Math.max(0, ...needs), text };
}
