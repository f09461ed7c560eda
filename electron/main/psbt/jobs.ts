// The heavy PSBT work behind the `psbt:*` channels, as plain functions over the store: decode (Core's
// exact decodepsbt JSON), review, conversion, the cross-check's offline half. They run in the PSBT
// worker thread (worker.ts, on its own read-only SQLite connection) so a 100,000-input PSBT never
// blocks the main process; PsbtService (service.ts) adds what needs the network (the node's tip,
// its decodepsbt) and sends the rest here. Inline, the same functions serve tests and the bench.
import { createHash } from 'node:crypto';
import { base64 } from '@scure/base';
import { AppError } from '../../../shared/errors';
import type { PsbtConvertReply, PsbtQrReply, PsbtReviewContextView, PsbtReviewPageReply, PsbtReviewReply, PsbtReviewView } from '../../../shared/ipc/contract';
import { QR_PAGE, REVIEW_PAGE } from '../../../shared/ipc/psbt';
import { decodeDestination, encodeDestination, extractDestination } from '../../../shared/bitcoin/address';
import { MAINNET, NETWORKS, REGTEST, TESTNET, type Network } from '../../../shared/bitcoin/networks';
import { convertPsbtBytes, decodePsbtJson, parsePsbtForReview, psbtTextToBytes, reviewPsbt, unsignedTxOf, type CoreVersion, type PsbtEncoding, type PsbtReview, type ReviewPsbt, type ReviewThresholds } from '../../../shared/bitcoin/psbt';
import type { ProfileRepository } from '../store/profiles';
import { psbtUrSequence, type PsbtUrSequence } from './ur';
import { corePsbtError, refuseRawTx } from './answer';
import { parseTx, serializeTx } from '../../../shared/bitcoin/tx';
import { parseDescriptor, type Descriptor } from '../../../shared/bitcoin/descriptor';
import type { DraftStore } from '../send/drafts-store';
import type { WatchRepository } from '../store/watch';

/** Core's decodepsbt failures the review still shows, because the PSBT's form is sound. */
const CORE_NWU_MISMATCH = 'TX decode failed Non-witness UTXO does not match outpoint hash: iostream error';
/** Core's JSON longer than this is not in the review reply (58 MB for 100,000 inputs): `psbt:review-core-json` brings it when shown. */
export const CORE_JSON_INLINE = 1_000_000;

export interface JobStore {
  repo: WatchRepository;
  profiles: ProfileRepository;
  /** Send's drafts: a PSBT of a draft has its inputs and change recognised as the wallet's. */
  drafts?: DraftStore;
}

/** The addresses a draft of this PSBT's transaction knows as the wallet's: its inputs' and its change. */
function draftAddresses(store: JobStore, pid: string, p: ReviewPsbt): { inputs: string[]; change: string[] } | null {
  const tx = unsignedTxOf(p);
  if (!store.drafts || !tx) return null;
  const txid = parseTx(serializeTx({ ...tx, vin: tx.vin.map((i) => ({ ...i, scriptSig: new Uint8Array(0), witness: [] })) }, { witness: false })).txid;
  const d = store.drafts.byUnsignedTxid(pid, txid);
  if (!d) return null;
  return { inputs: d.summary.inputs.map((i) => i.address).filter(Boolean), change: d.summary.outputs.flatMap((o) => (o.role === 'change' && o.address ? [o.address] : [])) };
}

/** What main knows of the connection when it asks for a review (the worker has no network). */
export interface ReviewRequest {
  text: string;
  encoding: PsbtEncoding;
  profileId: string | null;
  /** The connected node's chain (getblockchaininfo), or null offline. */
  nodeChain: string | null;
  nodeCoreVersion: CoreVersion | null;
  /** The node's tip and median time, when it answered quickly. */
  nodeTip: { blocks: number; mediantime: number } | null;
  /** The node's height from the connection report (when the tip call failed). */
  reportHeight: number | null;
  offline: boolean;
  now: number;
  thresholds?: Partial<ReviewThresholds>;
  /** The wallet's descriptors (stored at its import, and the node's listdescriptors Send last saw): each input they pay gets its spending paths. */
  descriptors?: string[];
}

