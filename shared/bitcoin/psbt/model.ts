/**
 * Reading a PSBT into the model (PartiallySignedTransaction::Unserialize and DecodeRawPSBT,
 * src/psbt.h / psbt.cpp): the global map, then the inputs and outputs, with the rules and error
 * texts of the chosen Core generation. Failures are data: Core's decodepsbt message.
 */
import { ByteReader, StreamError, hexOf, readTx, type ParsedTx } from '../tx';
import { generation, type CoreVersionOption } from './generation';
import { GLOBAL, GLOBAL_KEYS as K, V2_GLOBAL_TYPES } from './keys';
import {
  KeyLookup,
  checkDuplicate,
  checkKey,
  expectedKeySize,
  fail,
  fromVector,
  readKey,
  readKeyOrigin,
  readProprietary,
  readUnknown,
  type ReadCtx,
} from './read-common';
import { readInput } from './read-input';
import { readOutput } from './read-output';
import { isFullyValidPubkey } from './pubkey';
import type { GlobalXpub, KeyOrigin, Proprietary, Psbt, PsbtInput, PsbtOutput } from './types';

/** KeyOriginInfo operator< as a sortable string: fingerprint, path length, path elements. */
export function originSortKey(o: KeyOrigin): string {
  let s = hexOf(o.fp) + o.path.length.toString(16).padStart(8, '0');
  for (const p of o.path) s += p.toString(16).padStart(8, '0');
  return s;
}

/**
 * ComputeTimeLock: a v2 transaction's locktime from its inputs' required locktimes (a height
 * wins over a time when every input allows one), else the fallback, else 0; null when one input
 * needs a time and another a height. A v0 PSBT's is its unsigned transaction's.
 */
export function computeLocktime(p: Pick<Psbt, 'version' | 'fallbackLocktime' | 'inputs'>): number | null {
  if (p.version >= 2) {
    let time: number | null = 0;
    let height: number | null = 0;
    for (const inp of p.inputs) {
      const t = inp.timeLocktime;
      const h = inp.heightLocktime;
      if (t !== undefined && h === undefined) {
        height = null;
        if (time === null) return null;
      } else if (t === undefined && h !== undefined) {
        time = null;
        if (height === null) return null;
      }
      if (t !== undefined && time !== null) time = Math.max(time, t);
      if (h !== undefined && height !== null) height = Math.max(height, h);
    }
    if (height !== null && height > 0) return height;
    if (time !== null && time > 0) return time;
  }
  return p.fallbackLocktime ?? 0;
}

/** Thrown for bytes left after a whole PSBT ("extra data after PSBT", no iostream suffix). */
class ExtraData extends Error {}

interface GlobalMap {
  tx?: ParsedTx;
  version?: number;
  txVersion?: number;
  fallbackLocktime?: number;
  inputCount?: number;
  outputCount?: number;
  txModifiable?: number;
  xpubs: Map<string, { origin: KeyOrigin; xpubs: GlobalXpub[] }>;
  proprietary: Map<string, Proprietary>;
  unknown: Map<string, Uint8Array>;
}

function readXpub(c: ReadCtx, s: ByteReader, key: Uint8Array, g: GlobalMap, seen: Set<string>): void {
  if (c.g.modern) expectedKeySize(key, K.xpub);
  else if (key.length !== 79) fail(K.xpub.v30Size);
  const pub = key.subarray(46, 79);
  // CExtPubKey::Decode drops the key of a depth-0 (master) xpub whose parent fingerprint or
  // child number is not zero (BIP32 test vector 5), so IsFullyValid fails as for a bad point.
  const badMaster = key[5] === 0 && (key[6]! | key[7]! | key[8]! | key[9]! | key[10]! | key[11]! | key[12]! | key[13]!) !== 0;
  if (badMaster || !isFullyValidPubkey(pub)) fail('Invalid pubkey');
  const sort = hexOf(pub) + hexOf(key, 14, 46);
  if (!c.g.modern) {
    if (seen.has(sort)) fail(K.xpub.v30Dup);
    seen.add(sort);
  }
  const origin = readKeyOrigin(s, s.compactSize());
  const ok = originSortKey(origin);
  let e = g.xpubs.get(ok);
  if (!e) {
    e = { origin, xpubs: [] };
    g.xpubs.set(ok, e);
  }
  // A std::set<CExtPubKey> per origin: an equal xpub (same key and chain code) is not added again.
  if (!e.xpubs.some((x) => x.sort === sort)) e.xpubs.push({ key: key.subarray(1), sort });
}

