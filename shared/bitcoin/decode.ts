/**
 * Core's TxToUniv (core_write.cpp) and decoderawtransaction (rpc/rawtransaction.cpp, with
 * core_read.cpp DecodeHexTx / DecodeTx), Bitcoin Core v30.
 */
import { btcJson } from '../amounts';
import { isHex, fromHex } from './hex';
import type { Network } from './networks';
import { getScriptOp, MAX_SCRIPT_SIZE, OP_NOP10, scriptToAsm } from './script';
import { scriptToUniv } from './script-univ';
import { hexOf, isCoinBase, parseTx, type ParsedTx, type TxOut } from './tx';

const toHex = (b: Uint8Array): string => hexOf(b);

/** Per-call memo of ScriptToUniv(include_hex, include_address) results keyed by script hex. */
export type ScriptUnivCache = Map<string, Record<string, unknown>>;

function scriptPubKeyUniv(script: Uint8Array, network: Network, cache?: ScriptUnivCache): Record<string, unknown> {
  if (!cache) return scriptToUniv(script, { includeHex: true, includeAddress: true, network });
  const key = toHex(script);
  let v = cache.get(key);
  if (!v) {
    v = scriptToUniv(script, { includeHex: true, includeAddress: true, network });
    cache.set(key, v);
  }
  return v;
}

/** `{amount, scriptPubKey}` as decodepsbt shows a witness_utxo. */
export function txOutUniv(out: TxOut, network: Network, cache?: ScriptUnivCache): Record<string, unknown> {
  return { amount: btcJson(out.value), scriptPubKey: scriptPubKeyUniv(out.script, network, cache) };
}

/**
 * TxToUniv(tx, block_hash = null, include_hex = false): keys txid, hash, version, size, vsize,
 * weight, locktime, vin, vout. Amounts are RawJson tokens (write with writeJson).
 */
export function decodeRawTransactionJson(tx: ParsedTx, network: Network, cache?: ScriptUnivCache): Record<string, unknown> {
  const coinbase = isCoinBase(tx);
  const vin: Record<string, unknown>[] = new Array<Record<string, unknown>>(tx.vin.length);
  for (let i = 0; i < tx.vin.length; i++) {
    const txin = tx.vin[i]!;
    const o: Record<string, unknown> = {};
    if (coinbase) {
      o.coinbase = toHex(txin.scriptSig);
    } else {
      o.txid = txin.prevTxid;
      o.vout = txin.vout;
      o.scriptSig =
        txin.scriptSig.length === 0 ? { asm: '', hex: '' } : { asm: scriptToAsm(txin.scriptSig, true), hex: toHex(txin.scriptSig) };
    }
    if (txin.witness.length > 0) o.txinwitness = txin.witness.map((w) => toHex(w));
    o.sequence = txin.sequence;
    vin[i] = o;
  }
  const vout: Record<string, unknown>[] = new Array<Record<string, unknown>>(tx.vout.length);
  for (let i = 0; i < tx.vout.length; i++) {
    const out = tx.vout[i]!;
    vout[i] = { value: btcJson(out.value), n: i, scriptPubKey: scriptPubKeyUniv(out.script, network, cache) };
  }
  return {
    txid: tx.txid,
    hash: tx.wtxid,
    version: tx.version,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.locktime,
    vin,
    vout,
  };
}

/** CScript::HasValidOps: every op parses and none is above OP_NOP10 (MAX_OPCODE). */
function hasValidOps(script: Uint8Array): boolean {
  let pc = 0;
  while (pc < script.length) {
    const r = getScriptOp(script, pc);
    if (!r.ok || r.op > OP_NOP10) return false;
    pc = r.next;
  }
  return true;
}

/** core_read.cpp CheckTxScriptsSanity. */
function checkTxScriptsSanity(tx: ParsedTx): boolean {
  if (!isCoinBase(tx)) {
    for (const i of tx.vin) {
      if (!hasValidOps(i.scriptSig) || i.scriptSig.length > MAX_SCRIPT_SIZE) return false;
    }
  }
  for (const o of tx.vout) {
    if (!hasValidOps(o.script) || o.script.length > MAX_SCRIPT_SIZE) return false;
  }
  return true;
}

function tryParse(bytes: Uint8Array, allowWitness: boolean): ParsedTx | null {
  try {
    return parseTx(bytes, { allowWitness });
  } catch {
    return null;
  }
}

/**
 * core_read.cpp DecodeHexTx(hex, try_no_witness, try_witness): IsHex, then the extended and
 * legacy decodings (each must consume every byte), preferring the one whose scripts pass
 * CheckTxScriptsSanity, the extended one on a tie. Null when nothing decodes.
 */
export function decodeHexTx(hex: string, tryNoWitness = true, tryWitness = true): ParsedTx | null {
  if (!isHex(hex)) return null;
  const bytes = fromHex(hex);
  const ext = tryWitness ? tryParse(bytes, true) : null;
  if (ext && checkTxScriptsSanity(ext)) return ext;
  const legacy = tryNoWitness ? tryParse(bytes, false) : null;
  if (legacy && checkTxScriptsSanity(legacy)) return legacy;
  if (ext) return ext;
  if (legacy) return legacy;
  return null;
}

export type DecodeRawTransactionResult =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; code: -22; message: string };

/**
 * decoderawtransaction "hexstring" ( iswitness ). `iswitness` undefined tries both
 * serializations; true only the extended one; false only the legacy one.
 * Failure: -22 "TX decode failed".
 */
export function decodeRawTransaction(hex: string, network: Network, iswitness?: boolean): DecodeRawTransactionResult {
  const tryWitness = iswitness === undefined ? true : iswitness;
  const tryNoWitness = iswitness === undefined ? true : !iswitness;
  const tx = decodeHexTx(hex, tryNoWitness, tryWitness);
  if (!tx) return { ok: false, code: -22, message: 'TX decode failed' };
  return { ok: true, result: decodeRawTransactionJson(tx, network) };
}
