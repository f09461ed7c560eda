/**
 * Bitcoin Core v30 `createrawtransaction`, ported from src/rpc/rawtransaction_util.cpp
 * (ConstructTransaction, AddInputs, NormalizeOutputs, ParseOutputs, AddOutputs) and the RPC body in
 * src/rpc/rawtransaction.cpp. Validation order and every error text follow Core:
 *
 *   replaceable (get_bool) → version (getInt<uint32_t>) → locktime → version range → inputs →
 *   outputs (normalize, then per key: data | amount before address, duplicates) → RBF contradiction.
 *
 * Arguments are UniValue-like ({@link UValue}) so number text and duplicate object keys survive.
 * The result is the legacy serialization (inputs carry no witness), as EncodeHexTx writes it.
 */
import { parseFixedPoint, moneyRange } from '../amounts';
import { U_NULL, UTYPE_NAME, uGet, type UValue, type UType } from '../json';
import type { Network } from './networks';
import { decodeDestination } from './address';
import { fromHex, isHex, toHex } from './hex';
import { SEQUENCE_FINAL } from './locktime';

export interface CreateRawTransactionArgs {
  inputs: UValue;
  outputs: UValue;
  locktime?: UValue;
  replaceable?: UValue;
  version?: UValue;
}

export type CreateRawTransactionResult =
  | { ok: true; hex: string }
  | { ok: false; code: number; message: string };

/** RPC error codes used here (src/rpc/protocol.h). */
const RPC_MISC_ERROR = -1;
const RPC_TYPE_ERROR = -3;
const RPC_INVALID_ADDRESS_OR_KEY = -5;
const RPC_INVALID_PARAMETER = -8;

const MAX_SEQUENCE_NONFINAL = 0xfffffffe;
const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;
const LOCKTIME_MAX = 0xffffffffn;
const TX_MIN_STANDARD_VERSION = 1;
const TX_MAX_STANDARD_VERSION = 3;
const DEFAULT_RAWTX_VERSION = 2;

class CrtError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** UniValue::checkType: a type_error, reported by the RPC layer as -3. */
function expectType(v: UValue, t: UType): void {
  if (v.t !== t) {
    throw new CrtError(RPC_TYPE_ERROR, `JSON value of type ${UTYPE_NAME[v.t]} is not of expected type ${UTYPE_NAME[t]}`);
  }
}

const INT_RANGES = {
  int: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
} as const;

/**
 * UniValue::getInt<T>: checkType(VNUM), then std::from_chars over the whole number text. A fraction,
 * an exponent, a sign on an unsigned type or a value outside T is "JSON integer out of range" (-1).
 */
function getInt(v: UValue, kind: keyof typeof INT_RANGES): bigint {
  expectType(v, 'num');
  const text = (v as { v: string }).v;
  const re = kind === 'uint32' ? /^[0-9]+$/ : /^-?[0-9]+$/;
  if (!re.test(text)) throw new CrtError(RPC_MISC_ERROR, 'JSON integer out of range');
  const n = BigInt(text);
  const [lo, hi] = INT_RANGES[kind];
  if (n < lo || n > hi) throw new CrtError(RPC_MISC_ERROR, 'JSON integer out of range');
  return n;
}

/** UniValue::getValStr: number text, string value, "1" for true, "" otherwise. */
function getValStr(v: UValue): string {
  switch (v.t) {
    case 'num':
    case 'str':
      return v.v;
    case 'bool':
      return v.v ? '1' : '';
    default:
      return '';
  }
}

const utf8 = new TextEncoder();

/** ParseHashV(v, name): a 32-byte hash from 64 hex digits, returned in internal byte order. */
function parseHashV(v: UValue, name: string): Uint8Array {
  expectType(v, 'str');
  const s = (v as { v: string }).v;
  if (s.length === 64 && isHex(s)) return fromHex(s).reverse();
  const byteLength = utf8.encode(s).length; // std::string::length() counts bytes
  if (byteLength !== 64) {
    throw new CrtError(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${byteLength}, for '${s}')`);
  }
  throw new CrtError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${s}')`);
}

