// Review PSBT's refusals in words: a signed raw transaction (recognised, and matched to its draft),
// bytes that are no PSBT, a PSBT cut short — each with Core's exact decodepsbt text as the detail.
import { AppError } from '../../../shared/errors';
import { explainPsbtError, rawTxFromText, SIGNED_TX_NOT_PSBT, type PsbtEncoding, type RawTxAnswer } from '../../../shared/bitcoin/psbt';
import type { DraftStore } from '../send/drafts-store';

/** The draft (of this profile) whose unsigned transaction the raw transaction is. */
function draftOf(drafts: DraftStore | undefined, pid: string | null, raw: RawTxAnswer): { id: string; name: string } | null {
  if (!drafts || !pid) return null;
  const d = drafts.byUnsignedTxid(pid, raw.unsignedTxid);
  return d ? { id: d.id, name: d.name } : null;
}

/**
 * Refuses a raw transaction given to the review (hex or base64 text; a binary `.txn` arrives as hex),
 * naming the draft it belongs to. `core`: what Core's decodepsbt says of the same text.
 */
export function refuseRawTx(text: string, encoding: PsbtEncoding, core: () => string, drafts: DraftStore | undefined, pid: string | null): void {
  if (encoding === 'base64' && /^[0-9a-fA-F]+$/.test(text.trim())) return; // asked to read it as base64: Core's rules
  const raw = rawTxFromText(text);
  if (!raw) return;
  const d = draftOf(drafts, pid, raw);
  const detail = { coreCode: -22, field: 'psbt', rawTx: true, signed: raw.signed, txid: raw.tx.txid, core: core(), draftId: d?.id ?? null, draftName: d?.name ?? null };
  if (!raw.signed) throw new AppError('input.invalid', explainPsbtError('Invalid PSBT magic bytes', raw.bytes)!, detail);
  const where = d ? `It belongs to your draft “${d.name}”.` : 'No draft of this profile has this transaction: it was composed elsewhere, or its draft was deleted.';
  throw new AppError('input.invalid', `${SIGNED_TX_NOT_PSBT} ${where}`, detail);
}

/** Core's decodepsbt refusal, in words first when there are better ones; Core's text stays the detail. */
export function corePsbtError(message: string, bytes: Uint8Array | null): AppError {
  return new AppError('input.invalid', explainPsbtError(message, bytes) ?? message, { coreCode: -22, field: 'psbt', core: message });
}
