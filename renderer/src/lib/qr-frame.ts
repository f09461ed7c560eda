// What the camera scanner refuses before sending a frame's text to main: a text longer than any QR code
// can hold (shared/limits.ts) — no signer showed it, and main is not asked to look at it.
import { MAX_QR_TEXT_CHARS } from '../../../shared/limits';

/** Why this frame's text is not sent, in words; null when it may be. */
export function frameRefusal(text: string): string | null {
  if (text.length <= MAX_QR_TEXT_CHARS) return null;
  return `This frame read as ${text.length.toLocaleString('en-US')} characters; a QR code holds at most ${MAX_QR_TEXT_CHARS.toLocaleString('en-US')}, so it is not a QR code of a PSBT. Nothing was sent.`;
}
