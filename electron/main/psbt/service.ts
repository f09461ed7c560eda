// PSBT review behind the `psbt:*` channels (issue 4). The review works fully offline: the PSBT is
// decoded by the shared decoder (Core's exact decodepsbt JSON) and reviewed against what the store
// knows about the active profile — the watched set, stored getaddressinfo replies (ischange), the
// addresses the latest snapshot saw receive, labels, the tip. When connected, the node adds its tip
// and median time, and `psbt:crosscheck` asks the node's own `decodepsbt` and compares.
import { base64 } from '@scure/base';
import { AppError, isAppError, toIpcError } from '../../../shared/errors';
import type {
  PsbtCrosscheckReply,
  PsbtDifference,
  PsbtReviewContextView,
  PsbtReviewReply,
  PsbtReviewView,
} from '../../../shared/ipc/contract';
import { decodeDestination, encodeDestination, extractDestination } from '../../../shared/bitcoin/address';
import { MAINNET, NETWORKS, REGTEST, TESTNET, type Network } from '../../../shared/bitcoin/networks';
import { decodePsbtJsonV30 as decodePsbtJson } from '../../../shared/bitcoin/psbt';
import {
  parsePsbtForReview,
  psbtTextToBytes,
  reviewPsbt,
  type PsbtEncoding,
  type PsbtReview,
  type ReviewPsbt,
  type ReviewThresholds,
} from '../../../shared/bitcoin/psbt-review';
import type { Logger } from '../log';
import type { ActiveConnection, Services } from '../services';
import type { ProfileRepository } from '../store/profiles';
import type { WatchRepository } from '../store/watch';

export interface PsbtServiceDeps {
  services: Services;
  repo: WatchRepository;
  profiles: ProfileRepository;
  log: Logger;
  /** Unix seconds (tests pin it). */
  now?: () => number;
  thresholds?: Partial<ReviewThresholds>;
}

/** Core's decodepsbt failures the review still shows, because the PSBT's form is sound. */
const CORE_UNSUPPORTED_VERSION = 'TX decode failed Unsupported version number: iostream error';
const CORE_NWU_MISMATCH = 'TX decode failed Non-witness UTXO does not match outpoint hash: iostream error';

const MAX_DIFFERENCES = 200;
const MAX_VALUE_TEXT = 1000;
/** How long the review waits for the node's tip and median time before going on without them. */
const TIP_TIMEOUT_MS = 3000;

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

