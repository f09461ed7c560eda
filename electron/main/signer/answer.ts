// What a device's signtx answer is checked for before anything is kept (issue #30, "What you review is
// what you sign"): the same transaction as the draft's — every input, sequence, output, amount, version
// and locktime — else it is refused and the difference is named.
import { parsePsbt, psbtTextToBytes, unsignedTxOf, type Psbt } from '../../../shared/bitcoin/psbt';
import type { Tx } from '../../../shared/bitcoin/tx';
import { formatBtc } from '../../../shared/amounts';
import { SignerError } from './errors';

const hexOf = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** The differences between two unsigned transactions, in words (empty: the same). */
export function txDifferences(draft: Tx, answer: Tx): string[] {
  const d: string[] = [];
  if (draft.version !== answer.version) d.push(`the version ${draft.version} became ${answer.version}`);
  if (draft.locktime !== answer.locktime) d.push(`the locktime ${draft.locktime} became ${answer.locktime}`);
  if (draft.vin.length !== answer.vin.length) d.push(`${draft.vin.length} inputs became ${answer.vin.length}`);
  if (draft.vout.length !== answer.vout.length) d.push(`${draft.vout.length} outputs became ${answer.vout.length}`);
  draft.vin.forEach((a, i) => {
    const b = answer.vin[i];
    if (!b) return;
    if (a.prevTxid !== b.prevTxid || a.vout !== b.vout) d.push(`input ${i} spends ${b.prevTxid.slice(0, 16)}…:${b.vout} instead of ${a.prevTxid.slice(0, 16)}…:${a.vout}`);
    if (a.sequence !== b.sequence) d.push(`input ${i}'s sequence 0x${a.sequence.toString(16)} became 0x${b.sequence.toString(16)}`);
  });
  draft.vout.forEach((a, i) => {
    const b = answer.vout[i];
    if (!b) return;
    if (a.value !== b.value) d.push(`output ${i}'s amount ${formatBtc(a.value)} BTC became ${formatBtc(b.value)} BTC`);
    if (hexOf(a.script) !== hexOf(b.script)) d.push(`output ${i} pays another script (${hexOf(b.script).slice(0, 24)}… instead of ${hexOf(a.script).slice(0, 24)}…)`);
  });
  return d;
}

/** The device's PSBT read and held against the draft's transaction; refused (and named) when it differs. */
export function checkAnswer(draft: Psbt, text: string, device: string): { psbt: Psbt; base64: string } {
  const t = psbtTextToBytes(text, 'base64');
  if (!t.ok) throw new SignerError('garbage', `${device}'s answer is not a PSBT: ${t.message}. Nothing was kept.`);
  const r = parsePsbt(t.bytes);
  if (!r.ok) throw new SignerError('garbage', `${device}'s answer is not a PSBT Spyglass can read (${r.message}). Nothing was kept.`);
  const a = unsignedTxOf(r.psbt);
  const b = unsignedTxOf(draft);
  if (!a || !b) throw new SignerError('changed-tx', `${device}'s answer has no transaction Spyglass can compare with the draft. Nothing was kept.`);
  const diff = txDifferences(b, a);
  if (diff.length) {
    throw new SignerError('changed-tx', `Refused: ${device} signed a different transaction than the draft you reviewed — ${diff.join('; ')}. Nothing was kept; do not use this device’s signature, and check the device and the program that talks to it.`, { changes: diff.join('; ') });
  }
  return { psbt: r.psbt, base64: text };
}