const s = (v: bigint): string => v.toString();

/** The single-branch descriptors of `texts` on `net`, each once (one that does not parse is left out: it names no paths). */
function walletDescriptorsOf(texts: readonly string[], net: Network): Descriptor[] {
  const out = new Map<string, Descriptor>();
  for (const t of texts) {
    try {
      for (const d of parseDescriptor(t, net).expandMultipath()) out.set(d.toString(), d);
    } catch {
      // not this network's, or not a descriptor: no paths from it
    }
  }
  return [...out.values()];
}

function hasNwuMismatch(p: ReviewPsbt): boolean {
  return p.inputs.some((i) => i.nonWitnessUtxo !== undefined && i.nonWitnessUtxo.txid !== i.prevTxid);
}

/** The address network that most watched addresses decode under (bech32 prefixes decide regtest). */
export function inferNetwork(addresses: readonly string[]): Network | null {
  const votes = new Map<Network, number>();
  for (const a of addresses.slice(0, 500)) {
    for (const net of [MAINNET, REGTEST, TESTNET]) {
      if (decodeDestination(a, net).ok) votes.set(net, (votes.get(net) ?? 0) + 1);
    }
  }
  let best: Network | null = null;
  let bestVotes = 0;
  // REGTEST before TESTNET: base58 test addresses vote for both, bcrt1… only for regtest.
  for (const net of [MAINNET, REGTEST, TESTNET]) {
    const v = votes.get(net) ?? 0;
    if (v > bestVotes) {
      best = net;
      bestVotes = v;
    }
  }
  return best;
}

function networkFor(store: JobStore, nodeChain: string | null, pid: string | null, watched: readonly string[]): { net: Network; source: PsbtReviewContextView['chainSource'] } {
  const fromNode = nodeChain === null ? undefined : NETWORKS[nodeChain as Network['chain']];
  if (fromNode) return { net: fromNode, source: 'node' };
  if (pid && store.profiles.get(pid)?.isDemo) return { net: REGTEST, source: 'profile' };
  const inferred = inferNetwork(watched);
  if (inferred) return { net: inferred, source: 'watched-addresses' };
  return { net: MAINNET, source: 'default' };
}

/** The PSBT text as bytes and base64, or the typed error (Core's message for base64). */
export function readPsbtText(text: string, encoding: PsbtEncoding): { bytes: Uint8Array; b64: string; encoding: 'base64' | 'hex' } {
  const t = psbtTextToBytes(text, encoding);
  if (!t.ok) {
    throw new AppError('input.invalid', t.message, t.encoding === 'base64' ? { coreCode: -22, field: 'psbt' } : { field: 'psbt', encoding: 'hex' });
  }
  return { bytes: t.bytes, b64: t.encoding === 'base64' ? text.trim() : base64.encode(t.bytes), encoding: t.encoding };
}

/** What Core's decodepsbt says of the text (the detail line under Spyglass's words). */
function coreTextOf(text: string, encoding: PsbtEncoding): string {
  const t = psbtTextToBytes(text, encoding);
  if (!t.ok) return t.message;
  const r = decodePsbtJson(base64.encode(t.bytes), MAINNET);
  return r.ok ? '' : r.message;
}

