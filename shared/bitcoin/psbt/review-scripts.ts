/**
 * The review's reading of scripts and signatures: sighash names, script types, dust, OP_RETURN
 * payloads, how an input will be spent (single key, m-of-n, taproot), the signed size of an input,
 * and the sighash types of the signatures an input carries. Pure functions over the PSBT model.
 */
import { encodeDestination, extractDestination } from '../address';
import { toHex } from '../hex';
import type { Network } from '../networks';
import { OP_RETURN, getScriptOp, isValidSignatureEncoding, solver, witnessProgram, type TxoutType } from '../script';
import { compactSizeLen } from '../tx';
import { cmpStr, sortedValues } from './json-parts';
import type { PsbtInput } from './types';

/** The PSBT_IN_TAP_LEAF_SCRIPT fields of an input (one per leaf script and control block). */
export function tapLeafCount(inp: PsbtInput): number {
  let n = 0;
  for (const leaf of inp.tapScripts.values()) n += leaf.controls.size;
  return n;
}

const ECDSA_SIG_MAX = 72; // DER (≤ 71) + sighash byte: the largest a signature can be

/** Sighash type names (script/interpreter.h), DEFAULT for taproot's 0, hex for the rest. */
export function sighashName(t: number): string {
  const base = t & 0x1f;
  const acp = (t & ~0x9f) === 0 && (t & 0x80) !== 0;
  if (t === 0) return 'DEFAULT';
  if ((t & ~0x83) === 0 && base >= 1 && base <= 3) {
    const n = base === 1 ? 'ALL' : base === 2 ? 'NONE' : 'SINGLE';
    return acp ? `${n}|ANYONECANPAY` : n;
  }
  return `0x${(t >>> 0).toString(16).padStart(2, '0')}`;
}

