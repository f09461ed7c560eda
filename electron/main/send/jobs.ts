// The heavy PSBT work of Send, as pure functions the PSBT worker runs (job-table.ts): build the
// unsigned PSBT and compare it with the node's createpsbt, fill it as walletprocesspsbt does for the
// watch-only wallet, combine imported signatures (converting versions), report who has signed,
// verify every signature and finalize. Nothing here touches the network or SQLite.
import { base64 } from '@scure/base';
import { AppError } from '../../../shared/errors';
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';
import {
  analyzePsbt,
  combinePsbts,
  convertPsbt,
  decodeBase64Core,
  decodePsbtJson,
  describeProblem,
  encodeBase64,
  fillPsbt,
  finalizePsbt,
  parsePsbt,
  readPrevTxs,
  serializePsbt,
  unsignedTxOf,
  verifyPsbtSignatures,
  watchOnlyWallet,
  type CoreVersion,
  type Psbt,
  type WalletDescriptor,
} from '../../../shared/bitcoin/psbt';
import { ZERO32_HEX } from '../../../shared/bitcoin/psbt/read-common';
import { parseTx, serializeTx } from '../../../shared/bitcoin/tx';
import { createPsbt, type UnsignedTxSpec } from '../../../shared/send/create-psbt';
import { signingStatus } from '../../../shared/send/signers';
import type { PsbtDifferenceView, SigningView } from '../../../shared/ipc/send';
import { diffJson } from '../psbt/jobs';

/** The spec as it crosses the thread boundary (amounts as decimal text, scripts as hex). */
export interface WireSpec {
  version: number;
  locktime: number;
  inputs: Array<{ txid: string; vout: number; sequence: number }>;
  outputs: Array<{ script: string; value: string }>;
}

export function toWire(s: UnsignedTxSpec): WireSpec {
  return { ...s, inputs: s.inputs.map((i) => ({ ...i })), outputs: s.outputs.map((o) => ({ script: Buffer.from(o.script).toString('hex'), value: o.value.toString() })) };
}

export function fromWire(s: WireSpec): UnsignedTxSpec {
  return { ...s, outputs: s.outputs.map((o) => ({ script: Uint8Array.from(Buffer.from(o.script, 'hex')), value: BigInt(o.value) })) };
}

function net(chain: string): Network {
  const n = NETWORKS[chain as Network['chain']];
  if (!n) throw new AppError('chain.unsupported', `The chain "${chain}" is not one Spyglass knows.`);
  return n;
}

export function readPsbt(b64: string, what = 'The PSBT'): Psbt {
  const bytes = decodeBase64Core(b64);
  if (!bytes) throw new AppError('input.invalid', `${what} is not base64.`, { field: 'psbt' });
  const r = parsePsbt(bytes);
  if (!r.ok) throw new AppError('input.invalid', `${what} cannot be read: ${r.message}`, { field: 'psbt' });
  return r.psbt;
}

export const psbtB64 = (p: Psbt): string => encodeBase64(serializePsbt(p));

export interface BuildRequest {
  spec: WireSpec;
  psbtVersion: 0 | 2;
  chain: string;
  coreVersion: CoreVersion;
  /** The node's createpsbt reply for the same transaction, when it was asked. */
  nodePsbt: string | null;
  descriptors: WalletDescriptor[];
  prevtxs: Record<string, string>;
}

export interface BuildReply {
  unsigned: string;
  filled: string;
  identical: boolean | null;
  differences: PsbtDifferenceView[];
  /** Inputs the fill gave no key path (addr() coins, or keys the wallet does not describe). */
  noKeyPaths: number[];
  unsignedTxid: string;
}

export function buildJob(req: BuildRequest): BuildReply {
  const network = net(req.chain);
  const spec = fromWire(req.spec);
  const created = createPsbt(spec, req.psbtVersion);
  const unsigned = psbtB64(created);
  let identical: boolean | null = null;
  let differences: PsbtDifferenceView[] = [];
  if (req.nodePsbt !== null) {
    identical = req.nodePsbt === unsigned;
    if (!identical) {
      const ours = decodePsbtJson(unsigned, network, { coreVersion: req.coreVersion });
      const theirs = decodePsbtJson(req.nodePsbt, network, { coreVersion: req.coreVersion });
      differences = diffJson(ours.ok ? JSON.parse(ours.json) : { error: ours.message }, theirs.ok ? JSON.parse(theirs.json) : { error: theirs.message }).differences;
      if (differences.length === 0) differences = [{ path: '(bytes)', offline: JSON.stringify(unsigned.slice(0, 200)), node: JSON.stringify(req.nodePsbt.slice(0, 200)) }];
    }
  }
  let prev;
  try {
    prev = readPrevTxs(req.prevtxs);
  } catch (e) {
    throw new AppError('input.invalid', `${(e as Error).message}`, { field: 'coins' });
  }
  const wallet = watchOnlyWallet(req.descriptors, network);
  const filled = fillPsbt(created, wallet, prev);
  if (!filled.ok) throw new AppError('input.invalid', `The PSBT could not be filled: ${filled.error}`, { field: 'coins' });
  const noKeyPaths = filled.psbt.inputs.flatMap((i, k) => (i.hdKeypaths.size === 0 && i.tapBip32.size === 0 ? [k] : []));
  const tx = unsignedTxOf(created)!;
  return { unsigned, filled: psbtB64(filled.psbt), identical, differences, noKeyPaths, unsignedTxid: parseTx(serializeTx(tx, { witness: false })).txid };
}

