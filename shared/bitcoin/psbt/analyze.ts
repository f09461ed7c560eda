/**
 * Core's analyzepsbt (AnalyzePSBT, src/node/psbt.cpp; the reply as src/rpc/rawtransaction.cpp
 * writes it): per input whether it has its UTXO, whether it is final, the next role and what is
 * missing (public keys, signatures by key id, redeem / witness script hashes); the fee; the
 * estimated vsize of the signed transaction (dummy signatures, sigop-adjusted) and its feerate.
 */
import { formatBtc, moneyRange } from '../../amounts';
import { RawJson, writeJson } from '../../json';
import { getScriptOp, isPayToScriptHash, isPushOnly, isUnspendable, witnessProgram } from '../script';
import { serializeTx, type Tx, type TxOut } from '../tx';
import { decodeBase64Core } from './base64';
import { editablePsbt } from './edit';
import type { CoreVersionOption } from './generation';
import { parsePsbt } from './model';
import { EMPTY_PROVIDER } from './provider';
import { getUtxo, inputSignedAndVerified, precompute, signPsbtInput } from './sign-input';
import { newSigData } from './sigdata';
import type { Psbt } from './types';

export type PsbtRole = 'creator' | 'updater' | 'signer' | 'finalizer' | 'extractor';
const ROLE_ORDER: PsbtRole[] = ['creator', 'updater', 'signer', 'finalizer', 'extractor'];
const minRole = (a: PsbtRole, b: PsbtRole): PsbtRole => (ROLE_ORDER.indexOf(a) <= ROLE_ORDER.indexOf(b) ? a : b);

export interface InputAnalysis {
  has_utxo: boolean;
  is_final: boolean;
  next: PsbtRole;
  missing?: { pubkeys?: string[]; redeemscript?: string; witnessscript?: string; signatures?: string[] };
}

/** analyzepsbt's result, keys in Core's order; amounts as 8-decimal BTC strings. */
export interface PsbtAnalysis {
  inputs?: InputAnalysis[];
  estimated_vsize?: number;
  /** BTC/kvB. */
  estimated_feerate?: string;
  /** BTC. */
  fee?: string;
  next: PsbtRole;
  error?: string;
}

const invalid = (error: string): PsbtAnalysis => ({ next: 'creator', error });

/** CScript::GetSigOpCount(fAccurate). */
function sigOps(script: Uint8Array, accurate: boolean): number {
  let n = 0;
  let last = 0xff;
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok) break;
    pc = r.next;
    if (r.op === 0xac || r.op === 0xad) n++;
    else if (r.op === 0xae || r.op === 0xaf) n += accurate && last >= 0x51 && last <= 0x60 ? last - 0x50 : 20;
    last = r.op;
  }
  return n;
}

/** The last element a push-only scriptSig pushes (null when it is not push-only). */
function lastPush(scriptSig: Uint8Array): Uint8Array | null {
  let data: Uint8Array = new Uint8Array(0);
  let pc = 0;
  while (pc < scriptSig.length) {
    const r = getScriptOp(scriptSig, pc);
    if (!r.ok || r.op > 0x60) return null;
    data = r.data;
    pc = r.next;
  }
  return data;
}

function witnessSigOps(version: number, program: Uint8Array, witness: Uint8Array[]): number {
  if (version !== 0) return 0;
  if (program.length === 20) return 1;
  if (program.length === 32 && witness.length > 0) return sigOps(witness[witness.length - 1]!, true);
  return 0;
}

/** GetTransactionSigOpCost with the standard flags (P2SH and witness). */
function sigOpCost(tx: Tx, spent: TxOut[]): number {
  let legacy = 0;
  for (const i of tx.vin) legacy += sigOps(i.scriptSig, false);
  for (const o of tx.vout) legacy += sigOps(o.script, false);
  let cost = legacy * 4;
  tx.vin.forEach((txin, k) => {
    const spk = spent[k]!.script;
    if (isPayToScriptHash(spk)) {
      const sub = lastPush(txin.scriptSig);
      if (sub) cost += sigOps(sub, true) * 4;
    }
    const wp = witnessProgram(spk);
    if (wp) cost += witnessSigOps(wp.version, wp.program, txin.witness);
    else if (isPayToScriptHash(spk) && isPushOnly(txin.scriptSig)) {
      const sub = lastPush(txin.scriptSig);
      const wp2 = sub && witnessProgram(sub);
      if (wp2) cost += witnessSigOps(wp2.version, wp2.program, txin.witness);
    }
  });
  return cost;
}

/** BTC/kvB of a fee over a size: FeeFrac::EvaluateFeeDown(1000), rounding toward minus infinity. */
function feePerK(fee: bigint, size: number): bigint {
  const num = fee * 1000n;
  const d = BigInt(size);
  const q = num / d;
  return num % d !== 0n && num < 0n ? q - 1n : q;
}