/** `num / den` with two decimals, rounded half away from zero, in integers (den > 0). */
export function ratio2(num: bigint, den: bigint): string {
  const neg = num < 0n;
  const n = neg ? -num : num;
  const hundredths = (n * 200n + den) / (2n * den);
  const s = `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
  return neg && hundredths !== 0n ? `-${s}` : s;
}

/**
 * A percentage `num / den` for people: two decimals from 1 % up ("2.50"), two significant digits
 * below ("0.50", "0.014", "0.0042"), so a small fee never reads "0.00"; under 0.000001, "< 0.000001".
 */
export function percentText(num: bigint, den: bigint): string {
  if (num === 0n) return '0.00';
  const neg = num < 0n;
  const n = neg ? -num : num;
  if (n * 100n >= den * 100n) return ratio2(num, den); // ≥ 1 %: two decimals
  for (let decimals = 2; decimals <= 6; decimals++) {
    const scale = 10n ** BigInt(decimals);
    const v = (n * scale * 2n + den) / (2n * den); // rounded to `decimals`
    if (v >= 10n || decimals === 6) {
      if (v === 0n) return neg ? '> -0.000001' : '< 0.000001';
      const t = v.toString().padStart(decimals + 1, '0');
      const s = `${t.slice(0, -decimals)}.${t.slice(-decimals)}`;
      return neg ? `-${s}` : s;
    }
  }
  return ratio2(num, den);
}

/** Short output type names (p2pkh, p2wpkh, p2tr, op_return…) as the app shows them. */
export function typeName(t: TxoutType): string {
  switch (t) {
    case 'pubkeyhash':
      return 'p2pkh';
    case 'scripthash':
      return 'p2sh';
    case 'witness_v0_keyhash':
      return 'p2wpkh';
    case 'witness_v0_scripthash':
      return 'p2wsh';
    case 'witness_v1_taproot':
      return 'p2tr';
    case 'pubkey':
      return 'p2pk';
    case 'nulldata':
      return 'op_return';
    default:
      return t;
  }
}

export function addressOf(script: Uint8Array, network: Network): string | null {
  const d = extractDestination(script);
  if (!d) return null;
  const a = encodeDestination(d, network);
  return a === '' ? null : a;
}

/** Core GetDustThreshold at the default dust relay fee (3000 sat/kvB). */
export function dustThreshold(script: Uint8Array): bigint {
  if ((script.length > 0 && script[0] === OP_RETURN) || script.length > 10_000) return 0n;
  let size = 8 + compactSizeLen(script.length) + script.length;
  size += witnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return BigInt(size) * 3n;
}

/** The data pushed after OP_RETURN, joined; text when it decodes as UTF-8 with no control characters. */
export function opReturnPayload(script: Uint8Array): { hex: string; text: string | null } {
  const parts: Uint8Array[] = [];
  let pc = 1;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) break;
    if (r.op <= 0x4e && r.data.length > 0) parts.push(r.data);
    pc = r.next;
  }
  const len = parts.reduce((a, p) => a + p.length, 0);
  const data = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    data.set(p, o);
    o += p.length;
  }
  let text: string | null = null;
  if (len > 0) {
    try {
      const t = new TextDecoder('utf-8', { fatal: true }).decode(data);
      // eslint-disable-next-line no-control-regex
      if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff]/.test(t)) text = t;
    } catch {
      text = null;
    }
  }
  return { hex: toHex(data), text };
}

export interface Multisig {
  m: number;
  keys: string[];
}

export function multisigOf(script: Uint8Array | undefined): Multisig | null {
  if (!script || script.length === 0) return null;
  const s = solver(script);
  if (s.type !== 'multisig') return null;
  return { m: s.solutions[0]![0]!, keys: s.solutions.slice(1, -1).map(toHex) };
}

/** How an input will be spent, from the UTXO's script and the redeem/witness scripts. */
export interface SpendInfo {
  type: string;
  /** Native witness output (signing adds no scriptSig). */
  nativeWitness: boolean;
  multisig: Multisig | null;
  /** Single-key scripts: 1 signature. */
  single: boolean;
  taproot: boolean;
}

/** The last push of a script (a finalized P2SH scriptSig ends with the redeem script). */
function lastPush(script: Uint8Array | undefined): Uint8Array | undefined {
  if (!script) return undefined;
  let last: Uint8Array | undefined;
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) return undefined;
    if (r.op <= 0x4e) last = r.data;
    pc = r.next;
  }
  return last;
}

export function spendInfo(input: PsbtInput, spk: Uint8Array | null): SpendInfo {
  const unknown: SpendInfo = { type: 'unknown', nativeWitness: false, multisig: null, single: false, taproot: false };
  // A finalized input has dropped its scripts: the final scriptSig / witness end with them.
  const inp = {
    ...input,
    redeemScript: input.redeemScript ?? lastPush(input.finalScriptSig),
    witnessScript: input.witnessScript ?? (input.finalScriptWitness && input.finalScriptWitness.length > 2 ? input.finalScriptWitness[input.finalScriptWitness.length - 1] : undefined),
  };
  const ws = multisigOf(inp.witnessScript);
  if (!spk) {
    // No UTXO data: what the scripts tell.
    const rs = inp.redeemScript ? solver(inp.redeemScript).type : null;
    if (rs === 'witness_v0_keyhash') return { ...unknown, type: 'p2sh-p2wpkh', single: true };
    if (rs === 'witness_v0_scripthash' && ws) return { ...unknown, type: `p2sh-p2wsh ${ws.m}-of-${ws.keys.length}`, multisig: ws };
    if (inp.redeemScript && multisigOf(inp.redeemScript)) {
      const ms = multisigOf(inp.redeemScript)!;
      return { ...unknown, type: `p2sh ${ms.m}-of-${ms.keys.length}`, multisig: ms };
    }
    if (!inp.redeemScript && ws) return { ...unknown, type: `p2wsh ${ws.m}-of-${ws.keys.length}`, nativeWitness: true, multisig: ws };
    return unknown;
  }
  const t = solver(spk).type;
  switch (t) {
    case 'pubkeyhash':
      return { ...unknown, type: 'p2pkh', single: true };
    case 'pubkey':
      return { ...unknown, type: 'p2pk', single: true };
    case 'witness_v0_keyhash':
      return { ...unknown, type: 'p2wpkh', nativeWitness: true, single: true };
    case 'witness_v1_taproot':
      return { ...unknown, type: 'p2tr', nativeWitness: true, taproot: true };
    case 'multisig': {
      const ms = multisigOf(spk)!;
      return { ...unknown, type: `multisig ${ms.m}-of-${ms.keys.length}`, multisig: ms };
    }
    case 'witness_v0_scripthash':
      return ws ? { ...unknown, type: `p2wsh ${ws.m}-of-${ws.keys.length}`, nativeWitness: true, multisig: ws } : { ...unknown, type: 'p2wsh', nativeWitness: true };
    case 'scripthash': {
      if (!inp.redeemScript) return { ...unknown, type: 'p2sh' };
      const rt = solver(inp.redeemScript).type;
      if (rt === 'witness_v0_keyhash') return { ...unknown, type: 'p2sh-p2wpkh', single: true };
      if (rt === 'witness_v0_scripthash') return ws ? { ...unknown, type: `p2sh-p2wsh ${ws.m}-of-${ws.keys.length}`, multisig: ws } : { ...unknown, type: 'p2sh-p2wsh' };
      const ms = multisigOf(inp.redeemScript);
      return ms ? { ...unknown, type: `p2sh ${ms.m}-of-${ms.keys.length}`, multisig: ms } : { ...unknown, type: 'p2sh' };
    }
    case 'anchor':
      return { ...unknown, type: 'anchor', nativeWitness: true };
    default:
      return { ...unknown, type: typeName(t), nativeWitness: t === 'witness_unknown' };
  }
}

function pushLen(n: number): number {
  return n < 0x4c ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5;
}

function witnessSize(stack: Uint8Array[]): number {
  let n = compactSizeLen(stack.length);
  for (const w of stack) n += compactSizeLen(w.length) + w.length;
  return n;
}

/** The final scriptSig length and serialized witness size of an input, or null when the script is unknown. */
export function finalSizes(inp: PsbtInput, info: SpendInfo): { scriptSig: number; witness: number } | null {
  if (inp.finalScriptSig !== undefined || inp.finalScriptWitness !== undefined) {
    return { scriptSig: inp.finalScriptSig?.length ?? 0, witness: witnessSize(inp.finalScriptWitness ?? []) };
  }
  const sigs = sortedValues(inp.partialSigs);
  const sigLens = sigs.map((p) => p.sig.length);
  const firstDerivation = [...inp.hdKeypaths.keys()].sort(cmpStr)[0];
  const pubLen = sigs[0]?.pubkey.length ?? (firstDerivation !== undefined ? firstDerivation.length / 2 : 33);
  const sigsFor = (m: number): number[] => {
    const have = sigLens.slice(0, m);
    while (have.length < m) have.push(ECDSA_SIG_MAX);
    return have;
  };
  const t = info.type;
  if (t === 'p2pkh') {
    const sig = sigsFor(1)[0]!;
    return { scriptSig: 1 + sig + 1 + pubLen, witness: 1 };
  }
  if (t === 'p2pk') return { scriptSig: 1 + sigsFor(1)[0]!, witness: 1 };
  if (t === 'p2wpkh' || t === 'p2sh-p2wpkh') {
    const sig = sigsFor(1)[0]!;
    return { scriptSig: t === 'p2wpkh' ? 0 : 1 + 22, witness: 1 + 1 + sig + 1 + pubLen };
  }
  if (info.taproot) {
    if (tapLeafCount(inp) > 0 && !inp.tapKeySig) return null; // script path: depends on the leaf
    const sig = inp.tapKeySig?.length ?? (inp.sighash !== undefined && inp.sighash !== 0 ? 65 : 64);
    return { scriptSig: 0, witness: 1 + 1 + sig };
  }
  const ms = info.multisig;
  if (ms) {
    const sigs = sigsFor(ms.m).reduce((a, l) => a + 1 + l, 0);
    if (t.startsWith('multisig')) return { scriptSig: 1 + sigs, witness: 1 };
    if (t.startsWith('p2sh ')) {
      if (!inp.redeemScript) return null;
      const rs = inp.redeemScript.length;
      return { scriptSig: 1 + sigs + pushLen(rs) + rs, witness: 1 };
    }
    if (!inp.witnessScript) return null;
    const wsLen = inp.witnessScript.length;
    const witness = compactSizeLen(ms.m + 2) + 1 + sigs + compactSizeLen(wsLen) + wsLen;
    return { scriptSig: t.startsWith('p2sh-p2wsh') ? 1 + 34 : 0, witness };
  }
  return null;
}

/** Sighash bytes of the signatures an input carries (partial, taproot, final). */
export function signatureSighashes(inp: PsbtInput): number[] {
  const out: number[] = [];
  for (const p of sortedValues(inp.partialSigs)) if (p.sig.length > 0) out.push(p.sig[p.sig.length - 1]!);
  const schnorr = (sig: Uint8Array): void => {
    out.push(sig.length === 65 ? sig[64]! : 0);
  };
  if (inp.tapKeySig) schnorr(inp.tapKeySig);
  for (const s of sortedValues(inp.tapScriptSigs)) schnorr(s.sig);
  const finalItems: Uint8Array[] = [...(inp.finalScriptWitness ?? [])];
  if (inp.finalScriptSig) {
    let pc = 0;
    while (pc < inp.finalScriptSig.length) {
      const r = getScriptOp(inp.finalScriptSig, pc);
      if (!r.ok) break;
      if (r.op <= 0x4e) finalItems.push(r.data);
      pc = r.next;
    }
  }
  for (const item of finalItems) {
    if (isValidSignatureEncoding(item)) out.push(item[item.length - 1]!);
  }
  if (inp.finalScriptWitness && inp.finalScriptWitness.length === 1) {
    const w = inp.finalScriptWitness[0]!;
    if (w.length === 64 || w.length === 65) schnorr(w); // taproot key path
  }
  return out;
}

/** Signatures present in a finalized input (DER items, or the taproot key-path signature). */
export function finalSignatureCount(inp: PsbtInput): number {
  let n = 0;
  const items: Uint8Array[] = [...(inp.finalScriptWitness ?? [])];
  if (inp.finalScriptSig) {
    let pc = 0;
    while (pc < inp.finalScriptSig.length) {
      const r = getScriptOp(inp.finalScriptSig, pc);
      if (!r.ok) break;
      if (r.op <= 0x4e) items.push(r.data);
      pc = r.next;
    }
  }
  for (const it of items) if (isValidSignatureEncoding(it)) n++;
  if (n === 0 && inp.finalScriptWitness?.length === 1 && (inp.finalScriptWitness[0]!.length === 64 || inp.finalScriptWitness[0]!.length === 65)) n = 1;
  return n;
}
