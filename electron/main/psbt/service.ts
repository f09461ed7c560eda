// PSBT review behind the `psbt:*` channels. The review works fully offline: the PSBT is decoded by
// the shared decoder (Core's exact decodepsbt JSON, current Core's rules: version 0 and version 2) and
// reviewed against what the store knows about the active profile. That work runs in the PSBT worker
// (jobs.ts via runner.ts), so a huge PSBT never blocks main; this class adds what needs the network —
// the node's tip, and `psbt:crosscheck`, which asks the node's own `decodepsbt` in a form the node
// reads (a Core v30 node gets the version 0 form of a version 2 PSBT) and compares.
import { isAppError, toIpcError } from '../../../shared/errors';
import type { PsbtConvertReply, PsbtCrosscheckReply, PsbtQrReply, PsbtReviewPageReply, PsbtReviewReply } from '../../../shared/ipc/contract';
import { nodeCoreVersion, type CoreVersion, type PsbtEncoding, type ReviewThresholds } from '../../../shared/bitcoin/psbt';
import type { Logger } from '../log';
import type { ActiveConnection, Services } from '../services';
import type { ProfileRepository } from '../store/profiles';
import type { WatchRepository } from '../store/watch';
import { jsonText, readPsbtText, type ReviewRequest } from './jobs';
import { InlineRunner, type PsbtRunner } from './runner';

export { diffJson, inferNetwork } from './jobs';

export interface PsbtServiceDeps {
  services: Services;
  repo: WatchRepository;
  profiles: ProfileRepository;
  log: Logger;
  /** Where the jobs run (the app: the PSBT worker); default inline, on `repo` and `profiles`. */
  runner?: PsbtRunner;
  /** Unix seconds (tests pin it). */
  now?: () => number;
  /** The fee warnings' limits (the settings), read at each review. */
  thresholds?: Partial<ReviewThresholds> | (() => Partial<ReviewThresholds>);
  /** The active wallet's descriptors of a profile (the review names each input's spending paths from them). */
  walletDescriptors?: (profileId: string) => string[];
}

/** How long the review waits for the node's tip and median time before going on without them. */
const TIP_TIMEOUT_MS = 3000;

/** The PSBT generation of the connected node. */
export function connectionCoreVersion(conn: ActiveConnection): CoreVersion {
  return nodeCoreVersion(conn.report.node.version);
}

export class PsbtService {
  readonly #runner: PsbtRunner;

  constructor(private readonly deps: PsbtServiceDeps) {
    this.#runner = deps.runner ?? new InlineRunner({ repo: deps.repo, profiles: deps.profiles });
  }

  close(): Promise<void> {
    return this.#runner.close();
  }

  private profileId(): string | null {
    const st = this.deps.services.connectionState();
    if (st.state !== 'none') return st.profileId;
    return this.deps.profiles.getActiveId();
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

  /** What the worker needs to review `text` (the node's tip only when `tip`: the rows do not depend on it). */
  private async reviewRequest(text: string, encoding: PsbtEncoding, tip: boolean): Promise<ReviewRequest> {
    const conn = this.deps.services.activeConnection();
    return {
      text,
      encoding,
      profileId: this.profileId(),
      nodeChain: conn?.report.node.chain ?? null,
      nodeCoreVersion: conn ? connectionCoreVersion(conn) : null,
      nodeTip: tip ? await this.nodeTip(conn) : null,
      reportHeight: conn?.report.node.blocks ?? null,
      offline: this.deps.services.connectionState().state !== 'connected',
      now: this.deps.now?.() ?? Math.floor(Date.now() / 1000),
      ...(this.deps.thresholds ? { thresholds: typeof this.deps.thresholds === 'function' ? this.deps.thresholds() : this.deps.thresholds } : {}),
      descriptors: await this.#walletDescriptors(conn),
    };
  }

  /** The wallet's descriptors: the node's (listdescriptors) when it answers, and those kept here. */
  async #walletDescriptors(conn: ActiveConnection | null): Promise<string[]> {
    const pid = this.profileId();
    const kept = pid && this.deps.walletDescriptors ? this.deps.walletDescriptors(pid) : [];
    if (!conn || !conn.report.node.wallet) return kept;
    try {
      const r = await conn.rpc.call<{ descriptors?: Array<{ desc?: unknown }> }>('listdescriptors', [], { timeoutMs: TIP_TIMEOUT_MS });
      const listed = (r?.descriptors ?? []).flatMap((d) => (typeof d.desc === 'string' ? [d.desc] : []));
      return [...listed, ...kept];
    } catch (e) {
      this.deps.log.warn(`psbt: the wallet's descriptors from the node failed: ${toIpcError(e).code}`);
      return kept;
    }
  }

