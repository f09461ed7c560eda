/**
 * The finalizer and extractor: Core's finalizepsbt (FinalizePSBT, FinalizeAndExtractPSBT,
 * src/psbt.cpp). Each input whose signatures complete its script, and verify, gets its final
 * scriptSig / scriptWitness (its signing data is then dropped, as Core writes it); when every
 * input is final the network transaction can be extracted.
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
import { precompute, signPsbtInput } from './sign-input';
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
  if (!pre) return { psbt: e, complete: false, refused: [] };
  const refused = opts.strict === false ? [] : verifyPsbtSignatures(e).problems.filter((c) => c.status === 'invalid');
  const blocked = new Set(refused.map((c) => c.input));
  let complete = true;
  for (let i = 0; i < e.inputs.length; i++) {
    if (blocked.has(i)) {
      complete = false;
      continue;
    }
    const r = signPsbtInput(EMPTY_PROVIDER, e, i, pre, { sighashType: e.inputs[i]!.sighash, finalize: true });
    complete = complete && r === 'OK';
  }
  const tx = complete ? extract(e) : undefined;
  return { psbt: e, complete: complete && tx !== undefined, ...(tx ? { tx } : {}), refused };
}

export interface FinalizeBase64Options extends FinalizeOptions, CoreVersionOption {
  /** finalizepsbt's extract: the transaction's hex instead of the PSBT when complete (default false here). */
  extract?: boolean;
}

/** finalizepsbt's reply ({psbt, complete} or {hex, complete}), or Core's decode error. */
export type FinalizeBase64Result =
  | { ok: true; result: { psbt: string; complete: boolean } | { hex: string; complete: true }; refused: SignatureCheck[] }
  | { ok: false; code: number; error: string };

export function finalizePsbtBase64(base64: string, opts: FinalizeBase64Options = {}): FinalizeBase64Result {
  const bytes = decodeBase64Core(base64);
  if (!bytes) return { ok: false, code: -22, error: 'TX decode failed invalid base64' };
  const parsed = parsePsbt(bytes, { coreVersion: opts.coreVersion });
  if (!parsed.ok) return { ok: false, code: -22, error: parsed.message };
  const r = finalizePsbt(parsed.psbt, opts);
  if (r.complete && opts.extract && r.tx) return { ok: true, result: { hex: hexOf(r.tx), complete: true }, refused: r.refused };
  return { ok: true, result: { psbt: encodeBase64(serializePsbt(r.psbt)), complete: r.complete }, refused: r.refused };
}
