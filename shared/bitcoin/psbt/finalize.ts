/**
 * The finalizer and extractor: Core's finalizepsbt (FinalizePSBT, FinalizeAndExtractPSBT,
 * src/psbt.cpp). Each input whose signatures complete its script, and verify, gets its final
 * scriptSig / scriptWitness (its signing data is then dropped, as Core writes it); when every
 * input is final the network transaction can be extracted.
 *
 * Miniscript inputs (P2WSH witness scripts, taproot script paths) are satisfied as Core's
 * satisfier does (produce-ms.ts): the cheapest non-malleable witness the signatures, preimages and
 * the transaction's nSequence / nLockTime allow; when there is none, `incomplete` says why
 * (missing signatures by which keys, a timelock the transaction does not meet).
 *
 * Spyglass refuses more than Core by default (`strict`): an input carrying any partial signature
 * that does not verify — even one the final script would not use — is left unfinalized and named
 * in `refused`. With `strict: false` the result is Core's byte for byte in every case.
 */
import { hexOf, serializeTx, type Tx } from '../tx';
import { decodeBase64Core, encodeBase64 } from './base64';
import { editablePsbt } from './edit';
import type { CoreVersionOption } from './generation';
import { parsePsbt } from './model';
import { EMPTY_PROVIDER } from './provider';
import { serializePsbt, unsignedTxOf } from './serialize';
import { newSigData, type SigData } from './sigdata';
import { precompute, PSBT_ERROR_TEXT, signPsbtInput } from './sign-input';
import type { Psbt } from './types';
import { verifyPsbtSignatures, type SignatureCheck } from './verify';

export interface FinalizeOptions {
  /** Leave an input with an invalid partial signature unfinalized (default true). */
  strict?: boolean;
}

export interface FinalizeResult {
  psbt: Psbt;
  /** Every input is final. */
  complete: boolean;
  /** The network transaction (with witnesses) when complete. */
  tx?: Uint8Array;
  /** Strict mode: the invalid signatures that kept their inputs from being finalized. */
  refused: SignatureCheck[];
  /** Inputs left unfinalized (not refused for a bad signature), each with why. */
  incomplete: { input: number; reason: string }[];
}

/** Why an input could not be finalized, in words, from what the signing step found missing. */
export function incompleteReason(sd: SigData): string {
  const parts: string[] = [];
  const ms = sd.miniscript;
  if (ms?.unmetOlder.length) parts.push(`the input's nSequence does not meet the relative timelock older(${ms.unmetOlder.join('), older(')})`);
  if (ms?.unmetAfter.length) parts.push(`the transaction's nLockTime does not meet the absolute timelock after(${ms.unmetAfter.join('), after(')})`);
  if (ms?.missingKeys.length) parts.push(`no signature yet by key${ms.missingKeys.length > 1 ? 's' : ''} ${ms.missingKeys.join(', ')}`);
  else if (sd.missingSigs.length) parts.push(`no signature yet by key id${sd.missingSigs.length > 1 ? 's' : ''} ${[...new Set(sd.missingSigs)].join(', ')}`);
  parts.push(...new Set(sd.musigNotes));
  if (ms?.missingPreimages.length) parts.push(`no preimage of ${ms.missingPreimages.join(', ')}`);
  if (ms?.badPreimages.length) parts.push(ms.badPreimages.join('; '));
  if (sd.missingPubkeys.length) parts.push(`public key${sd.missingPubkeys.length > 1 ? 's' : ''} unknown for key id ${[...new Set(sd.missingPubkeys)].join(', ')}`);
  if (sd.missingWitnessScript) parts.push('the witness script is missing');
  if (sd.missingRedeemScript) parts.push('the redeem script is missing');
  if (ms?.why === 'malleable' && parts.length === 0) parts.push('the signatures present allow only a malleable satisfaction (a third party could change the witness)');
  if (ms && !ms.decoded && parts.length === 0) parts.push('the script is not miniscript Spyglass can satisfy');
  if (parts.length === 0) parts.push('the signatures present do not complete any spending path, or the final script does not verify');
  return `not finalized: ${parts.join('; ')}`;
}

/** The transaction with each input's final scriptSig and witness (FinalizeAndExtractPSBT's result). */
function extract(p: Psbt): Uint8Array | undefined {
  const tx: Tx | null = unsignedTxOf(p);
  if (!tx) return undefined;
  tx.vin = tx.vin.map((txin, i) => ({ ...txin, scriptSig: p.inputs[i]!.finalScriptSig ?? new Uint8Array(0), witness: p.inputs[i]!.finalScriptWitness ?? [] }));
  return serializeTx(tx, { witness: true });
}

/** FinalizePSBT (+ extraction when complete). `p` is not changed. */
export function finalizePsbt(p: Psbt, opts: FinalizeOptions = {}): FinalizeResult {
  const e = editablePsbt(p);
  const pre = precompute(e);
  if (!pre) return { psbt: e, complete: false, refused: [], incomplete: [] };
  const refused = opts.strict === false ? [] : verifyPsbtSignatures(e).problems.filter((c) => c.status === 'invalid');
  const blocked = new Set(refused.map((c) => c.input));
  const incomplete: FinalizeResult['incomplete'] = [];
  let complete = true;
  for (let i = 0; i < e.inputs.length; i++) {
    if (blocked.has(i)) {
      complete = false;
      continue;
    }
    const found = newSigData();
    const r = signPsbtInput(EMPTY_PROVIDER, e, i, pre, { sighashType: e.inputs[i]!.sighash, finalize: true }, found);
    if (r !== 'OK') incomplete.push({ input: i, reason: r === 'INCOMPLETE' ? incompleteReason(found) : PSBT_ERROR_TEXT[r] });
    complete = complete && r === 'OK';
  }
  const tx = complete ? extract(e) : undefined;
  return { psbt: e, complete: complete && tx !== undefined, ...(tx ? { tx } : {}), refused, incomplete };
}

export interface FinalizeBase64Options extends FinalizeOptions, CoreVersionOption {
  /** finalizepsbt's extract: the transaction's hex instead of the PSBT when complete (default false here). */
  extract?: boolean;
}

/** finalizepsbt's reply ({psbt, complete} or {hex, complete}), or Core's decode error. */
export type FinalizeBase64Result =
  | { ok: true; result: { psbt: string; complete: boolean } | { hex: string; complete: true }; refused: SignatureCheck[]; incomplete: FinalizeResult['incomplete'] }
  | { ok: false; code: number; error: string };

export function finalizePsbtBase64(base64: string, opts: FinalizeBase64Options = {}): FinalizeBase64Result {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, code: -22, error: 'TX decode failed invalid base64' };
  const parsed = parsePsbt(bytes, { coreVersion: opts.coreVersion });
  if (!parsed.ok) return { ok: false, code: -22, error: parsed.message };
  const r = finalizePsbt(parsed.psbt, opts);
  if (r.complete && opts.extract && r.tx) return { ok: true, result: { hex: hexOf(r.tx), complete: true }, refused: r.refused, incomplete: r.incomplete };
  return { ok: true, result: { psbt: encodeBase64(serializePsbt(r.psbt)), complete: r.complete }, refused: r.refused, incomplete: r.incomplete };
}
