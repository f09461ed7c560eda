/**
 * The updater: Core's walletprocesspsbt(psbt, sign = false, "DEFAULT", bip32derivs, finalize =
 * false) for a watch-only descriptor wallet (CWallet::FillPSBT, DescriptorScriptPubKeyMan::
 * FillPSBT), offline. Given the wallet's descriptors and its previous transactions it adds, as
 * Core does and only where Core does: the non_witness_utxo of each input whose previous
 * transaction is known (checked: it must hash to the input's txid), the witness_utxo of segwit
 * spends, redeem and witness scripts, BIP32 derivations with key origins, the taproot internal key
 * and taproot derivations, the change outputs' scripts and derivations; then it drops the
 * non_witness_utxos when every input is taproot (RemoveUnnecessaryTransactions).
 */
import { fromHex, isHex } from '../hex';
import type { Network } from '../networks';
import { parseTx, StreamError, type ParsedTx } from '../tx';
import { decodeBase64Core, encodeBase64 } from './base64';
import { editablePsbt } from './edit';
import type { CoreVersionOption } from './generation';
import { parsePsbt } from './model';
import { EMPTY_PROVIDER, hideOrigins, type SolvingProvider } from './provider';
import { serializePsbt } from './serialize';
import { SIGHASH_DEFAULT } from './sighash';
import {
  inputSignedAndVerified,
  isFinalInput,
  precompute,
  PSBT_ERROR_TEXT,
  removeUnnecessaryTransactions,
  signPsbtInput,
  updatePsbtOutput,
} from './sign-input';
import type { KeySigner } from './signer';
import type { Psbt } from './types';
import { WalletDescriptorError, WatchOnlyWallet, type WalletDescriptor } from './wallet-index';

export { WalletDescriptorError, WatchOnlyWallet, type WalletDescriptor };

/** Previous transactions: hex by txid (as the fill vectors give them), or a list of hex. */
export type PrevTxs = Readonly<Record<string, string>> | readonly string[];

export interface FillOptions {
  /** Include BIP32 derivations (walletprocesspsbt's bip32derivs, default true). */
  bip32Derivs?: boolean;
  /**
   * walletprocesspsbt's sighashtype: a number (default 0, "DEFAULT"), or null for the argument
   * left out (then each input's own default: DEFAULT for taproot, ALL otherwise). A PSBT whose
   * input asks for another type is refused, as Core refuses it.
   */
  sighashType?: number | null;
  /** walletprocesspsbt's finalize (default false). A watch-only wallet finalizes only inputs already fully signed. */
  finalize?: boolean;
  /** The keys of a wallet that holds them (a node's; signer.ts): its signatures are added. Spyglass passes none. */
  signer?: KeySigner;
}

export type FillResult = { ok: true; psbt: Psbt; complete: boolean } | { ok: false; error: string };

/** A previous transaction, checked against its txid. */
export class PrevTxError extends Error {}

/** Reads the previous transactions; each must be a whole transaction whose txid is the one it is given for. */
export function readPrevTxs(prevtxs: PrevTxs): Map<string, ParsedTx> {
  const out = new Map<string, ParsedTx>();
  const entries: Array<[string | null, unknown]> = Array.isArray(prevtxs) ? prevtxs.map((h) => [null, h]) : Object.entries(prevtxs);
  for (const [txid, hex] of entries) {
    const label = txid ?? `#${out.size}`;
    if (typeof hex !== 'string' || !isHex(hex)) throw new PrevTxError(`previous transaction ${label}: not hex`);
    let tx: ParsedTx;
    try {
      tx = parseTx(fromHex(hex));
    } catch (e) {
      const why = e instanceof StreamError ? e.message : String(e);
      throw new PrevTxError(`previous transaction ${label}: not a transaction (${why})`);
    }
    if (txid !== null && tx.txid !== txid.toLowerCase()) {
      throw new PrevTxError(`previous transaction ${label}: its txid is ${tx.txid}; unverifiable UTXO data is never put in a PSBT`);
    }
    out.set(tx.txid, tx);
  }
  return out;
}

/**
 * Fills `psbt` (not changed; the result is a new model) as walletprocesspsbt without signing.
 * Errors carry Core's text (e.g. "Specified sighash value does not match value stored in PSBT")
 * with what Spyglass knows of the cause.
 */
