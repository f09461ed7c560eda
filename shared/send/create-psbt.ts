/**
 * The PSBT creator, offline, as Bitcoin Core's `createpsbt` writes it: the unsigned transaction
 * (inputs with empty scriptSigs, outputs, nVersion, nLockTime) in a version 0 PSBT with empty input
 * and output maps (PartiallySignedTransaction(tx)), or — psbt_version 2, current Core's default —
 * the same PSBT converted (PSBT_GLOBAL_TX_VERSION, the fallback locktime, counts, per-input previous
 * txid, index and sequence, per-output amount and script), which is exactly what the converter
 * writes for a version 0 PSBT (convert.ts). Byte-identical to the node's reply for the same inputs,
 * outputs, locktime, sequences and versions (test/send/create-psbt.test.ts, against the recordings).
 */
import { convertPsbt, parsePsbt, serializePsbt, type Psbt, type PsbtVersion } from '../bitcoin/psbt';
import { serializeTx, type Tx } from '../bitcoin/tx';

/** Core's nSequence values (primitives/transaction.h, util/rbf.h). */
export const SEQUENCE_FINAL = 0xffffffff;
export const MAX_SEQUENCE_NONFINAL = 0xfffffffe;
export const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;

export interface UnsignedTxSpec {
  /** nVersion (Core's createpsbt default: 2). */
  version: number;
  locktime: number;
  inputs: ReadonlyArray<{ txid: string; vout: number; sequence: number }>;
  outputs: ReadonlyArray<{ script: Uint8Array; value: bigint }>;
}

/**
 * Core's createrawtransaction sequence rule for an input without an explicit `sequence`: RBF
 * signalling (the default) → 0xfffffffd; else a locktime → 0xfffffffe (so it applies); else final.
 */
export function defaultSequence(replaceable: boolean, locktime: number): number {
  if (replaceable) return MAX_BIP125_RBF_SEQUENCE;
  return locktime !== 0 ? MAX_SEQUENCE_NONFINAL : SEQUENCE_FINAL;
}

export function unsignedTx(spec: UnsignedTxSpec): Tx {
  return {
    version: spec.version,
    locktime: spec.locktime,
    vin: spec.inputs.map((i) => ({ prevTxid: i.txid, vout: i.vout, scriptSig: new Uint8Array(0), sequence: i.sequence, witness: [] })),
    vout: spec.outputs.map((o) => ({ value: o.value, script: o.script })),
  };
}

function compactSize(n: number): number[] {
  if (n < 253) return [n];
  if (n <= 0xffff) return [253, n & 0xff, n >>> 8];
  return [254, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
}

/** The version 0 PSBT of an unsigned transaction, as bytes: magic, the transaction, empty maps. */
function v0Bytes(spec: UnsignedTxSpec): Uint8Array {
  const tx = serializeTx(unsignedTx(spec), { witness: false });
  const head = [0x70, 0x73, 0x62, 0x74, 0xff, 0x01, 0x00, ...compactSize(tx.length)];
  const out = new Uint8Array(head.length + tx.length + 1 + spec.inputs.length + spec.outputs.length);
  out.set(head, 0);
  out.set(tx, head.length);
  // the global map's separator, then one empty map (a lone separator) per input and per output
  return out;
}

/** createpsbt's PSBT as the model (throws on a spec no PSBT can hold, e.g. no inputs). */
export function createPsbt(spec: UnsignedTxSpec, psbtVersion: PsbtVersion): Psbt {
  if (spec.inputs.length === 0) throw new RangeError('a PSBT needs at least one input');
  const parsed = parsePsbt(v0Bytes(spec));
  if (!parsed.ok) throw new Error(`internal: the created PSBT does not parse: ${parsed.message}`);
  const converted = convertPsbt(parsed.psbt, psbtVersion);
  if (!converted.ok) throw new Error(`internal: ${converted.message}`);
  return converted.psbt;
}

/** createpsbt's reply as bytes (serialized as Core writes it). */
export function createPsbtBytes(spec: UnsignedTxSpec, psbtVersion: PsbtVersion): Uint8Array {
  return serializePsbt(createPsbt(spec, psbtVersion));
}
