// Shape validation of the block index's replies (shared/spec/index-api.md §1–3, §6, §7). Required keys
// and their JSON types are checked, extra keys are ignored (the server adds keys over time). Anything
// else — not JSON, not an envelope, a missing key, a wrong type, an amount that is not an integer — is
// an AppError 'index.bad_reply' that says what was wrong; no TypeError ever leaks from here.
// The body's JSON and envelope are read by reply-body.ts, the field checks are shape.ts's.
import { AppError } from '../../../shared/errors';
import type {
  IndexBlock,
  IndexTransaction,
  IndexTxIn,
  IndexTxOut,
  IndexUtxo,
} from './types';
import { envelopeData, parseJson, type Obj } from './reply-body';
import { Shape } from './shape';

const COINBASE_PREV = '0'.repeat(64);
const COINBASE_VOUT = 4294967295;

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