/** The txid of a PSBT's unsigned transaction (what recognises a draft). */
export function unsignedTxidOf(p: Psbt): string {
  const tx = unsignedTxOf(p);
  if (!tx) throw new AppError('input.invalid', 'This PSBT has no transaction (its inputs require both a time and a height locktime).', { field: 'psbt' });
  return parseTx(serializeTx({ ...tx, vin: tx.vin.map((i) => ({ ...i, scriptSig: new Uint8Array(0), witness: [] })) }, { witness: false })).txid;
}

export function signingView(p: Psbt): SigningView {
  const st = signingStatus(p);
  const a = analyzePsbt(p);
  const invalid = verifyPsbtSignatures(p).problems.filter((c) => c.status === 'invalid').map(describeProblem);
  return {
    text: st.text,
    complete: st.complete,
    next: a.next,
    inputs: st.inputs.map((i) => ({ index: i.index, text: i.text, required: i.required, total: i.total, signed: i.signed, final: i.final, keys: i.keys })),
    cosigners: st.cosigners,
    invalid,
  };
}

export interface CombineRequest {
  /** The draft's PSBT first (its version is kept), then every imported one. */
  psbts: string[];
}

/**
 * Drops the partial signatures of a signer's PSBT that do not verify (kept, such a signature would
 * sit in the combination for good: combining never replaces a signature already there) and names them.
 */
function dropInvalid(p: Psbt, what: string): string[] {
  const bad = verifyPsbtSignatures(p).problems.filter((c) => c.status === 'invalid');
  for (const c of bad) {
    const input = p.inputs[c.input]!;
    if (c.kind === 'ecdsa') {
      for (const [k, v] of input.partialSigs) if (Buffer.from(v.pubkey).toString('hex') === c.pubkey) input.partialSigs.delete(k);
    } else if (c.kind === 'taproot-key') input.tapKeySig = undefined;
    else if (c.kind === 'musig2-partial') {
      for (const [k, v] of input.musigPartialSigs) if (v.part === c.pubkey && v.agg === c.aggregate && v.leaf === (c.leafHash ?? ZERO32_HEX)) input.musigPartialSigs.delete(k);
    } else for (const [k, v] of input.tapScriptSigs) if (v.pubkey === c.pubkey && v.leaf === c.leafHash) input.tapScriptSigs.delete(k);
  }
  return bad.map((c) => `${what}: ${describeProblem(c)}`);
}

/** combinepsbt with the other version converted first (the app never shows Core's "not compatible" for it). */
export function combineJob(req: CombineRequest): { combined: string; signing: SigningView; dropped: string[] } {
  const models = req.psbts.map((b, i) => readPsbt(b, i === 0 ? 'The draft' : `Signed PSBT ${i}`));
  const dropped = models.slice(1).flatMap((m, i) => dropInvalid(m, `signed PSBT ${i + 1}`));
  const r = combinePsbts(models, { convert: true });
  if (!r.ok) throw new AppError('input.invalid', r.error, { field: 'psbt' });
  return { combined: psbtB64(r.psbt), signing: signingView(r.psbt), dropped };
}

/** Verifies every signature, then finalizes and extracts (strict: an invalid signature is named and its input left alone). */
export function finalizeJob(req: { psbt: string }): { complete: boolean; psbt: string; txHex: string | null; txid: string | null; vsize: number | null; refused: string[] } {
  const p = readPsbt(req.psbt);
  const report = verifyPsbtSignatures(p);
  const invalid = report.problems.filter((c) => c.status === 'invalid').map(describeProblem);
  const f = finalizePsbt(p, { strict: true });
  const refused = [...new Set([...invalid, ...f.refused.map(describeProblem)])];
  if (!f.complete || !f.tx) return { complete: false, psbt: psbtB64(f.psbt), txHex: null, txid: null, vsize: null, refused };
  const tx = parseTx(f.tx);
  return { complete: true, psbt: psbtB64(f.psbt), txHex: Buffer.from(f.tx).toString('hex'), txid: tx.txid, vsize: tx.vsize, refused };
}

/** A PSBT in the version a signer reads (converted as Core writes each; what version 0 cannot hold is carried over as BIP370 says, in `notes`). */
export function exportJob(req: { psbt: string; version: 0 | 2 }): { base64: string; bytes: number; notes: string[] } {
  const c = convertPsbt(readPsbt(req.psbt), req.version);
  if (!c.ok) throw new AppError('input.invalid', c.message, { field: 'version' });
  const bytes = serializePsbt(c.psbt);
  return { base64: base64.encode(bytes), bytes: bytes.length, notes: c.notes };
}