function readGlobal(c: ReadCtx, s: ByteReader): GlobalMap {
  const modern = c.g.modern;
  const g: GlobalMap = { xpubs: new Map(), proprietary: new Map(), unknown: new Map() };
  const lookup = new KeyLookup();
  const seenXpubs = new Set<string>();
  let foundSep = false;
  while (!s.empty) {
    const key = readKey(s);
    if (key.length === 0) {
      foundSep = true;
      break;
    }
    checkDuplicate(c, lookup, key, 'global');
    const skey = new ByteReader(key, 0, key.length, 'SpanReader');
    let type = skey.compactSize();
    if (!modern && V2_GLOBAL_TYPES.has(type)) type = -1; // Core v30: unknown keys
    switch (type) {
      case GLOBAL.UNSIGNED_TX: {
        checkKey(c, lookup, key, K.unsignedTx);
        const t = fromVector(s, () => readTx(s, false));
        g.tx = t;
        for (const txin of t.vin) {
          if (txin.scriptSig.length !== 0 || txin.witness.length !== 0) fail('Unsigned tx does not have empty scriptSigs and scriptWitnesses.');
        }
        break;
      }
      case GLOBAL.XPUB:
        readXpub(c, s, key, g, seenXpubs);
        break;
      case GLOBAL.TX_VERSION:
        expectedKeySize(key, K.txVersion);
        g.txVersion = fromVector(s, () => s.u32());
        break;
      case GLOBAL.FALLBACK_LOCKTIME:
        expectedKeySize(key, K.fallbackLocktime);
        g.fallbackLocktime = fromVector(s, () => s.u32());
        break;
      case GLOBAL.INPUT_COUNT:
        expectedKeySize(key, K.inputCount);
        g.inputCount = fromVector(s, () => s.compactSize());
        break;
      case GLOBAL.OUTPUT_COUNT:
        expectedKeySize(key, K.outputCount);
        g.outputCount = fromVector(s, () => s.compactSize());
        break;
      case GLOBAL.TX_MODIFIABLE:
        expectedKeySize(key, K.txModifiable);
        g.txModifiable = fromVector(s, () => s.u8());
        break;
      case GLOBAL.VERSION: {
        if (modern) expectedKeySize(key, K.version);
        else {
          // Core v30 checks for a repeat by the version being set, before the key's size.
          if (g.version !== undefined) fail(K.version.v30Dup!);
          if (key.length !== 1) fail(K.version.v30Size!);
        }
        const v = fromVector(s, () => s.u32());
        g.version = v;
        if (v > c.g.highestVersion) fail('Unsupported version number');
        break;
      }
      case GLOBAL.PROPRIETARY:
        readProprietary(s, skey, key, g.proprietary);
        break;
      default:
        readUnknown(s, key, g.unknown);
    }
  }
  if (!foundSep) fail('Separator is missing at the end of the global map');
  return g;
}

/** The checks Core ≥ 31.99 makes once the global map is read (Core v30: only the unsigned transaction). */
function checkGlobal(c: ReadCtx, g: GlobalMap): void {
  const v = g.version ?? 0;
  if (v === 0) {
    if (!g.tx) fail('No unsigned transaction was provided');
    if (!c.g.modern) return;
    if (g.txVersion !== undefined) fail('PSBT_GLOBAL_TX_VERSION is not allowed in PSBTv0');
    if (g.fallbackLocktime !== undefined) fail('PSBT_GLOBAL_FALLBACK_LOCKTIME is not allowed in PSBTv0');
    if (g.inputCount !== undefined) fail('PSBT_GLOBAL_INPUT_COUNT is not allowed in PSBTv0');
    if (g.outputCount !== undefined) fail('PSBT_GLOBAL_OUTPUT_COUNT is not allowed in PSBTv0');
    if (g.txModifiable !== undefined) fail('PSBT_GLOBAL_TX_MODIFIABLE is not allowed in PSBTv0');
    return;
  }
  if (v === 1) fail('There is no PSBT version 1');
  if (g.txVersion === undefined) fail('PSBT_GLOBAL_TX_VERSION is required in PSBTv2');
  if (g.inputCount === undefined) fail('PSBT_GLOBAL_INPUT_COUNT is required in PSBTv2');
  if (g.outputCount === undefined) fail('PSBT_GLOBAL_OUTPUT_COUNT is required in PSBTv2');
  if (g.tx) fail('PSBT_GLOBAL_UNSIGNED_TX is not allowed in PSBTv2');
}