/** AnalyzePSBT. */
export function analyzePsbt(original: Psbt): PsbtAnalysis {
  const p = editablePsbt(original);
  const pre = precompute(p);
  if (!pre) return invalid('PSBT cannot be made into a valid transaction');
  const inputs: InputAnalysis[] = [];
  let calcFee = true;
  let inAmt = 0n;
  for (let i = 0; i < p.inputs.length; i++) {
    const input = p.inputs[i]!;
    const a: InputAnalysis = { has_utxo: false, is_final: false, next: 'extractor' };
    const utxo = getUtxo(input);
    if (utxo) {
      if (!moneyRange(utxo.value) || !moneyRange(inAmt + utxo.value)) return invalid(`PSBT is not valid. Input ${i} has invalid value`);
      inAmt += utxo.value;
      a.has_utxo = true;
    } else {
      if (input.nonWitnessUtxo && input.vout >= input.nonWitnessUtxo.vout.length) return invalid(`PSBT is not valid. Input ${i} specifies invalid prevout`);
      a.next = 'updater';
      calcFee = false;
    }
    if (utxo && isUnspendable(utxo.script)) return invalid(`PSBT is not valid. Input ${i} spends unspendable output`);
    if (!inputSignedAndVerified(p, i, pre.tx, pre.data)) {
      const out = newSigData();
      const complete = signPsbtInput(EMPTY_PROVIDER, p, i, pre, { finalize: true }, out) === 'OK';
      if (!complete) {
        const m: NonNullable<InputAnalysis['missing']> = {};
        if (out.missingPubkeys.length) m.pubkeys = out.missingPubkeys;
        if (out.missingRedeemScript) m.redeemscript = out.missingRedeemScript;
        if (out.missingWitnessScript) m.witnessscript = out.missingWitnessScript;
        if (out.missingSigs.length) m.signatures = out.missingSigs;
        if (Object.keys(m).length) a.missing = m;
        const onlySigs = !out.missingPubkeys.length && !out.missingRedeemScript && !out.missingWitnessScript && out.missingSigs.length > 0;
        a.next = minRole(a.next, onlySigs ? 'signer' : 'updater');
      } else a.next = minRole(a.next, 'finalizer');
    } else if (utxo) a.is_final = true;
    inputs.push(a);
  }
  let next: PsbtRole = 'extractor';
  for (const a of inputs) next = minRole(next, a.next);
  let fee: bigint | undefined;
  let vsize: number | null = null;
  if (calcFee) {
    let outAmt = 0n;
    for (const o of p.outputs) {
      if (!moneyRange(outAmt) || !moneyRange(o.value) || !moneyRange(outAmt + o.value)) outAmt = -1n;
      else outAmt += o.value;
    }
    if (!moneyRange(outAmt)) return invalid('PSBT is not valid. Output amount invalid');
    fee = inAmt - outAmt;
    vsize = estimateVsize(p, pre.tx);
  }
  // Core's key order: inputs, estimated_vsize, estimated_feerate, fee, next.
  const result = {} as PsbtAnalysis;
  if (inputs.length) result.inputs = inputs;
  if (vsize !== null && fee !== undefined) {
    result.estimated_vsize = vsize;
    result.estimated_feerate = formatBtc(feePerK(fee, vsize));
  }
  if (fee !== undefined) result.fee = formatBtc(fee);
  result.next = next;
  return result;
}

/** The signed transaction's vsize with dummy signatures for the missing ones, or null when an input cannot be completed. */
function estimateVsize(p: Psbt, tx: Tx): number | null {
  const spent: TxOut[] = [];
  const vin = tx.vin.map((x) => ({ ...x }));
  for (let i = 0; i < p.inputs.length; i++) {
    const input = p.inputs[i]!;
    if (signPsbtInput(EMPTY_PROVIDER, p, i, { tx, data: null }, { finalize: true }) !== 'OK') return null;
    const u = getUtxo(input);
    if (!u) return null;
    spent.push(u);
    vin[i]!.scriptSig = input.finalScriptSig ?? new Uint8Array(0);
    vin[i]!.witness = input.finalScriptWitness ?? [];
  }
  const signed: Tx = { ...tx, vin };
  const total = serializeTx(signed, { witness: true }).length;
  const stripped = serializeTx(signed, { witness: false }).length;
  const weight = stripped * 3 + total;
  return Math.floor((Math.max(weight, sigOpCost(signed, spent) * 20) + 3) / 4);
}

/** The analysis as compact JSON, amounts written as Core writes them (8 decimals). */
export function analysisJson(a: PsbtAnalysis): string {
  return writeJson({
    ...a,
    ...(a.estimated_feerate !== undefined ? { estimated_feerate: new RawJson(a.estimated_feerate) } : {}),
    ...(a.fee !== undefined ? { fee: new RawJson(a.fee) } : {}),
  });
}

/** analyzepsbt from base64: the analysis, or Core's decode error. */
export function analyzePsbtBase64(base64: string, opts: CoreVersionOption = {}): { ok: true; analysis: PsbtAnalysis } | { ok: false; code: number; error: string } {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, code: -22, error: 'TX decode failed invalid base64' };
  const parsed = parsePsbt(bytes, opts);
  if (!parsed.ok) return { ok: false, code: -22, error: parsed.message };
  return { ok: true, analysis: analyzePsbt(parsed.psbt) };
}