function toWire(r: PsbtReview): PsbtReviewView {
  const sm = r.summary;
  return {
    summary: {
      version: sm.version,
      txVersion: sm.txVersion,
      txid: sm.txid,
      txidFinal: sm.txidFinal,
      inputCount: sm.inputCount,
      outputCount: sm.outputCount,
      changeOutputs: r.outputs.filter((o) => o.kind === 'change').length,
      opReturnOutputs: r.outputs.filter((o) => o.kind === 'op_return').length,
      externalDestinations: new Set(r.outputs.filter((o) => o.kind === 'external').map((o) => o.address ?? `script:${o.scriptHex}`)).size,
      inputTotalSats: sm.inputTotal === null ? null : s(sm.inputTotal),
      outputTotalSats: s(sm.outputTotal),
      sentSats: s(sm.sent),
      changeSats: s(sm.change),
      burnedSats: s(sm.burned),
      feeSats: sm.fee === null ? null : s(sm.fee),
      vsize: sm.vsize,
      weight: sm.weight,
      vsizeExact: sm.vsizeExact,
      feeRate: sm.feeRate,
      feePercent: sm.feePercent,
      locktime: sm.locktime,
      rbf: sm.rbf,
      finalized: sm.finalized,
      signaturesComplete: sm.signaturesComplete,
    },
    inputs: r.inputs.map((i) => ({
      index: i.index,
      txid: i.txid,
      vout: i.vout,
      outpoint: i.outpoint,
      sequence: i.sequence,
      address: i.address,
      amountSats: i.amount === null ? null : s(i.amount),
      spendType: i.spendType,
      watched: i.watched,
      utxo: i.utxo,
      sighash: i.sighash,
      signatureSighashes: i.signatureSighashes,
      signatures: i.signatures,
      finalized: i.finalized,
      label: i.label,
      paths: i.paths ?? null,
    })),
    outputs: r.outputs.map((o) => ({
      index: o.index,
      address: o.address,
      amountSats: s(o.amount),
      scriptType: o.scriptType,
      scriptHex: o.scriptHex,
      kind: o.kind,
      changeReason: o.changeReason,
      used: o.used,
      dustThresholdSats: s(o.dustThreshold),
      dust: o.dust,
      opReturn: o.opReturn,
      label: o.label,
    })),
    warnings: r.warnings.map((w) => ({ code: w.code, severity: w.severity, message: w.message, inputs: w.inputs, outputs: w.outputs })),
  };
}

/**
 * Decodes (with current Core's rules: the review shows version 2 PSBTs whatever node is connected)
 * and reviews against what the store knows of the profile — the watched set, stored getaddressinfo
 * replies (ischange), the addresses the latest snapshot saw receive, labels, the tip.
 */