  async review(text: string, encoding: PsbtEncoding = 'auto'): Promise<PsbtReviewReply> {
    const reply = await this.#runner.run('review', await this.reviewRequest(text, encoding, true));
    const sm = reply.review.summary;
    this.deps.log.info(`psbt: reviewed v${reply.version} ${reply.bytes} bytes, ${sm.inputCount} in, ${sm.outputCount} out, ${reply.review.warnings.length} warnings${reply.coreError ? ' (Core refuses it)' : ''}`);
    return reply;
  }

  /** A range of a review's rows: the worker's copy of review `key`, or `text` reviewed again when that copy is gone. */
  async reviewPage(req: { key: string; psbt?: string | undefined; encoding: PsbtEncoding; side: 'inputs' | 'outputs'; from: number; count: number }): Promise<PsbtReviewPageReply> {
    const review = req.psbt === undefined ? null : await this.reviewRequest(req.psbt, req.encoding, false);
    return this.#runner.run('review-page', { key: req.key, review, side: req.side, from: req.from, count: req.count });
  }

  /** Core's JSON of a review, when too long for its reply. */
  async reviewCoreJson(req: { key: string; psbt?: string | undefined; encoding: PsbtEncoding }): Promise<{ json: string | null }> {
    const review = req.psbt === undefined ? null : await this.reviewRequest(req.psbt, req.encoding, false);
    return { json: await this.#runner.run('review-core-json', { key: req.key, review }) };
  }

  convert(text: string, encoding: PsbtEncoding, to: 0 | 2): Promise<PsbtConvertReply> {
    return this.#runner.run('convert', { text, encoding, to });
  }

  /** `count` UR parts from part `from` (the first page by default). */
  qr(text: string, encoding: PsbtEncoding, fragmentLength: number, from = 0, count?: number): Promise<PsbtQrReply> {
    return this.#runner.run('qr', { text, encoding, fragmentLength, from, count });
  }

  async crosscheck(text: string, encoding: PsbtEncoding = 'auto'): Promise<PsbtCrosscheckReply> {
    const unavailable = (reason: string): PsbtCrosscheckReply => ({
      agrees: false,
      nodeAvailable: false,
      reason,
      node: null,
      differences: [],
      truncated: false,
      offlineError: null,
      nodeError: null,
      asked: null,
    });
    const conn = this.deps.services.activeConnection();
    if (!conn) {
      readPsbtText(text, encoding); // still refuse what is not a PSBT at all, as the review does
      return unavailable('Spyglass is not connected to a node, so only the offline decode is available. Connect on the Dashboard to cross-check.');
    }
    const generation = connectionCoreVersion(conn);
    const nodeName = conn.report.node.subversion;
    const prepared = await this.#runner.run('crosscheck-prepare', { text, encoding, chain: conn.report.node.chain, nodeCoreVersion: generation });
    if (prepared.noV0Form !== null) {
      return unavailable(`Your node (${nodeName}) reads only version 0 PSBTs, and this version 2 PSBT has no version 0 form: ${prepared.noV0Form}. The offline decode is all there is.`);
    }

    let nodeResult: unknown;
    let nodeError: string | null = null;
    try {
      nodeResult = await conn.rpc.call('decodepsbt', [prepared.base64], { wallet: false, timeoutMs: 120_000 });
    } catch (e) {
      if (isAppError(e) && e.code === 'rpc.error' && e.detail?.coreCode === -22 && typeof e.detail.coreMessage === 'string') {
        nodeError = e.detail.coreMessage;
      } else {
        const err = toIpcError(e);
        this.deps.log.warn(`psbt: crosscheck decodepsbt failed ${err.code}`);
        return unavailable(`The node could not be asked: ${err.message}`);
      }
    }
    const offlineError = prepared.offline.ok ? null : prepared.offline.message;
    const base = { nodeAvailable: true, reason: null, node: nodeName, truncated: false, asked: prepared.asked };
    if (offlineError !== null || nodeError !== null) {
      const agrees = offlineError !== null && offlineError === nodeError;
      return {
        ...base,
        agrees,
        differences: agrees ? [] : [{ path: '', offline: offlineError === null ? jsonText('decoded') : jsonText(offlineError), node: nodeError === null ? jsonText('decoded') : jsonText(nodeError) }],
        offlineError,
        nodeError,
      };
    }
    const { differences, truncated } = await this.#runner.run('crosscheck-diff', { offlineJson: prepared.offline.ok ? prepared.offline.json : 'null', nodeResult });
    return { ...base, agrees: differences.length === 0, differences, truncated, offlineError: null, nodeError: null };
  }
}
