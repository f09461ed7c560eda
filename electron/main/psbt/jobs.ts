// The heavy PSBT work behind the `psbt:*` channels, as plain functions over the store: decode (Core's
// exact decodepsbt JSON), review, conversion, the cross-check's offline half. They run in the PSBT
// worker thread (worker.ts, on its own read-only SQLite connection) so a 100,000-input PSBT never
// blocks the main process; PsbtService (service.ts) adds what needs the network (the node's tip,
// its decodepsbt) and sends the rest here. Inline, the same functions serve tests and the bench.
import { base64 } from '@scure/base';
import { AppError } from '../../../shared/errors';
import type { PsbtConvertReply, PsbtDifference, PsbtQrReply, PsbtReviewContextView, PsbtReviewReply, PsbtReviewView } from '../../../shared/ipc/contract';
import { decodeDestination, encodeDestination, extractDestination } from '../../../shared/bitcoin/address';
import { MAINNET, NETWORKS, REGTEST, TESTNET, type Network } from '../../../shared/bitcoin/networks';
import { convertPsbtBytes, decodePsbtJson, parsePsbtForReview, psbtTextToBytes, reviewPsbt, unsignedTxOf, type CoreVersion, type PsbtEncoding, type PsbtReview, type ReviewPsbt, type ReviewThresholds } from '../../../shared/bitcoin/psbt';
import type { ProfileRepository } from '../store/profiles';
import { encodePsbtUr } from './ur';
import { parseTx, serializeTx } from '../../../shared/bitcoin/tx';
import type { DraftStore } from '../send/drafts-store';
import type { WatchRepository } from '../store/watch';

/** Core's decodepsbt failures the review still shows, because the PSBT's form is sound. */
const CORE_NWU_MISMATCH = 'TX decode failed Non-witness UTXO does not match outpoint hash: iostream error';
const MAX_DIFFERENCES = 200;
const MAX_VALUE_TEXT = 1000;

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
}