export function reviewJob(store: JobStore, req: ReviewRequest): PsbtReviewReply {
  const { repo } = store;
  const pid = req.profileId;
  refuseRawTx(req.text, req.encoding, () => coreTextOf(req.text, req.encoding), store.drafts, pid);
  const input = readPsbtText(req.text, req.encoding);
  const watchedList = pid ? repo.listAddresses(pid, { includeHidden: true }).map((a) => a.address) : [];
  const { net, source: chainSource } = networkFor(store, req.nodeChain, pid, watchedList);

  const core = decodePsbtJson(input.b64, net);
  const parsed = parsePsbtForReview(input.bytes);
  if (!core.ok) {
    const shown = parsed.ok && core.message === CORE_NWU_MISMATCH && hasNwuMismatch(parsed.psbt);
    if (!shown) throw corePsbtError(core.message, input.bytes);
  }
  if (!parsed.ok) {
    throw new AppError('input.invalid', `Bitcoin Core decodes this PSBT, but Spyglass cannot review it: ${parsed.message}.`, { field: 'psbt' });
  }

  // What the store knows (all local: no network needed).
  const watched = new Set(watchedList);
  const snap = pid ? repo.latestSnapshot(pid) : null;
  const received = snap ? repo.received(snap.id) : new Map<string, { txids: string[]; nodeLabel: string }>();
  const used = new Set<string>();
  for (const [address, r] of received) if (r.txids.length > 0) used.add(address);
  if (pid && snap) for (const u of repo.utxos(pid, null, snap.id)) used.add(u.address);

  let tipHeight: number | null = snap?.node?.height ?? null;
  let tipSource: PsbtReviewContextView['tipSource'] = tipHeight === null ? null : 'snapshot';
  const nodeHeight = req.nodeTip?.blocks ?? req.reportHeight ?? undefined;
  if (nodeHeight !== undefined && (tipHeight === null || nodeHeight >= tipHeight)) {
    tipHeight = nodeHeight;
    tipSource = 'node';
  }

  // getaddressinfo ischange, only for the watched addresses this PSBT pays.
  const changeHints = new Map<string, { ischange: boolean }>();
  // A draft composed here: its inputs and its change are the wallet's, whatever the snapshot knows.
  const ours = pid ? draftAddresses(store, pid, parsed.psbt) : null;
  if (ours) {
    for (const a of [...ours.inputs, ...ours.change]) watched.add(a);
    for (const a of ours.change) changeHints.set(a, { ischange: true });
  }
  if (pid) {
    for (const o of parsed.psbt.outputs) {
      const dest = extractDestination(o.script);
      const address = dest ? encodeDestination(dest, net) : '';
      if (address === '' || !watched.has(address) || changeHints.has(address)) continue;
      const info = repo.getInfo(pid, address)?.info;
      if (info && typeof info === 'object' && typeof (info as { ischange?: unknown }).ischange === 'boolean') {
        changeHints.set(address, { ischange: (info as { ischange: boolean }).ischange });
      }
    }
  }
  const review = reviewPsbt(parsed.psbt, {
    network: net,
    watched,
    changeHints,
    usedAddresses: used,
    ...(tipHeight !== null ? { tipHeight } : {}),
    ...(req.nodeTip ? { medianTime: req.nodeTip.mediantime } : {}),
    now: req.now,
    ...(req.thresholds ? { thresholds: req.thresholds } : {}),
    descriptors: walletDescriptorsOf(req.descriptors ?? [], net),
  });

  const all = toWire(review);
  const key = reviewKeyOf(req);
  const coreJson = core.ok ? core.json : null;
  lastReview = { key, pid, view: all, received, coreJson };
  const wire: PsbtReviewView = { ...all, inputs: labelled(store, lastReview, 'inputs', 0, REVIEW_PAGE).inputs, outputs: labelled(store, lastReview, 'outputs', 0, REVIEW_PAGE).outputs };

  return {
    review: wire,
    reviewKey: key,
    coreJson: coreJson !== null && coreJson.length > CORE_JSON_INLINE ? null : coreJson,
    coreJsonChars: coreJson?.length ?? 0,
    coreError: core.ok ? null : { code: -22, message: core.message },
    base64: input.b64,
    bytes: input.bytes.length,
    version: parsed.psbt.version,
    encoding: input.encoding,
    context: {
      chain: net.chain,
      chainSource,
      watchedAddresses: watched.size,
      tipHeight,
      tipSource,
      snapshotId: snap?.id ?? null,
      snapshotTakenAt: snap?.takenAt ?? null,
      offline: req.offline,
      nodeCoreVersion: req.nodeCoreVersion,
    },
  };
}

/** The last review, all its rows (labels are read per page), so a page of a huge review is cheap. */
interface CachedReview {
  key: string;
  pid: string | null;
  view: PsbtReviewView;
  coreJson: string | null;
  received: Map<string, { txids: string[]; nodeLabel: string }>;
}
let lastReview: CachedReview | null = null;

/** The review's name: sha-256 of the profile, the encoding asked for and the PSBT text. */
export function reviewKeyOf(req: Pick<ReviewRequest, 'text' | 'encoding' | 'profileId'>): string {
  return createHash('sha256').update(`${req.profileId ?? ''}\0${req.encoding}\0`).update(req.text).digest('hex');
}

/**
 * A range of the cached review's rows, with their labels as the store has them now. Label slots: the
 * spent output's label, else its address's; the node's address label last.
 */
function labelled(store: JobStore, c: CachedReview, side: 'inputs' | 'outputs', from: number, count: number): PsbtReviewPageReply {
  const rows = { inputs: side === 'inputs' ? c.view.inputs.slice(from, from + count) : [], outputs: side === 'outputs' ? c.view.outputs.slice(from, from + count) : [] };
  const pid = c.pid;
  const { repo } = store;
  if (pid) {
    const addrLabel = (a: string | null): string | null => {
      if (a === null) return null;
      const l = repo.getLabel(pid, 'addr', a)?.label;
      if (l) return l;
      const nl = c.received.get(a)?.nodeLabel;
      return nl ? nl : null;
    };
    rows.inputs = rows.inputs.map((i) => ({ ...i, label: repo.getLabel(pid, 'output', i.outpoint)?.label ?? addrLabel(i.address) }));
    rows.outputs = rows.outputs.map((o) => ({ ...o, label: addrLabel(o.address) }));
  }
  return { side, from, total: side === 'inputs' ? c.view.inputs.length : c.view.outputs.length, ...rows };
}

