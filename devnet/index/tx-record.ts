/**
 * The transaction record of the devnet index (spec sections 3.1–3.5, shared/spec/index-api.md) from
 * the devnet ChainView: inputs with their spent outputs, outputs with their spenders, fee, merkle
 * proof (shared/bitcoin/merkle.ts) or mempool rank.
 */
import { base64 } from '@scure/base';
import type { ChainTx, ChainView, OutputInfo } from '../chain/types';
import { REGTEST, type Network } from '../../shared/bitcoin/networks';
import { merkleProof } from '../../shared/bitcoin/merkle';
import { ADDRESS_TYPES, firstNullData, infoAddress, parseScript, scriptAsm, scriptOpcodes, toHex } from './pybtc';
import { PyFloat, pyRound } from './pyjson';
import { adjustedTimestamp } from './block-record';
import { num, sumOutputs, type Rec } from './records';

function scriptRenderings(prefix: 'scriptSig' | 'scriptPubKey', script: Uint8Array): Rec {
  return { [`${prefix}Opcodes`]: scriptOpcodes(script), [`${prefix}Asm`]: scriptAsm(script) };
}

export function outputRecord(view: ChainView, tx: ChainTx, index: number, network: Network = REGTEST): Rec {
  const out = tx.vout[index];
  if (!out) throw new RangeError(`no output ${index}`);
  const info = parseScript(out.script);
  const rec: Rec = {
    value: num(out.value),
    scriptPubKey: toHex(out.script),
    nType: info.nType,
    type: info.type,
  };
  if (ADDRESS_TYPES.has(info.nType) && info.addressHash) {
    rec.addressHash = toHex(info.addressHash);
    rec.reqSigs = info.reqSigs;
    rec.address = infoAddress(info, network);
  }
  Object.assign(rec, scriptRenderings('scriptPubKey', out.script));
  rec.spent = view.spenders(tx.txid, index).map((s) => ({ txId: s.txid, vIn: s.vin }));
  return rec;
}

function inputRecord(view: ChainView, tx: ChainTx, index: number, tip: number, network: Network): { rec: Rec; amount: bigint } {
  const vin = tx.vin[index];
  if (!vin) throw new RangeError(`no input ${index}`);
  const rec: Rec = {
    txId: vin.txid,
    vOut: vin.vout >>> 0,
    scriptSig: toHex(vin.scriptSig),
    sequence: vin.sequence >>> 0,
  };
  if (tx.segwit) rec.txInWitness = vin.witness.map(toHex);
  if (tx.coinbase) return { rec, amount: 0n };
  const prev: OutputInfo | undefined = view.output(vin.txid, vin.vout);
  if (!prev) throw new Error(`spent output ${vin.txid}:${vin.vout} not found`);
  const info = parseScript(prev.script);
  Object.assign(rec, scriptRenderings('scriptSig', vin.scriptSig));
  rec.type = info.type;
  rec.amount = num(prev.value);
  rec.blockHeight = prev.height;
  rec.confirmations = prev.height === null ? null : tip - prev.height + 1;
  const address = infoAddress(info, network);
  if (address !== undefined) rec.address = address;
  rec.scriptPubKey = toHex(prev.script);
  Object.assign(rec, scriptRenderings('scriptPubKey', prev.script));
  return { rec, amount: prev.value };
}

export interface TxRecordOptions {
  /** Add `rawTx` (base64 of the raw tx), as with `?raw_tx=True`. */
  readonly rawTx?: boolean;
  readonly network?: Network;
}

/** Transaction record (spec 3.1–3.5) for a confirmed or mempool tx, or undefined when unknown. */
export function txRecord(view: ChainView, txid: string, opts: TxRecordOptions = {}): Rec | undefined {
  const found = view.findTx(txid);
  if (!found) return undefined;
  return txRecordOf(view, found, opts);
}

export function txRecordOf(
  view: ChainView,
  found: NonNullable<ReturnType<ChainView['findTx']>>,
  opts: TxRecordOptions = {},
): Rec {
  const network = opts.network ?? REGTEST;
  const { tx, block, index, firstSeen } = found;
  const tip = view.tipHeight();
  const vIn: Record<string, Rec> = {};
  let inputsAmount = 0n;
  tx.vin.forEach((_, i) => {
    const { rec, amount } = inputRecord(view, tx, i, tip, network);
    vIn[String(i)] = rec;
    inputsAmount += amount;
  });
  const vOut: Record<string, Rec> = {};
  tx.vout.forEach((_, i) => {
    vOut[String(i)] = outputRecord(view, tx, i, network);
  });
  const amount = sumOutputs(tx);
  const fee = tx.coinbase ? 0n : inputsAmount - amount;
  const vSize = Math.ceil(tx.weight / 4);
  const confirmed = block !== null && index !== null;
  const rec: Rec = {
    segwit: tx.segwit,
    rbf: tx.vin.some((v) => v.sequence >>> 0 < 0xfffffffe),
    txId: tx.txid,
    hash: tx.wtxid,
    version: tx.version >>> 0,
    size: tx.size,
    vSize,
    bSize: tx.strippedSize,
    lockTime: tx.locktime >>> 0,
    vIn,
    vOut,
  };
  if (opts.rawTx) rec.rawTx = base64.encode(tx.raw);
  Object.assign(rec, {
    blockHash: confirmed ? block.hash : null,
    confirmations: confirmed ? tip - block.height + 1 : null,
    time: firstSeen,
    blockTime: confirmed ? block.time : null,
    blockIndex: confirmed ? index : null,
    coinbase: tx.coinbase,
    fee: num(fee),
    data: firstNullData(tx.vout.map((o) => o.script)),
    amount: num(amount),
  });
  if (tx.segwit) rec.flag = '01';
  Object.assign(rec, {
    weight: tx.weight,
    inputsAmount: num(inputsAmount),
    outputsAmount: num(amount),
    blockHeight: confirmed ? block.height : null,
    adjustedTimestamp: confirmed ? adjustedTimestamp(view, block) : null,
  });
  if (confirmed) {
    rec.merkleProof = merkleProof(
      block.txs.map((t) => t.txid),
      index,
    );
  } else {
    const rank = view.mempoolByFeeRate().indexOf(tx.txid);
    if (rank >= 0) rec.mempoolRank = rank + 1;
  }
  rec.valid = true;
  rec.feeRate = new PyFloat(vSize > 0 ? pyRound(num(fee) / vSize, 2) : 0);
  return rec;
}
