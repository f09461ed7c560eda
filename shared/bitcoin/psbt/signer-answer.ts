/**
 * What a signer hands back: a PSBT (base64, hex or binary; version 0 or 2) or a signed raw
 * transaction (hex, or the binary `.txn` several signers save). Recognising the second, and saying
 * in words why something is neither, with Core's own text kept beside it for the detail line.
 */
import { fromHex } from '../hex';
import { parseTx, serializeTx, type ParsedTx } from '../tx';
import { decodeBase64Core } from './base64';

const MAGIC = [0x70, 0x73, 0x62, 0x74, 0xff];

/** The bytes start with the PSBT magic ("psbt" and 0xff). */
export function hasPsbtMagic(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
}

export interface RawTxAnswer {
  bytes: Uint8Array;
  tx: ParsedTx;
  /** Some input carries a scriptSig or a witness. */
  signed: boolean;
  /** The txid of the transaction without its scriptSigs and witnesses: the unsigned transaction a draft holds. */
  unsignedTxid: string;
}

/** A whole raw transaction (at least one input and one output, no byte left over), else null. */
export function readRawTx(bytes: Uint8Array): RawTxAnswer | null {
  if (bytes.length < 10 || hasPsbtMagic(bytes)) return null;
  let tx: ParsedTx;
  try {
    tx = parseTx(bytes);
  } catch {
    return null;
  }
  if (tx.vin.length === 0 || tx.vout.length === 0) return null;
  const signed = tx.vin.some((i) => i.scriptSig.length > 0 || i.witness.length > 0);
  const stripped = serializeTx({ ...tx, vin: tx.vin.map((i) => ({ ...i, scriptSig: new Uint8Array(0), witness: [] })) }, { witness: false });
  return { bytes, tx, signed, unsignedTxid: parseTx(stripped).txid };
}

/** A raw transaction written as hex or base64 text (a PSBT's text is never one), else null. */
export function rawTxFromText(text: string): RawTxAnswer | null {
  const t = text.trim();
  if (t.length === 0) return null;
  if (/^[0-9a-fA-F]+$/.test(t)) return t.length % 2 === 0 ? readRawTx(fromHex(t)) : null;
  const bytes = decodeBase64Core(t);
  return bytes ? readRawTx(bytes) : null;
}

export const SIGNED_TX_NOT_PSBT = 'This is a signed transaction, not a PSBT: open it on its draft to broadcast.';

/**
 * The first line a person reads for Core's decodepsbt error `core` on `bytes` (null when the text
 * was not even base64 or hex): a signed or unsigned raw transaction, bytes that are no PSBT, a PSBT
 * cut short. Null when Core's text is the clearest there is.
 */
export function explainPsbtError(core: string, bytes: Uint8Array | null): string | null {
  if (bytes && core.includes('Invalid PSBT magic bytes')) {
    const raw = readRawTx(bytes);
    if (raw?.signed) return SIGNED_TX_NOT_PSBT;
    if (raw) return 'This is an unsigned raw transaction, not a PSBT: make a PSBT of it (Bitcoin Core’s converttopsbt) to review it.';
    const head = Array.from(bytes.subarray(0, 5), (b) => b.toString(16).padStart(2, '0')).join(' ');
    return `This is not a PSBT: a PSBT starts with the bytes 70 73 62 74 ff (“psbt” and 0xff), this starts with ${head || 'nothing'}.`;
  }
  if (bytes && core.includes('end of data')) {
    return `The PSBT is cut short after ${bytes.length.toLocaleString('en-US')} ${bytes.length === 1 ? 'byte' : 'bytes'}: it ends in the middle of a field. Copy or save it again whole.`;
  }
  return null;
}
