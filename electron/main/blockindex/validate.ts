// Shape validation of the block index's replies (shared/spec/index-api.md §1–3, §6, §7). Required keys
// and their JSON types are checked, extra keys are ignored (the server adds keys over time). Anything
// else — not JSON, not an envelope, a missing key, a wrong type, an amount that is not an integer — is
// an AppError 'index.bad_reply' that says what was wrong; no TypeError ever leaks from here.
import { AppError } from '../../../shared/errors';
import { redactGeneric } from '../../../shared/redact';
import type {
  IndexBlock,
  IndexTransaction,
  IndexTxIn,
  IndexTxOut,
  IndexUtxo,
  WireErrorBody,
} from './types';

type Obj = Record<string, unknown>;
type Check<T> = (v: unknown, path: string) => T;

const COINBASE_PREV = '0'.repeat(64);
const COINBASE_VOUT = 4294967295;

/** The error for a reply that is not what the spec describes. `endpoint` is e.g. "GET /v1/blockchain/block/5". */
export function badReply(endpoint: string, what: string): AppError {
  return new AppError('index.bad_reply', `The index's reply to ${endpoint} is not what a bitaps-style index sends: ${what}.`, { endpoint });
}

/**
 * A short, single-line, printable excerpt of a reply body for messages (never the whole body). It is
 * redacted (shared/redact.ts: credentials a proxy may echo) before it is cut, so a cut never leaves
 * the start of a secret behind.
 */
export function excerpt(text: string, max = 100): string {
  // eslint-disable-next-line no-control-regex
  const flat = redactGeneric(text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** How a JSON value looks, for "… is X, not Y" messages. */
export function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return `the string "${excerpt(v, 24)}"`;
    case 'number':
      return `the number ${String(v)}`;
    case 'boolean':
      return `the boolean ${String(v)}`;
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

/** Parses a body as JSON; a body that is not JSON is a bad reply that quotes its beginning. */
export function parseJson(body: string, endpoint: string): unknown {
  if (body.trim() === '') throw badReply(endpoint, 'the body is empty');
  try {
    return JSON.parse(body) as unknown;
  } catch (e) {
    const cut = e instanceof SyntaxError && /end of (JSON|data) input|Unterminated|Unexpected end/i.test(e.message);
    if (/^\s*</.test(body)) throw badReply(endpoint, `it is an HTML page, not JSON (${excerpt(htmlText(body))})`);
    throw badReply(endpoint, `${cut ? 'its JSON is cut off' : 'it is not valid JSON'} ("${excerpt(body, 60)}")`);
  }
}

/** The visible text of an HTML page (its title if it has one), for messages. */
export function htmlText(body: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1];
  if (title && title.trim()) return title.trim();
  return body.replace(/<[^>]*>/g, ' ');
}

/** The `data` of a `{data, time}` envelope. */
export function envelopeData(body: unknown, endpoint: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badReply(endpoint, `the body is ${describe(body)}, not a {"data", "time"} object`);
  }
  const o = body as Obj;
  if (!Object.hasOwn(o, 'data')) {
    const err = errorBodyOf(o);
    throw badReply(endpoint, err ? `data is missing (the body is an error: error_code ${err.error_code}, "${excerpt(err.message, 60)}")` : 'data is missing');
  }
  if (Object.hasOwn(o, 'time') && (typeof o.time !== 'number' || !Number.isFinite(o.time))) {
    throw badReply(endpoint, `time is ${describe(o.time)}, not a number`);
  }
  return o.data;
}

/** The bitaps error body `{error_code, message, details}` if `body` is one (lenient on `details`), else null. */
export function errorBodyOf(body: unknown): WireErrorBody | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const o = body as Obj;
  if (typeof o.error_code !== 'number' || !Number.isInteger(o.error_code) || typeof o.message !== 'string') return null;
  return { error_code: o.error_code, message: o.message, details: typeof o.details === 'string' ? o.details : '' };
}

/** Parses an error reply's body (400/404/500); null when it is not a bitaps error body. Never throws. */
export function parseErrorBody(body: string): WireErrorBody | null {
  try {
    return errorBodyOf(JSON.parse(body) as unknown);
  } catch {
    return null;
  }
}

// ---------- field checks ----------

class Shape {
  constructor(readonly endpoint: string) {}

  fail(what: string): never {
    throw badReply(this.endpoint, what);
  }

  object(v: unknown, path: string): Obj {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(`${path} is ${describe(v)}, not an object`);
    return v as Obj;
  }

  array(v: unknown, path: string): unknown[] {
    if (!Array.isArray(v)) this.fail(`${path} is ${describe(v)}, not an array`);
    return v;
  }

