/**
 * PSBT version 0 ↔ version 2 over the model, losslessly, written as Bitcoin Core writes each
 * version (Core ≥ 31.99: `PartiallySignedTransaction(tx, version)` and Serialize).
 *
 * - 0 → 2 always works: the unsigned transaction becomes PSBT_GLOBAL_TX_VERSION, a fallback
 *   locktime (the transaction's nLockTime), the input and output counts, and per input its
 *   previous txid, output index and sequence, per output its amount and script — what Core's
 *   `createpsbt … psbt_version 2` writes for the same transaction. Every other field, proprietary
 *   and unknown ones included, is kept.
 * - 2 → 0 builds the unsigned transaction (GetUnsignedTx: nLockTime from ComputeTimeLock, a
 *   missing sequence is 0xffffffff). It refuses what version 0 cannot hold: inputs whose required
 *   locktimes exclude each other (no transaction exists), per-input required locktimes (version 0
 *   would keep only the one locktime they lead to), and modifiable-transaction flags that allow
 *   anything (a version 0 PSBT cannot be modified).
 *
 * Core writes a finalized input without its signing data (partial signatures, scripts,
 * derivations…): a conversion does the same, as any PSBT Core re-writes.
 */
import { parseTx, serializeTx } from '../tx';
import { decodeBase64Core, encodeBase64 } from './base64';
import { parsePsbt } from './model';
import { serializePsbt, unsignedTxOf } from './serialize';
import type { Psbt } from './types';

export type PsbtVersion = 0 | 2;

export type ConvertResult = { ok: true; psbt: Psbt } | { ok: false; message: string };

const list = (xs: number[]): string => {
  const shown = xs.slice(0, 5).map((i) => `#${i}`).join(', ');
  return xs.length > 5 ? `${shown} and ${xs.length - 5} more` : shown;
};

/** Why a version 2 PSBT has no version 0 form (null: it has one). */
export function v0Obstacle(p: Psbt): string | null {
  const timeOnly = p.inputs.findIndex((i) => i.timeLocktime !== undefined && i.heightLocktime === undefined);
  const heightOnly = p.inputs.findIndex((i) => i.heightLocktime !== undefined && i.timeLocktime === undefined);
  if (p.locktime === null) {
    return `Cannot convert to PSBT version 0: input #${timeOnly} requires a time-based locktime and input #${heightOnly} a height-based one, so no locktime satisfies every input and the transaction cannot be built`;
  }
  const locked = p.inputs.flatMap((i, k) => (i.timeLocktime !== undefined || i.heightLocktime !== undefined ? [k] : []));
  if (locked.length > 0) {
    return `Cannot convert to PSBT version 0 without losing information: ${locked.length === 1 ? 'input' : 'inputs'} ${list(locked)} ${locked.length === 1 ? 'requires' : 'require'} a locktime (PSBT_IN_REQUIRED_TIME_LOCKTIME / PSBT_IN_REQUIRED_HEIGHT_LOCKTIME), which version 0 cannot carry: it would keep only the transaction's locktime ${p.locktime}`;
  }
  if (p.txModifiable !== undefined && p.txModifiable !== 0) {
    const m = p.txModifiable;
    const flags = [m & 1 ? 'inputs modifiable' : '', m & 2 ? 'outputs modifiable' : '', m & 4 ? 'has SIGHASH_SINGLE' : '', m & ~7 ? `other bits 0x${(m & ~7).toString(16).padStart(2, '0')}` : '']
      .filter(Boolean)
      .join(', ');
    return `Cannot convert to PSBT version 0 without losing information: the transaction-modifiable flags (PSBT_GLOBAL_TX_MODIFIABLE: ${flags}) have no version 0 form`;
  }
  return null;
}

/** The model of the same PSBT at the other version (the same model when it is at `to` already). */
export function convertPsbt(p: Psbt, to: PsbtVersion): ConvertResult {
  if (to !== 0 && to !== 2) return { ok: false, message: `The PSBT version can only be 2 or 0 (not ${String(to)})` };
  if (p.version === to) return { ok: true, psbt: p };
  if (to === 2) {
    return {
      ok: true,
      psbt: {
        ...p,
        version: 2,
        fallbackLocktime: p.locktime ?? 0,
        unsignedTx: undefined,
        inputs: p.inputs.map((i) => ({ ...i, hasSequence: true })),
      },
    };
  }
  const why = v0Obstacle(p);
  if (why) return { ok: false, message: why };
  const tx = unsignedTxOf(p)!;
  const unsignedTx = parseTx(serializeTx(tx, { witness: false }), { allowWitness: false });
  const { txModifiable: _flags, ...rest } = p;
  return {
    ok: true,
    psbt: {
      ...rest,
      version: 0,
      fallbackLocktime: tx.locktime,
      locktime: tx.locktime,
      unsignedTx,
      inputs: p.inputs.map((i, k) => ({ ...i, prevHash: unsignedTx.vin[k]!.prevHash!, hasSequence: true, timeLocktime: undefined, heightLocktime: undefined })),
    },
  };
}

export type ConvertBytesResult = { ok: true; bytes: Uint8Array } | { ok: false; message: string };

/**
 * Converts a PSBT's bytes (read with current Core's rules) to version `to`, written as Core writes
 * it. Errors: Core's decodepsbt message for a PSBT it cannot read, else why it cannot convert.
 */
export function convertPsbtBytes(bytes: Uint8Array, to: PsbtVersion): ConvertBytesResult {
  const r = parsePsbt(bytes);
  if (!r.ok) return { ok: false, message: r.message };
  const c = convertPsbt(r.psbt, to);
  if (!c.ok) return c;
  return { ok: true, bytes: serializePsbt(c.psbt) };
}

/** {@link convertPsbtBytes} from and to base64 (Core's DecodeBase64 / EncodeBase64). */
export function convertPsbtBase64(base64: string, to: PsbtVersion): { ok: true; base64: string } | { ok: false; message: string } {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, message: 'TX decode failed invalid base64' };
  const r = convertPsbtBytes(bytes, to);
  return r.ok ? { ok: true, base64: encodeBase64(r.bytes) } : r;
}
