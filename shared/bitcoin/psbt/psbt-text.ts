/** A pasted or loaded PSBT's text as bytes: base64 (Core's strict DecodeBase64) or hex. */
import { fromHex, isHex } from '../hex';
import { decodeBase64Core } from './base64';

export type PsbtEncoding = 'auto' | 'base64' | 'hex';

export type PsbtTextResult =
  | { ok: true; bytes: Uint8Array; encoding: 'base64' | 'hex' }
  | { ok: false; message: string; encoding: 'base64' | 'hex' };

const HEX_MAGIC = '70736274ff';

/**
 * A pasted or loaded PSBT as bytes: surrounding whitespace trimmed, then base64 (Core's strict
 * DecodeBase64) or hex. `auto` takes hex when the text is hex starting with the PSBT magic
 * (70736274ff), base64 otherwise. Base64 failures carry Core's decodepsbt text.
 */
export function psbtTextToBytes(text: string, encoding: PsbtEncoding = 'auto'): PsbtTextResult {
  const t = text.trim();
  const enc = encoding === 'auto' ? (t.length >= 10 && t.slice(0, 10).toLowerCase() === HEX_MAGIC && /^[0-9a-fA-F]*$/.test(t) ? 'hex' : 'base64') : encoding;
  if (enc === 'hex') {
    if (t.length % 2 !== 0) return { ok: false, encoding: enc, message: `The hex text has an odd number of digits (${t.length}).` };
    if (t.length > 0 && !isHex(t)) {
      const bad = t.search(/[^0-9a-fA-F]/);
      return { ok: false, encoding: enc, message: `The hex text has a character that is not a hex digit at position ${bad + 1}.` };
    }
    return { ok: true, encoding: enc, bytes: fromHex(t) };
  }
  const bytes = decodeBase64Core(t);
  if (!bytes) return { ok: false, encoding: enc, message: 'TX decode failed invalid base64' };
  return { ok: true, encoding: enc, bytes };
}