/** AmountFromValue(value, 8): satoshis from the exact JSON text. */
function amountFromValue(v: UValue): bigint {
  if (v.t !== 'num' && v.t !== 'str') throw new CrtError(RPC_TYPE_ERROR, 'Amount is not a number or string');
  const sats = parseFixedPoint(v.v, 8);
  if (sats === null) throw new CrtError(RPC_TYPE_ERROR, 'Invalid amount');
  if (!moneyRange(sats)) throw new CrtError(RPC_TYPE_ERROR, 'Amount out of range');
  return sats;
}

interface TxIn {
  hash: Uint8Array; // internal byte order
  n: number;
  sequence: number;
}

interface TxOut {
  value: bigint;
  script: Uint8Array;
}

/** CScript() << OP_RETURN << data (plain push, as CScript::operator<<(vector) writes it). */
function nullDataScript(data: Uint8Array): Uint8Array {
  const len = data.length;
  let head: number[];
  if (len < 0x4c) head = [len];
  else if (len <= 0xff) head = [0x4c, len];
  else if (len <= 0xffff) head = [0x4d, len & 0xff, len >>> 8];
  else head = [0x4e, len & 0xff, (len >>> 8) & 0xff, (len >>> 16) & 0xff, len >>> 24];
  const out = new Uint8Array(1 + head.length + len);
  out[0] = 0x6a;
  out.set(head, 1);
  out.set(data, 1 + head.length);
  return out;
}

function addInputs(inputsIn: UValue, rbf: boolean | undefined, locktime: number): TxIn[] {
  const inputs: UValue[] = inputsIn.t === 'null' ? [] : (expectType(inputsIn, 'arr'), (inputsIn as { v: UValue[] }).v);
  const vin: TxIn[] = [];
  for (const input of inputs) {
    expectType(input, 'obj');
    const hash = parseHashV(uGet(input, 'txid') ?? U_NULL, 'txid');

    const voutV = uGet(input, 'vout') ?? U_NULL;
    if (voutV.t !== 'num') throw new CrtError(RPC_INVALID_PARAMETER, 'Invalid parameter, missing vout key');
    const nOutput = getInt(voutV, 'int');
    if (nOutput < 0n) throw new CrtError(RPC_INVALID_PARAMETER, 'Invalid parameter, vout cannot be negative');

    let sequence: number;
    if (rbf ?? true) sequence = MAX_BIP125_RBF_SEQUENCE;
    else if (locktime !== 0) sequence = MAX_SEQUENCE_NONFINAL;
    else sequence = SEQUENCE_FINAL;

    const seqV = uGet(input, 'sequence');
    if (seqV !== undefined && seqV.t === 'num') {
      const seq = getInt(seqV, 'int64');
      if (seq < 0n || seq > BigInt(SEQUENCE_FINAL)) {
        throw new CrtError(RPC_INVALID_PARAMETER, 'Invalid parameter, sequence number is out of range');
      }
      sequence = Number(seq);
    }
    vin.push({ hash, n: Number(nOutput), sequence });
  }
  return vin;
}

/** NormalizeOutputs: the dictionary of outputs, keeping duplicate keys in order. */
function normalizeOutputs(outputsIn: UValue): { k: string[]; v: UValue[] } {
  if (outputsIn.t === 'null') {
    throw new CrtError(RPC_INVALID_PARAMETER, 'Invalid parameter, output argument must be non-null');
  }
  if (outputsIn.t === 'obj') return { k: outputsIn.k, v: outputsIn.v };
  expectType(outputsIn, 'arr');
  const k: string[] = [];
  const v: UValue[] = [];
  for (const output of (outputsIn as { v: UValue[] }).v) {
    if (output.t !== 'obj') {
      throw new CrtError(RPC_INVALID_PARAMETER, 'Invalid parameter, key-value pair not an object as expected');
    }
    if (output.k.length !== 1) {
      throw new CrtError(RPC_INVALID_PARAMETER, 'Invalid parameter, key-value pair must contain exactly one key');
    }
    k.push(...output.k);
    v.push(...output.v);
  }
  return { k, v };
}