/** Core's check that an input's non_witness_utxo is the transaction (and has the output) it spends. */
function checkUtxoMatch(inp: PsbtInput): void {
  const nwu = inp.nonWitnessUtxo;
  if (!nwu) return;
  if (nwu.txid !== inp.prevTxid) fail('Non-witness UTXO does not match outpoint hash');
  if (inp.vout >= nwu.vout.length) fail('Input specifies output index that does not exist');
}

function readPsbt(c: ReadCtx, bytes: Uint8Array): Psbt {
  const s = new ByteReader(bytes, 0, bytes.length, c.g.stream);
  const magic = s.bytes(5);
  if (magic[0] !== 0x70 || magic[1] !== 0x73 || magic[2] !== 0x62 || magic[3] !== 0x74 || magic[4] !== 0xff) {
    fail('Invalid PSBT magic bytes');
  }
  const g = readGlobal(c, s);
  checkGlobal(c, g);
  const version = (g.version ?? 0) as 0 | 2;
  const tx = g.tx;
  const nIn = tx ? tx.vin.length : g.inputCount!;
  const nOut = tx ? tx.vout.length : g.outputCount!;

  const inputs: PsbtInput[] = [];
  for (let i = 0; !s.empty && i < nIn; i++) {
    const input = readInput(c, s, version, tx?.vin[i]);
    inputs.push(input);
    if (c.checkUtxoMatch) checkUtxoMatch(input);
  }
  if (inputs.length !== nIn) fail('Inputs provided does not match the number of inputs in transaction.');
  const outputs: PsbtOutput[] = [];
  for (let i = 0; !s.empty && i < nOut; i++) outputs.push(readOutput(c, s, version, tx?.vout[i]));
  if (outputs.length !== nOut) fail('Outputs provided does not match the number of outputs in transaction.');
  if (!s.empty) throw new ExtraData();

  const fallbackLocktime = tx ? tx.locktime : g.fallbackLocktime;
  const p: Psbt = {
    version,
    txVersion: tx ? tx.version : g.txVersion!,
    ...(fallbackLocktime !== undefined ? { fallbackLocktime } : {}),
    ...(g.txModifiable !== undefined ? { txModifiable: g.txModifiable } : {}),
    locktime: null,
    ...(tx ? { unsignedTx: tx } : {}),
    xpubs: g.xpubs,
    proprietary: g.proprietary,
    unknown: g.unknown,
    inputs,
    outputs,
  };
  p.locktime = computeLocktime(p);
  return p;
}

export interface ParsePsbtOptions extends CoreVersionOption {
  /**
   * Core refuses a non_witness_utxo that is not the transaction the input spends ("Non-witness
   * UTXO does not match outpoint hash", "Input specifies output index that does not exist").
   * False keeps such a PSBT so that a review can show the mismatch (default true).
   */
  checkUtxoMatch?: boolean;
}

export type ParsePsbtResult = { ok: true; psbt: Psbt } | { ok: false; code: -22; message: string };

/** Reads a PSBT's bytes (DecodeRawPSBT) into the model; failures carry decodepsbt's message. */
export function parsePsbt(bytes: Uint8Array, opts: ParsePsbtOptions = {}): ParsePsbtResult {
  const c: ReadCtx = { g: generation(opts.coreVersion), checkUtxoMatch: opts.checkUtxoMatch ?? true, utxoCache: new Map() };
  return parseWith(c, bytes);
}

function parseWith(c: ReadCtx, bytes: Uint8Array): ParsePsbtResult {
  try {
    return { ok: true, psbt: readPsbt(c, bytes) };
  } catch (e) {
    if (e instanceof ExtraData) return { ok: false, code: -22, message: 'TX decode failed extra data after PSBT' };
    if (e instanceof StreamError) return { ok: false, code: -22, message: `TX decode failed ${e.message}: iostream error` };
    throw e;
  }
}