// ——— the cross-check's tree walk ———

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function jsonText(x: unknown): string | null {
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

export class PsbtService {
  constructor(private readonly deps: PsbtServiceDeps) {}

  private profileId(): string | null {
    const st = this.deps.services.connectionState();
    if (st.state !== 'none') return st.profileId;
    return this.deps.profiles.getActiveId();
  }

  private networkFor(conn: ActiveConnection | null, pid: string | null, watched: readonly string[]): { net: Network; source: PsbtReviewContextView['chainSource'] } {
    if (conn) {
      const net = NETWORKS[conn.report.node.chain as Network['chain']];
      if (net) return { net, source: 'node' };
    }
    if (pid && this.deps.profiles.get(pid)?.isDemo) return { net: REGTEST, source: 'profile' };
    const inferred = inferNetwork(watched);
    if (inferred) return { net: inferred, source: 'watched-addresses' };
    return { net: MAINNET, source: 'default' };
  }

  /** The PSBT text as bytes and base64, or the typed error (Core's message for base64). */
  private read(text: string, encoding: PsbtEncoding): { bytes: Uint8Array; b64: string; encoding: 'base64' | 'hex' } {
    const t = psbtTextToBytes(text, encoding);
    if (!t.ok) {
      throw new AppError('input.invalid', t.message, t.encoding === 'base64' ? { coreCode: -22, field: 'psbt' } : { field: 'psbt', encoding: 'hex' });
    }
    return { bytes: t.bytes, b64: t.encoding === 'base64' ? text.trim() : base64.encode(t.bytes), encoding: t.encoding };
  }

  /** The node's tip height and median time, when connected and it answers quickly. */
  private async nodeTip(conn: ActiveConnection | null): Promise<{ blocks: number; mediantime: number } | null> {
    if (!conn) return null;
    try {
      const r = await conn.rpc.call<{ blocks?: unknown; mediantime?: unknown }>('getblockchaininfo', [], { wallet: false, timeoutMs: TIP_TIMEOUT_MS });
      if (typeof r?.blocks === 'number' && typeof r.mediantime === 'number') return { blocks: r.blocks, mediantime: r.mediantime };
    } catch (e) {
      this.deps.log.warn(`psbt: tip from the node failed: ${toIpcError(e).code}`);
    }
    return null;
  }

  async review(text: string, encoding: PsbtEncoding = 'auto'): Promise<PsbtReviewReply> {
    const input = this.read(text, encoding);
    const pid = this.profileId();
    const conn = this.deps.services.activeConnection();
    const watchedList = pid ? this.deps.repo.listAddresses(pid, { includeHidden: true }).map((a) => a.address) : [];
    const { net, source: chainSource } = this.networkFor(conn, pid, watchedList);

    const core = decodePsbtJson(input.b64, net);
    const parsed = parsePsbtForReview(input.bytes);
    if (!core.ok) {
      const shown =
        parsed.ok &&
        ((core.message === CORE_UNSUPPORTED_VERSION && parsed.psbt.version === 2) || (core.message === CORE_NWU_MISMATCH && hasNwuMismatch(parsed.psbt)));
      if (!shown) throw new AppError('input.invalid', core.message, { coreCode: -22, field: 'psbt' });
    }
    if (!parsed.ok) {
      throw new AppError('input.invalid', `Bitcoin Core decodes this PSBT, but Spyglass cannot review it: ${parsed.message}.`, { field: 'psbt' });
    }

    // What the store knows (all local: no network needed).
    const watched = new Set(watchedList);
    const snap = pid ? this.deps.repo.latestSnapshot(pid) : null;
    const received = snap ? this.deps.repo.received(snap.id) : new Map<string, { txids: string[]; nodeLabel: string }>();
    const used = new Set<string>();
    for (const [address, r] of received) if (r.txids.length > 0) used.add(address);
    if (pid && snap) for (const u of this.deps.repo.utxos(pid, null, snap.id)) used.add(u.address);

    const tipNode = await this.nodeTip(conn);
    let tipHeight: number | null = snap?.node?.height ?? null;
    let tipSource: PsbtReviewContextView['tipSource'] = tipHeight === null ? null : 'snapshot';
    const nodeHeight = tipNode?.blocks ?? conn?.report.node.blocks;
    if (nodeHeight !== undefined && (tipHeight === null || nodeHeight >= tipHeight)) {
      tipHeight = nodeHeight;
      tipSource = 'node';
    }

    // getaddressinfo ischange, only for the watched addresses this PSBT pays.
    const changeHints = new Map<string, { ischange: boolean }>();
    if (pid) {
      for (const o of parsed.psbt.outputs) {
        const dest = extractDestination(o.script);
        const address = dest ? encodeDestination(dest, net) : '';
        if (address === '' || !watched.has(address) || changeHints.has(address)) continue;
        const info = this.deps.repo.getInfo(pid, address)?.info;
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
      ...(tipNode ? { medianTime: tipNode.mediantime } : {}),
      now: this.deps.now?.() ?? Math.floor(Date.now() / 1000),
      ...(this.deps.thresholds ? { thresholds: this.deps.thresholds } : {}),
    });

    // Label slots: the spent output's label, else its address's; the node's address label last.
    if (pid) {
      const addrLabel = (a: string | null): string | null => {
        if (a === null) return null;
        const l = this.deps.repo.getLabel(pid, 'addr', a)?.label;
        if (l) return l;
        const nl = received.get(a)?.nodeLabel;
        return nl ? nl : null;
      };
      for (const i of review.inputs) i.label = this.deps.repo.getLabel(pid, 'output', i.outpoint)?.label ?? addrLabel(i.address);
      for (const o of review.outputs) o.label = addrLabel(o.address);
    }

    this.deps.log.info(`psbt: reviewed v${parsed.psbt.version} ${input.bytes.length} bytes, ${review.inputs.length} in, ${review.outputs.length} out, ${review.warnings.length} warnings${core.ok ? '' : ' (Core refuses it)'}`);
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
        offline: this.deps.services.connectionState().state !== 'connected',
      },
    };
  }

  async crosscheck(text: string, encoding: PsbtEncoding = 'auto'): Promise<PsbtCrosscheckReply> {
    const input = this.read(text, encoding);
    const unavailable = (reason: string): PsbtCrosscheckReply => ({
      agrees: false,
      nodeAvailable: false,
      reason,
      node: null,
      differences: [],
      truncated: false,
      offlineError: null,
      nodeError: null,
    });
    const conn = this.deps.services.activeConnection();
    if (!conn) return unavailable('Spyglass is not connected to a node, so only the offline decode is available. Connect on the Dashboard to cross-check.');
    const net = NETWORKS[conn.report.node.chain as Network['chain']] ?? MAINNET;
    const offline = decodePsbtJson(input.b64, net);

    let nodeResult: unknown;
    let nodeError: string | null = null;
    try {
      nodeResult = await conn.rpc.call('decodepsbt', [input.b64], { wallet: false, timeoutMs: 120_000 });
    } catch (e) {
      if (isAppError(e) && e.code === 'rpc.error' && e.detail?.coreCode === -22 && typeof e.detail.coreMessage === 'string') {
        nodeError = e.detail.coreMessage;
      } else {
        const err = toIpcError(e);
        this.deps.log.warn(`psbt: crosscheck decodepsbt failed ${err.code}`);
        return unavailable(`The node could not be asked: ${err.message}`);
      }
    }
    const nodeName = conn.report.node.subversion;
    const offlineError = offline.ok ? null : offline.message;
    if (offlineError !== null || nodeError !== null) {
      const agrees = offlineError !== null && offlineError === nodeError;
      return {
        agrees,
        nodeAvailable: true,
        reason: null,
        node: nodeName,
        differences: agrees
          ? []
          : [{ path: '', offline: offline.ok ? jsonText('decoded') : jsonText(offlineError), node: nodeError === null ? jsonText('decoded') : jsonText(nodeError) }],
        truncated: false,
        offlineError,
        nodeError,
      };
    }
    const { differences, truncated } = diffJson(JSON.parse(offline.ok ? offline.json : 'null') as unknown, nodeResult);
    return { agrees: differences.length === 0, nodeAvailable: true, reason: null, node: nodeName, differences, truncated, offlineError: null, nodeError: null };
  }
}