const s = (v: bigint): string => v.toString();

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
  const input = readPsbtText(req.text, req.encoding);
  const pid = req.profileId;
  const watchedList = pid ? repo.listAddresses(pid, { includeHidden: true }).map((a) => a.address) : [];
  const { net, source: chainSource } = networkFor(store, req.nodeChain, pid, watchedList);

  const core = decodePsbtJson(input.b64, net);
  const parsed = parsePsbtForReview(input.bytes);
  if (!core.ok) {
    const shown = parsed.ok && core.message === CORE_NWU_MISMATCH && hasNwuMismatch(parsed.psbt);
    if (!shown) throw new AppError('input.invalid', core.message, { coreCode: -22, field: 'psbt' });
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
  });

  // Label slots: the spent output's label, else its address's; the node's address label last.
  if (pid) {
    const addrLabel = (a: string | null): string | null => {
      if (a === null) return null;
      const l = repo.getLabel(pid, 'addr', a)?.label;
      if (l) return l;
      const nl = received.get(a)?.nodeLabel;
      return nl ? nl : null;
    };
    for (const i of review.inputs) i.label = repo.getLabel(pid, 'output', i.outpoint)?.label ?? addrLabel(i.address);
    for (const o of review.outputs) o.label = addrLabel(o.address);
  }

  return {
    review: toWire(review),
    coreJson: core.ok ? core.json : null,
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

/** Converts a PSBT between version 0 and version 2, losslessly, as Core writes each. */
export function convertJob(req: { text: string; encoding: PsbtEncoding; to: 0 | 2 }): PsbtConvertReply {
  const input = readPsbtText(req.text, req.encoding);
  const r = convertPsbtBytes(input.bytes, req.to);
  if (!r.ok) throw new AppError('input.invalid', r.message, { field: 'psbt' });
  return { base64: base64.encode(r.bytes), bytes: r.bytes.length, version: req.to };
}

/** The PSBT as ur:crypto-psbt parts: a static QR when it fits one frame, else the pure parts and as many fountain parts again (a scanner that missed frames catches up). */
export function qrJob(req: { text: string; encoding: PsbtEncoding; fragmentLength: number }): PsbtQrReply {
  const input = readPsbtText(req.text, req.encoding);
  const first = encodePsbtUr(input.bytes, { maxFragmentLength: req.fragmentLength });
  const ur = first.kind === 'single' ? first : encodePsbtUr(input.bytes, { maxFragmentLength: req.fragmentLength, fountainParts: first.seqLen });
  return { kind: ur.kind, parts: ur.parts, seqLen: ur.seqLen, fragmentLength: ur.fragmentLength };
}

/** What the node is to be asked (`decodepsbt` of `base64`) and the offline decode to compare with. */
export interface CrosscheckPrepared {
  /** The form sent to the node: a node without version 2 gets the version 0 form. */
  base64: string;
  asked: { version: 0 | 2; converted: boolean };
  offline: { ok: true; json: string } | { ok: false; message: string };
  /** A version 2 PSBT with no version 0 form, for a node that reads only version 0: why. */
  noV0Form: string | null;
}

/** The cross-check's offline half: the form the node reads, and Core's decode of it with that node's rules. */
export function crosscheckPrepare(req: { text: string; encoding: PsbtEncoding; chain: string; nodeCoreVersion: CoreVersion }): CrosscheckPrepared {
  const input = readPsbtText(req.text, req.encoding);
  const net = NETWORKS[req.chain as Network['chain']] ?? MAINNET;
  let b64 = input.b64;
  let asked: CrosscheckPrepared['asked'] = { version: 0, converted: false };
  const parsed = parsePsbtForReview(input.bytes);
  if (parsed.ok && parsed.psbt.version === 2) {
    asked = { version: 2, converted: false };
    if (req.nodeCoreVersion === 30) {
      const v0 = convertPsbtBytes(input.bytes, 0);
      if (!v0.ok) return { base64: b64, asked, offline: { ok: false, message: v0.message }, noV0Form: v0.message };
      b64 = base64.encode(v0.bytes);
      asked = { version: 0, converted: true };
    }
  }
  const offline = decodePsbtJson(b64, net, { coreVersion: req.nodeCoreVersion });
  return { base64: b64, asked, offline: offline.ok ? { ok: true, json: offline.json } : { ok: false, message: offline.message }, noV0Form: null };
}

// ——— the cross-check's tree walk ———

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function jsonText(x: unknown): string | null {
  if (x === undefined) return null;
  const t = JSON.stringify(x);
  return t.length > MAX_VALUE_TEXT ? `${t.slice(0, MAX_VALUE_TEXT)}…` : t;
}

function childPath(path: string, key: string): string {
  const k = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  return k.startsWith('[') ? `${path}${k}` : path === '' ? k : `${path}.${k}`;
}

/** Walks both parsed JSON trees; differences by value (numbers compare as parsed numbers). */
export function diffJson(offline: unknown, node: unknown, path = '', out: PsbtDifference[] = [], limit = MAX_DIFFERENCES): { differences: PsbtDifference[]; truncated: boolean } {
  let truncated = false;
  const push = (d: PsbtDifference): void => {
    if (out.length < limit) out.push(d);
    else truncated = true;
  };
  const walk = (a: unknown, b: unknown, p: string): void => {
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${p}[${i}]`);
      return;
    }
    if (isPlainObject(a) && isPlainObject(b)) {
      const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.prototype.hasOwnProperty.call(a, k))];
      for (const k of keys) walk(a[k], b[k], childPath(p, k));
      return;
    }
    if (a === b) return;
    push({ path: p, offline: jsonText(a), node: jsonText(b) });
  };
  walk(offline, node, path);
  return { differences: out, truncated };
}

/** The offline decode (JSON text) against the node's parsed decodepsbt result. */
export function crosscheckDiff(offlineJson: string, nodeResult: unknown): { differences: PsbtDifference[]; truncated: boolean } {
  return diffJson(JSON.parse(offlineJson) as unknown, nodeResult);
}
