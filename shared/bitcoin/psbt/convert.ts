/**
 * PSBT version 0 ↔ version 2 over the model, written as Bitcoin Core writes each
 * version (Core ≥ 31.99: `PartiallySignedTransaction(tx, version)` and Serialize).
 *
 * - 0 → 2 always works: the unsigned transaction becomes PSBT_GLOBAL_TX_VERSION, a fallback
 *   locktime (the transaction's nLockTime), the input and output counts, and per input its
 *   previous txid, output index and sequence, per output its amount and script — what Core's
 *   `createpsbt … psbt_version 2` writes for the same transaction. Every other field, proprietary
 *   and unknown ones included, is kept.
 * - 2 → 0 builds the unsigned transaction (GetUnsignedTx, a missing sequence is 0xffffffff) with
 *   the nLockTime BIP370 determines (locktime.ts), as HWI's convert_to_v0 does: the inputs'
 *   required locktimes become that nLockTime and the fallback is replaced by it, and the
 *   transaction-modifiable flags are dropped (a version 0 PSBT cannot be modified) — each said in
 *   a note. Only inputs whose required locktimes exclude each other refuse: no transaction exists.
 *
 * Core writes a finalized input without its signing data (partial signatures, scripts,
 * derivations…): a conversion does the same, as any PSBT Core re-writes.
 */
import { parseTx, serializeTx } from '../tx';
import { decodeBase64Core, encodeBase64 } from './base64';
import { determineLocktime, locktimeConflict, locktimeReason } from './locktime';
import { parsePsbt } from './model';
import { serializePsbt, unsignedTxOf } from './serialize';
import type { Psbt } from './types';

export type PsbtVersion = 0 | 2;

/** `notes`: what version 0 could not keep and how it was carried over (empty when nothing was lost). */
export type ConvertResult = { ok: true; psbt: Psbt; notes: string[] } | { ok: false; message: string };

/** Why a version 2 PSBT has no version 0 form (null: it has one): inputs requiring conflicting locktimes. */
export function v0Obstacle(p: Pick<Psbt, 'inputs' | 'fallbackLocktime'>): string | null {
  const d = determineLocktime(p.inputs, p.fallbackLocktime);
  return d.ok ? null : `Cannot convert to PSBT version 0: ${locktimeConflict(d)}`;
}

/** What a conversion to version 0 carries over in another form, in words. */
function v0Notes(p: Psbt, locktime: number): string[] {
  const notes: string[] = [];
  const d = determineLocktime(p.inputs, p.fallbackLocktime);
  if (d.ok && d.rule !== 'fallback') {
    notes.push(`The inputs' required locktimes became the transaction's nLockTime ${locktime}: ${locktimeReason(d)}. Version 0 has no per-input locktime fields, so they are not kept.`);
  }
  const m = p.txModifiable;
  if (m !== undefined && m !== 0) {
    const flags = [m & 1 ? 'inputs modifiable' : '', m & 2 ? 'outputs modifiable' : '', m & 4 ? 'has SIGHASH_SINGLE' : '', m & ~7 ? `other bits 0x${(m & ~7).toString(16).padStart(2, '0')}` : '']
      .filter(Boolean)
      .join(', ');
    notes.push(`The transaction-modifiable flags (PSBT_GLOBAL_TX_MODIFIABLE: ${flags}) were dropped: a version 0 PSBT's transaction cannot be modified.`);
  }
  return notes;
}

/** The model of the same PSBT at the other version (the same model when it is at `to` already). */
export function convertPsbt(p: Psbt, to: PsbtVersion): ConvertResult {
  if (to !== 0 && to !== 2) return { ok: false, message: `The PSBT version can only be 2 or 0 (not ${String(to)})` };
  if (p.version === to) return { ok: true, psbt: p, notes: [] };
  if (to === 2) {
    return {
      ok: true,
      notes: [],
      psbt: {
        ...p,
        version: 2,
        fallbackLocktime: p.locktime ?? 0,
        unsignedTx: undefined,
        inputs: p.inputs.map((i) => ({ ...i, hasSequence: true })),
      },
    };
  }
  const d = determineLocktime(p.inputs, p.fallbackLocktime);
  if (!d.ok) return { ok: false, message: `Cannot convert to PSBT version 0: ${locktimeConflict(d)}` };
  const tx = unsignedTxOf({ ...p, locktime: d.locktime })!;
  const unsignedTx = parseTx(serializeTx(tx, { witness: false }), { allowWitness: false });
  const { txModifiable: _flags, ...rest } = p;
  return {
    ok: true,
    notes: v0Notes(p, tx.locktime),
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

export type ConvertBytesResult = { ok: true; bytes: Uint8Array; notes: string[] } | { ok: false; message: string };

/**
 * Converts a PSBT's bytes (read with current Core's rules) to version `to`, written as Core writes
 * it. Errors: Core's decodepsbt message for a PSBT it cannot read, else why it cannot convert.
 */
export function convertPsbtBytes(bytes: Uint8Array, to: PsbtVersion): ConvertBytesResult {
  const r = parsePsbt(bytes);
  if (!r.ok) return { ok: false, message: r.message };
  const c = convertPsbt(r.psbt, to);
  if (!c.ok) return c;
  return { ok: true, bytes: serializePsbt(c.psbt), notes: c.notes };
}

/** {@link convertPsbtBytes} from and to base64 (Core's DecodeBase64 / EncodeBase64). */
export function convertPsbtBase64(base64: string, to: PsbtVersion): { ok: true; base64: string; notes: string[] } | { ok: false; message: string } {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, message: 'TX decode failed invalid base64' };
  const r = convertPsbtBytes(bytes, to);
  return r.ok ? { ok: true, base64: encodeBase64(r.bytes), notes: r.notes } : r;
}