  /** A required key. */
  need<T>(o: Obj, key: string, path: string, check: Check<T>): T {
    if (!Object.hasOwn(o, key) || o[key] === undefined) this.fail(`${path}.${key} is missing`);
    return check(o[key], `${path}.${key}`);
  }

  /** A key the server may omit: null when absent. */
  opt<T>(o: Obj, key: string, path: string, check: Check<T>): T | null {
    if (!Object.hasOwn(o, key) || o[key] === undefined) return null;
    return check(o[key], `${path}.${key}`);
  }

  nullable<T>(check: Check<T>): Check<T | null> {
    return (v, path) => (v === null ? null : check(v, path));
  }

  int = (v: unknown, path: string): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) this.fail(`${path} is ${describe(v)}, not a non-negative integer`);
    return v;
  };

  /** Header version: signed 32-bit as the node reports it (also accept the unsigned form). */
  int32 = (v: unknown, path: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < -0x80000000 || v > 0xffffffff) this.fail(`${path} is ${describe(v)}, not a 32-bit integer`);
    return v;
  };

  uint32 = (v: unknown, path: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) this.fail(`${path} is ${describe(v)}, not a 32-bit unsigned integer`);
    return v;
  };

  /** Satoshis: a non-negative JSON integer, exact in a double. */
  sats = (v: unknown, path: string): bigint => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) this.fail(`${path} is ${describe(v)}, not an amount in satoshis (a non-negative integer)`);
    return BigInt(v);
  };

  num = (v: unknown, path: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(`${path} is ${describe(v)}, not a number`);
    return v;
  };

  bool = (v: unknown, path: string): boolean => {
    if (typeof v !== 'boolean') this.fail(`${path} is ${describe(v)}, not true or false`);
    return v;
  };

  str = (v: unknown, path: string): string => {
    if (typeof v !== 'string') this.fail(`${path} is ${describe(v)}, not a string`);
    return v;
  };

  /** Hex of any even length (scripts, witness items); lowercased. */
  hex = (v: unknown, path: string): string => {
    const s = this.str(v, path);
    if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) this.fail(`${path} is ${describe(v)}, not hex`);
    return s.toLowerCase();
  };

  /** A 32-byte hash as 64 hex chars; lowercased. */
  hash = (v: unknown, path: string): string => {
    const s = this.str(v, path);
    if (!/^[0-9a-fA-F]{64}$/.test(s)) this.fail(`${path} is ${describe(v)}, not a 64-character hex hash`);
    return s.toLowerCase();
  };

  base64 = (v: unknown, path: string): string => {
    const s = this.str(v, path);
    if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) this.fail(`${path} is ${describe(v)}, not base64`);
    return s;
  };

  /** `vIn`/`vOut`: an object keyed "0", "1", … "n-1" (any key order); returned in index order. */
  indexed(v: unknown, path: string): [number, Obj, string][] {
    const o = this.object(v, path);
    const keys = Object.keys(o);
    const out: [number, Obj, string][] = [];
    for (const k of keys) {
      if (!/^(0|[1-9][0-9]*)$/.test(k) || Number(k) >= keys.length) this.fail(`${path} has the key "${excerpt(k, 12)}"; expected keys "0" to "${keys.length - 1}"`);
      const p = `${path}["${k}"]`;
      out.push([Number(k), this.object(o[k], p), p]);
    }
    return out.sort((a, b) => a[0] - b[0]);
  }
}

// ---------- records ----------

