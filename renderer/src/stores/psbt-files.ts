// PSBT text from files and bytes back, for the PSBT review store (stores/psbt.ts, which re-exports
// these): a binary .psbt becomes base64 (recognised by the magic bytes 70 73 62 74 ff), a binary raw
// transaction hex, anything else UTF-8 text; sizes are checked before anything is sent to main.
import type { IpcError } from '../../../shared/errors';
import { LIMITS } from '../../../shared/limits';
import { readRawTx } from '../../../shared/bitcoin/psbt/signer-answer';

/** The psbt channels accept at most this many characters of text (shared/ipc/contract.ts). */
export const MAX_PSBT_TEXT = LIMITS.psbt.chars;
/** A file larger than this is not read at all. */
export const MAX_PSBT_FILE = LIMITS.psbt.chars;
export const PSBT_MAGIC = Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff);

export type PsbtSource =
  | { kind: 'paste'; chars: number }
  /** Opened from a draft's page ("Open in Review PSBT"): the draft's PSBT as main exported it. */
  | { kind: 'draft'; name: string; version: 0 | 2 }
  | { kind: 'file' | 'drop'; name: string; size: number; binary: boolean };

/** The file starts with the PSBT magic bytes: a binary .psbt, not base64 or hex text. */
export function isBinaryPsbt(bytes: Uint8Array): boolean {
  if (bytes.length < PSBT_MAGIC.length) return false;
  for (let i = 0; i < PSBT_MAGIC.length; i++) if (bytes[i] !== PSBT_MAGIC[i]) return false;
  return true;
}

/** Standard base64 with padding (btoa over chunks: a 10 MB PSBT must not overflow the call stack). */
export function bytesToBase64(bytes: Uint8Array): string {
  const CHUNK = 0x6000; // a multiple of 3: every chunk but the last encodes without padding
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const sub = bytes.subarray(i, i + CHUNK);
    let s = '';
    for (let j = 0; j < sub.length; j++) s += String.fromCharCode(sub[j]!);
    parts.push(btoa(s));
  }
  return parts.join('');
}

/** The bytes of base64 text (main's `base64`, already checked by Core's strict decoder). */
export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** A size in MiB for the limit messages ("10.0 MB"). */
export const MB = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} MB`;

/** An input.invalid error on the psbt field, made here (nothing was sent to main). */
export function localError(message: string, detail: IpcError['detail'] = {}): IpcError {
  return { code: 'input.invalid', message, detail: { field: 'psbt', ...detail } };
}

const hexOfBytes = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** The pickers' file types: PSBTs (binary, base64, hex) and signed raw transactions (binary `.txn` or hex). */
export const SIGNER_FILE_ACCEPT = '.psbt,.txn,.txt,.hex,.b64,.base64,application/octet-stream,text/plain';

/**
 * The text of a file a signer wrote: a binary PSBT → base64; a binary raw transaction (a `.txn`) →
 * hex (main recognises it as a transaction); else UTF-8 text (base64 or hex), BOM removed.
 */
export function fileToPsbtText(bytes: Uint8Array, name: string): { ok: true; text: string; binary: boolean } | { ok: false; error: IpcError } {
  if (!isBinaryPsbt(bytes) && readRawTx(bytes)) return { ok: true, text: hexOfBytes(bytes), binary: true };
  if (isBinaryPsbt(bytes)) {
    const b64Length = 4 * Math.ceil(bytes.length / 3);
    if (b64Length > MAX_PSBT_TEXT) {
      return { ok: false, error: localError(`“${name}” is a binary PSBT of ${MB(bytes.length)}; as base64 it would be ${MB(b64Length)}, above the ${MB(MAX_PSBT_TEXT)} Spyglass accepts.`, { limit: MAX_PSBT_TEXT }) };
    }
    return { ok: true, text: bytesToBase64(bytes), binary: true };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = '\u0000';
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text)) {
    const head = Array.from(bytes.subarray(0, 5), (b) => b.toString(16).padStart(2, '0')).join(' ');
    return {
      ok: false,
      error: localError(`“${name}” is not a PSBT or a signed transaction: a binary PSBT starts with the bytes 70 73 62 74 ff (“psbt” and 0xff), this file starts with ${head || 'nothing'}; it is no raw transaction, and not base64 or hex text either.`),
    };
  }
  return { ok: true, text, binary: false };
}

/** A file name for the export: the loaded file's stem, else spyglass-<txid prefix>. */
export function exportStem(source: PsbtSource | null, txid: string): string {
  if (source && (source.kind === 'file' || source.kind === 'drop')) {
    const stem = source.name.replace(/\.(psbt|txt|b64|base64|hex)$/i, '').replace(/\.(psbt|base64)$/i, '');
    // eslint-disable-next-line no-control-regex
    const clean = stem.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').trim();
    if (clean !== '') return clean;
  }
  return `spyglass-${txid.slice(0, 12)}`;
}