export function fillPsbt(psbt: Psbt, wallet: WatchOnlyWallet, prevTxs: ReadonlyMap<string, ParsedTx>, opts: FillOptions = {}): FillResult {
  const p = editablePsbt(psbt);
  for (const input of p.inputs) {
    if (isFinalInput(input) || input.nonWitnessUtxo) continue;
    const prev = prevTxs.get(input.prevTxid);
    if (!prev) continue;
    input.nonWitnessUtxo = prev;
    delete input.nonWitnessUtxoBytes;
  }
  const pre = precompute(p);
  if (!pre) return { ok: false, error: `${PSBT_ERROR_TEXT.INVALID_TX} (its inputs require both a time and a height locktime)` };
  const hide = opts.bip32Derivs === false;
  const provider = (script: Uint8Array): SolvingProvider => {
    const found = wallet.providerFor(script);
    if (!found) return EMPTY_PROVIDER;
    return hide ? hideOrigins(found.provider) : found.provider;
  };
  // Core asks every ScriptPubKeyMan in turn; one pass with the owner's provider (or none) gives
  // the same result, as the other passes only repeat what the owner's pass adds.
  if (wallet.size > 0) {
    for (let i = 0; i < p.inputs.length; i++) {
      const input = p.inputs[i]!;
      if (isFinalInput(input)) continue;
      let script: Uint8Array;
      if (input.witnessUtxo && input.witnessUtxo.value !== -1n) script = input.witnessUtxo.script;
      else if (input.nonWitnessUtxo) {
        const out = input.nonWitnessUtxo.vout[input.vout];
        if (!out) return { ok: false, error: `${PSBT_ERROR_TEXT.MISSING_INPUTS} (input ${i}: its previous transaction ${input.prevTxid} has no output ${input.vout})` };
        script = out.script;
      } else continue;
      const sighashType = opts.sighashType === null ? undefined : (opts.sighashType ?? SIGHASH_DEFAULT);
      const res = signPsbtInput(provider(script), p, i, pre, { sighashType, finalize: opts.finalize ?? false, signer: opts.signer });
      if (res !== 'OK' && res !== 'INCOMPLETE') {
        const why = res === 'SIGHASH_MISMATCH' ? `input ${i} asks for sighash type ${p.inputs[i]!.sighash ?? 'DEFAULT'} or carries signatures of another type` : `input ${i}`;
        return { ok: false, error: `${PSBT_ERROR_TEXT[res]} (${why})` };
      }
    }
    for (let o = 0; o < p.outputs.length; o++) {
      const found = wallet.providerFor(p.outputs[o]!.script);
      if (found) updatePsbtOutput(hide ? hideOrigins(found.provider) : found.provider, p, o);
    }
  }
  removeUnnecessaryTransactions(p);
  let complete = true;
  for (let i = 0; i < p.inputs.length; i++) complete &&= inputSignedAndVerified(p, i, pre.tx, pre.data);
  return { ok: true, psbt: p, complete };
}

/** Wallets already indexed, by network and descriptors (deriving a wallet's scripts is the slow part). */
const wallets = new Map<string, WatchOnlyWallet>();

/**
 * A WatchOnlyWallet for these descriptors, reusing one built before (the last 8 are kept) — also when
 * a range grew since (Core extends a range by one index per address handed out: keyed by the ranges,
 * every create after a change address would derive the whole wallet again).
 */
export function watchOnlyWallet(descriptors: readonly WalletDescriptor[], network: Network): WatchOnlyWallet {
  const key = network.chain + '\n' + JSON.stringify(descriptors.map((d) => d?.desc));
  let w = wallets.get(key);
  if (w && !w.extendRanges(descriptors)) {
    wallets.delete(key);
    w = undefined;
  }
  if (!w) {
    w = new WatchOnlyWallet(descriptors, network);
    if (wallets.size >= 8) wallets.delete(wallets.keys().next().value!);
    wallets.set(key, w);
  }
  return w;
}

export interface FillRequest extends CoreVersionOption, FillOptions {
  /** The unsigned PSBT, base64. */
  psbt: string;
  descriptors: readonly WalletDescriptor[];
  prevtxs: PrevTxs;
  network: Network;
}

export type FillBase64Result = { ok: true; psbt: string; complete: boolean } | { ok: false; error: string };

/** fillPsbt from and to base64, with every failure as data (the CLI's and the app's entry). */
export function fillPsbtBase64(req: FillRequest): FillBase64Result {
  const bytes = decodeBase64Core(req.psbt);
  if (!bytes) return { ok: false, error: 'TX decode failed invalid base64' };
  const parsed = parsePsbt(bytes, { coreVersion: req.coreVersion });
  if (!parsed.ok) return { ok: false, error: parsed.message };
  let wallet: WatchOnlyWallet;
  let prev: Map<string, ParsedTx>;
  try {
    if (!Array.isArray(req.descriptors)) throw new WalletDescriptorError('descriptors: expected a list of {desc, range} objects');
    wallet = watchOnlyWallet(req.descriptors, req.network);
    if (req.prevtxs === null || typeof req.prevtxs !== 'object') throw new PrevTxError('prevtxs: expected an object of hex by txid or a list of hex');
    prev = readPrevTxs(req.prevtxs);
  } catch (e) {
    if (e instanceof WalletDescriptorError || e instanceof PrevTxError) return { ok: false, error: e.message };
    throw e;
  }
  const r = fillPsbt(parsed.psbt, wallet, prev, req);
  if (!r.ok) return r;
  return { ok: true, psbt: encodeBase64(serializePsbt(r.psbt)), complete: r.complete };
}