/** Validates `data` of `GET /v1/blockchain/block/<pointer>` (spec §2). */
export function validateBlock(data: unknown, endpoint: string): IndexBlock {
  const s = new Shape(endpoint);
  const p = 'data';
  const o = s.object(data, p);
  const miner = (v: unknown, path: string): { name: string; link: string } => {
    const m = s.object(v, path);
    return { name: s.need(m, 'name', path, s.str), link: s.need(m, 'link', path, s.str) };
  };
  return {
    height: s.need(o, 'height', p, s.int),
    hash: s.need(o, 'hash', p, s.hash),
    header: s.need(o, 'header', p, s.base64),
    version: s.need(o, 'version', p, s.int32),
    previousBlockHash: s.need(o, 'previousBlockHash', p, s.nullable(s.hash)),
    merkleRoot: s.need(o, 'merkleRoot', p, s.hash),
    bits: s.need(o, 'bits', p, s.uint32),
    nonce: s.need(o, 'nonce', p, s.uint32),
    weight: s.need(o, 'weight', p, s.int),
    size: s.need(o, 'size', p, s.int),
    strippedSize: s.need(o, 'strippedSize', p, s.int),
    amount: s.need(o, 'amount', p, s.sats),
    target: s.need(o, 'target', p, s.hash),
    miner: s.need(o, 'miner', p, s.nullable(miner)),
    medianBlockTime: s.need(o, 'medianBlockTime', p, s.int),
    blockTime: s.need(o, 'blockTime', p, s.int),
    receivedTimestamp: s.need(o, 'receivedTimestamp', p, s.int),
    adjustedTimestamp: s.need(o, 'adjustedTimestamp', p, s.int),
    bitsHex: s.need(o, 'bitsHex', p, s.hex),
    nonceHex: s.need(o, 'nonceHex', p, s.hex),
    versionHex: s.need(o, 'versionHex', p, s.str),
    difficulty: s.need(o, 'difficulty', p, s.num),
    blockDifficulty: s.need(o, 'blockDifficulty', p, s.num),
    nextBlockHash: s.need(o, 'nextBlockHash', p, s.nullable(s.hash)),
    estimatedBlockReward: s.need(o, 'estimatedBlockReward', p, s.sats),
    blockReward: s.need(o, 'blockReward', p, s.sats),
    blockFeeReward: s.need(o, 'blockFeeReward', p, s.sats),
    confirmations: s.need(o, 'confirmations', p, s.int),
    transactionsCount: s.need(o, 'transactionsCount', p, s.int),
    coinbase: s.need(o, 'coinbase', p, s.hex),
  };
}

function txIn(s: Shape, index: number, o: Obj, p: string): IndexTxIn {
  const txId = s.need(o, 'txId', p, s.hash);
  const vOut = s.need(o, 'vOut', p, s.uint32);
  const common = {
    index,
    txId,
    vOut,
    scriptSig: s.need(o, 'scriptSig', p, s.hex),
    sequence: s.need(o, 'sequence', p, s.uint32),
    txInWitness: s.opt(o, 'txInWitness', p, (v, path) => s.array(v, path).map((w, i) => s.hex(w, `${path}[${i}]`))),
  };
  if (txId === COINBASE_PREV && vOut === COINBASE_VOUT) {
    return {
      ...common,
      coinbase: true,
      scriptSigOpcodes: s.opt(o, 'scriptSigOpcodes', p, s.str),
      scriptSigAsm: s.opt(o, 'scriptSigAsm', p, s.str),
      type: null,
      amount: null,
      blockHeight: null,
      confirmations: null,
      address: null,
      scriptPubKey: null,
      scriptPubKeyOpcodes: null,
      scriptPubKeyAsm: null,
    };
  }
  return {
    ...common,
    coinbase: false,
    scriptSigOpcodes: s.need(o, 'scriptSigOpcodes', p, s.str),
    scriptSigAsm: s.need(o, 'scriptSigAsm', p, s.str),
    type: s.need(o, 'type', p, s.str),
    amount: s.need(o, 'amount', p, s.sats),
    blockHeight: s.need(o, 'blockHeight', p, s.nullable(s.int)),
    confirmations: s.need(o, 'confirmations', p, s.nullable(s.int)),
    address: s.opt(o, 'address', p, s.str),
    scriptPubKey: s.need(o, 'scriptPubKey', p, s.hex),
    scriptPubKeyOpcodes: s.need(o, 'scriptPubKeyOpcodes', p, s.str),
    scriptPubKeyAsm: s.need(o, 'scriptPubKeyAsm', p, s.str),
  };
}

function txOut(s: Shape, index: number, o: Obj, p: string): IndexTxOut {
  const spender = (v: unknown, path: string): { txId: string; vIn: number } => {
    const x = s.object(v, path);
    return { txId: s.need(x, 'txId', path, s.hash), vIn: s.need(x, 'vIn', path, s.int) };
  };
  return {
    index,
    value: s.need(o, 'value', p, s.sats),
    scriptPubKey: s.need(o, 'scriptPubKey', p, s.hex),
    nType: s.need(o, 'nType', p, s.int),
    type: s.need(o, 'type', p, s.str),
    addressHash: s.opt(o, 'addressHash', p, s.hex),
    reqSigs: s.opt(o, 'reqSigs', p, s.nullable(s.int)),
    address: s.opt(o, 'address', p, s.str),
    scriptPubKeyOpcodes: s.need(o, 'scriptPubKeyOpcodes', p, s.str),
    scriptPubKeyAsm: s.need(o, 'scriptPubKeyAsm', p, s.str),
    spent: s.need(o, 'spent', p, (v, path) => s.array(v, path).map((x, i) => spender(x, `${path}[${i}]`))),
  };
}