/** ParseOutputs + AddOutputs. `outputs[name]` in Core is the FIRST value stored under that key. */
function addOutputs(outputsIn: UValue, network: Network): TxOut[] {
  const outputs = normalizeOutputs(outputsIn);
  const first = (name: string): UValue => outputs.v[outputs.k.indexOf(name)] ?? U_NULL;
  const destinations = new Set<string>();
  const vout: TxOut[] = [];
  let hasData = false;
  for (const name of outputs.k) {
    if (name === 'data') {
      if (hasData) throw new CrtError(RPC_INVALID_PARAMETER, 'Invalid parameter, duplicate key: data');
      hasData = true;
      const text = getValStr(first(name));
      if (!isHex(text)) throw new CrtError(RPC_INVALID_PARAMETER, `Data must be hexadecimal string (not '${text}')`);
      vout.push({ value: 0n, script: nullDataScript(fromHex(text)) });
    } else {
      const decoded = decodeDestination(name, network);
      const amount = amountFromValue(first(name));
      if (!decoded.ok) throw new CrtError(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Bitcoin address: ${name}`);
      const script = decoded.script;
      const key = toHex(script);
      if (destinations.has(key)) {
        throw new CrtError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated address: ${name}`);
      }
      destinations.add(key);
      vout.push({ value: amount, script });
    }
  }
  return vout;
}

class ByteWriter {
  private parts: number[] = [];
  u8(x: number): this {
    this.parts.push(x & 0xff);
    return this;
  }
  u32(x: number): this {
    for (let i = 0; i < 4; i++) this.parts.push((x >>> (8 * i)) & 0xff);
    return this;
  }
  u64(x: bigint): this {
    const v = BigInt.asUintN(64, x);
    for (let i = 0n; i < 8n; i++) this.parts.push(Number((v >> (8n * i)) & 0xffn));
    return this;
  }
  compactSize(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff) return this.u8(0xfd).u8(n).u8(n >>> 8);
    if (n <= 0xffffffff) return this.u8(0xfe).u32(n);
    return this.u8(0xff).u64(BigInt(n));
  }
  bytes(b: Uint8Array): this {
    for (const x of b) this.parts.push(x);
    return this;
  }
  finish(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

function serialize(version: number, vin: TxIn[], vout: TxOut[], locktime: number): Uint8Array {
  const w = new ByteWriter().u32(version).compactSize(vin.length);
  for (const i of vin) w.bytes(i.hash).u32(i.n).compactSize(0).u32(i.sequence);
  w.compactSize(vout.length);
  for (const o of vout) w.u64(o.value).compactSize(o.script.length).bytes(o.script);
  return w.u32(locktime).finish();
}

function construct(args: CreateRawTransactionArgs, network: Network): string {
  // RPC body: rbf = params[3].get_bool() when not null, then self.Arg<uint32_t>("version").
  let rbf: boolean | undefined;
  if (args.replaceable !== undefined && args.replaceable.t !== 'null') {
    expectType(args.replaceable, 'bool');
    rbf = (args.replaceable as { v: boolean }).v;
  }
  const version =
    args.version !== undefined && args.version.t !== 'null' ? Number(getInt(args.version, 'uint32')) : DEFAULT_RAWTX_VERSION;

  // ConstructTransaction
  let locktime = 0;
  if (args.locktime !== undefined && args.locktime.t !== 'null') {
    const lt = getInt(args.locktime, 'int64');
    if (lt < 0n || lt > LOCKTIME_MAX) throw new CrtError(RPC_INVALID_PARAMETER, 'Invalid parameter, locktime out of range');
    locktime = Number(lt);
  }
  if (version < TX_MIN_STANDARD_VERSION || version > TX_MAX_STANDARD_VERSION) {
    throw new CrtError(
      RPC_INVALID_PARAMETER,
      `Invalid parameter, version out of range(${TX_MIN_STANDARD_VERSION}~${TX_MAX_STANDARD_VERSION})`,
    );
  }
  const vin = addInputs(args.inputs, rbf, locktime);
  const vout = addOutputs(args.outputs, network);
  if (rbf === true && vin.length > 0 && !vin.some((i) => i.sequence <= MAX_BIP125_RBF_SEQUENCE)) {
    throw new CrtError(
      RPC_INVALID_PARAMETER,
      'Invalid parameter combination: Sequence number(s) contradict replaceable option',
    );
  }
  return toHex(serialize(version, vin, vout, locktime));
}

/**
 * Builds the unsigned transaction exactly as Core v30's createrawtransaction does, or returns the
 * RPC error (code and message) Core would answer with.
 */
export function createRawTransaction(args: CreateRawTransactionArgs, network: Network): CreateRawTransactionResult {
  try {
    return { ok: true, hex: construct(args, network) };
  } catch (e) {
    if (e instanceof CrtError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}