/** What a page asks: the review's key, and the review's request (without it when only the cached copy will do). */
export interface ReviewPageRequest {
  key: string;
  review: ReviewRequest | null;
  side: 'inputs' | 'outputs';
  from: number;
  count: number;
}

/** A range of rows of the review `key` names: from the cached copy, else reviewed again from the text. */
export function reviewPageJob(store: JobStore, req: ReviewPageRequest): PsbtReviewPageReply {
  if (lastReview?.key !== req.key) {
    if (req.review === null || reviewKeyOf(req.review) !== req.key) {
      throw new AppError('input.invalid', 'This review is no longer held; review the PSBT again.', { field: 'key' });
    }
    reviewJob(store, req.review);
  }
  return labelled(store, lastReview as CachedReview, req.side, req.from, req.count);
}

/** Core's decodepsbt JSON of the review `key` names (too long for the review reply): from the cached copy, else reviewed again. */
export function reviewCoreJsonJob(store: JobStore, req: { key: string; review: ReviewRequest | null }): string | null {
  if (lastReview?.key !== req.key) {
    if (req.review === null || reviewKeyOf(req.review) !== req.key) {
      throw new AppError('input.invalid', 'This review is no longer held; review the PSBT again.', { field: 'key' });
    }
    reviewJob(store, req.review);
  }
  return (lastReview as CachedReview).coreJson;
}

/** Forgets the cached review (tests). */
export function forgetReview(): void {
  lastReview = null;
}

/** Converts a PSBT between version 0 and version 2 as Core writes each (to version 0 as BIP370 and HWI do: notes say what changed form). */
export function convertJob(req: { text: string; encoding: PsbtEncoding; to: 0 | 2 }): PsbtConvertReply {
  const input = readPsbtText(req.text, req.encoding);
  const r = convertPsbtBytes(input.bytes, req.to);
  if (!r.ok) throw new AppError('input.invalid', r.message, { field: 'psbt' });
  return { base64: base64.encode(r.bytes), bytes: r.bytes.length, version: req.to, notes: r.notes };
}

/** The last PSBT's UR sequence (its fragments), kept in the worker for its later pages: one PSBT is shown at a time. */
let lastQr: { text: string; encoding: PsbtEncoding; fragmentLength: number; seq: PsbtUrSequence } | null = null;

/**
 * The PSBT as ur:crypto-psbt parts: a static QR when it fits one frame, else the pure parts and as many fountain parts
 * again (a scanner that missed frames catches up) — `count` of them from part `from`, each made directly (the first
 * page is all the click waits for; the renderer asks for the later ones as the animation nears them).
 */
export function qrJob(req: { text: string; encoding: PsbtEncoding; fragmentLength: number; from?: number; count?: number }): PsbtQrReply {
  let seq: PsbtUrSequence;
  if (lastQr && lastQr.text === req.text && lastQr.encoding === req.encoding && lastQr.fragmentLength === req.fragmentLength) seq = lastQr.seq;
  else {
    seq = psbtUrSequence(readPsbtText(req.text, req.encoding).bytes, { maxFragmentLength: req.fragmentLength });
    lastQr = { text: req.text, encoding: req.encoding, fragmentLength: req.fragmentLength, seq };
  }
  const total = seq.kind === 'single' ? 1 : 2 * seq.seqLen;
  const from = Math.min(req.from ?? 0, total);
  const end = Math.min(total, from + (req.count ?? QR_PAGE));
  const parts: string[] = [];
  for (let k = from; k < end; k++) parts.push(seq.part(k));
  return { kind: seq.kind, parts, from, total, seqLen: seq.seqLen, fragmentLength: seq.fragmentLength };
}

export { crosscheckDiff, crosscheckPrepare, diffJson, jsonText, type CrosscheckPrepared } from './crosscheck-jobs';