/** Validates `data` of `GET /v1/blockchain/transaction/<txid>` (spec §3). */
export function validateTransaction(data: unknown, endpoint: string): IndexTransaction {
  const s = new Shape(endpoint);
  const p = 'data';
  const o = s.object(data, p);
  const vIn = s.need(o, 'vIn', p, (v, path) => s.indexed(v, path).map(([i, x, xp]) => txIn(s, i, x, xp)));
  const vOut = s.need(o, 'vOut', p, (v, path) => s.indexed(v, path).map(([i, x, xp]) => txOut(s, i, x, xp)));
  if (vIn.length === 0) s.fail('data.vIn is empty');
  return {
    txId: s.need(o, 'txId', p, s.hash),
    hash: s.need(o, 'hash', p, s.hash),
    segwit: s.need(o, 'segwit', p, s.bool),
    rbf: s.need(o, 'rbf', p, s.bool),
    version: s.need(o, 'version', p, s.uint32),
    size: s.need(o, 'size', p, s.int),
    vSize: s.need(o, 'vSize', p, s.int),
    bSize: s.need(o, 'bSize', p, s.int),
    weight: s.need(o, 'weight', p, s.int),
    lockTime: s.need(o, 'lockTime', p, s.uint32),
    vIn,
    vOut,
    blockHash: s.need(o, 'blockHash', p, s.nullable(s.hash)),
    blockHeight: s.need(o, 'blockHeight', p, s.nullable(s.int)),
    blockIndex: s.need(o, 'blockIndex', p, s.nullable(s.int)),
    blockTime: s.need(o, 'blockTime', p, s.nullable(s.int)),
    adjustedTimestamp: s.need(o, 'adjustedTimestamp', p, s.nullable(s.int)),
    confirmations: s.need(o, 'confirmations', p, s.nullable(s.int)),
    time: s.need(o, 'time', p, s.int),
    coinbase: s.need(o, 'coinbase', p, s.bool),
    data: s.need(o, 'data', p, s.nullable(s.hex)),
    amount: s.need(o, 'amount', p, s.sats),
    inputsAmount: s.need(o, 'inputsAmount', p, s.sats),
    outputsAmount: s.need(o, 'outputsAmount', p, s.sats),
    fee: s.need(o, 'fee', p, s.sats),
    feeRate: s.need(o, 'feeRate', p, s.num),
    valid: s.need(o, 'valid', p, s.bool),
    flag: s.opt(o, 'flag', p, s.str),
    merkleProof: s.opt(o, 'merkleProof', p, s.base64),
    mempoolRank: s.opt(o, 'mempoolRank', p, s.int),
    rawTx: s.opt(o, 'rawTx', p, s.base64),
  };
}

/** Validates `data` of `GET /v1/blockchain/address/utxo/<address>` (spec §6). */
export function validateUtxoList(data: unknown, endpoint: string): IndexUtxo[] {
  const s = new Shape(endpoint);
  return s.array(data, 'data').map((v, i) => {
    const p = `data[${i}]`;
    const o = s.object(v, p);
    return {
      txId: s.need(o, 'txId', p, s.hash),
      vOut: s.need(o, 'vOut', p, s.uint32),
      block: s.need(o, 'block', p, s.int),
      txIndex: s.need(o, 'txIndex', p, s.int),
      amount: s.need(o, 'amount', p, s.sats),
      type: s.opt(o, 'type', p, s.str),
    };
  });
}

// ---------- whole replies (body text → record) ----------

export function parseBlockReply(body: string, endpoint: string): IndexBlock {
  return validateBlock(envelopeData(parseJson(body, endpoint), endpoint), endpoint);
}

/**
 * A record the server marks `"valid": false` is a transaction that lost a double spend: its block
 * fields are absent and it is in neither the chain nor the mempool (spec §3.4). The wallet treats it
 * as gone: `index.not_found`, saying why, instead of a reply that fails the record's shape.
 */
export function parseTransactionReply(body: string, endpoint: string): IndexTransaction {
  const data = envelopeData(parseJson(body, endpoint), endpoint);
  if (typeof data === 'object' && data !== null && (data as Obj).valid === false) {
    const txid = (data as Obj).txId;
    const which = typeof txid === 'string' && /^[0-9a-f]{64}$/i.test(txid) ? `transaction ${txid.toLowerCase()}` : 'this transaction';
    throw new AppError('index.not_found', `The index marks ${which} invalid: it lost a double spend, so it is in neither the chain nor the mempool.`, { endpoint, status: 200 });
  }
  return validateTransaction(data, endpoint);
}

export function parseUtxoReply(body: string, endpoint: string): IndexUtxo[] {
  return validateUtxoList(envelopeData(parseJson(body, endpoint), endpoint), endpoint);
}
