// The incremental refresh (issue 18 item 1): after a new block or wallet transaction, bring the latest
// snapshot up to date touching only what changed, instead of the full refresh (engine.ts).
//
// The full refresh records the wallet's state (getwalletinfo: name, txcount, lastprocessedblock hash)
// its node rows are exact at (snapshot.wallet_state). From there:
//   1. `listsinceblock <that hash>` (include_removed), `getwalletinfo`, the recorded
//      block's header (its height; confirmations −1: no longer in the chain), both tips — at once;
//   2. the affected node addresses: every address an entry names, and the addresses whose coins the
//      wallet's sends spent (their inputs, from `gettransaction … verbose`, mapped to an address by the
//      snapshot's UTXOs or else by the previous transaction's output);
//   3. for those only: `listreceivedbyaddress` with `address_filter` (one JSON-RPC batch) and one
//      `listunspent` restricted to them; index `address/utxo` for them, for the node addresses whose
//      index UTXOs disagreed with the node or were looked up below their latest receive's block (an
//      index that lagged: one SQL query, store/incremental.ts needRecheck), and for the user-added
//      addresses when the index tip moved (as the full refresh does);
//   4. one transaction (store/incremental.ts): confirmed received entries + the new blocks, the
//      affected entries, UTXOs and totals.
// It falls back to the full refresh (and says why) when: there is no good latest snapshot that is
// also the last attempt, no recorded block, the recorded block left the chain (listsinceblock's
// `removed`, header confirmations −1, or the node does not know it), the watch set changed (an entry
// names a wallet address the snapshot lacks, or the stored watched set differs from the snapshot's),
// a block arrived between the calls, too many addresses were touched, or an index lookup was refused.
import { AppError, isAppError } from '../../../shared/errors';
import { silentLogger, type Logger } from '../log';
import type { ReceivedRecord, Tip, WalletScope, WatchRepository } from '../store/watch';
import type { IndexUtxo } from '../blockindex/types';
import {
  changeByAddress,
  EMPTY_NODE_UNSPENT,
  parseNodeTip,
  parseReceived,
  parseUnspent,
  type RefreshEngine,
  type RefreshIndex,
  type RefreshResult,
  type RefreshRpc,
  type RefreshRunOptions,
} from './engine';
import { samePending } from './node-replies';

export interface IncrementalOptions {
  engine: Pick<RefreshEngine, 'run'>;
  store: WatchRepository;
  rpc: RefreshRpc;
  index: RefreshIndex;
  profileId: string;
  /** The node wallet refreshed (as RefreshEngineOptions.wallet; omitted: the wallet the profile names). */
  wallet?: string;
  now?: () => number;
  log?: Logger;
  /** More affected addresses than this: the full refresh does it (default 1,000). */
  maxAffected?: number;
}

export type IncrementalResult = RefreshResult & {
  mode: 'incremental' | 'full';
  /** Why the full refresh ran instead (null when incremental). */
  fallback: string | null;
  /** Milliseconds per phase of the incremental refresh (empty for a full one). */
  phases: Record<string, number>;
  /** The addresses whose rows were touched (incremental only). */
  affected: string[];
  /** What changed, for the payment notices (incremental only; a full refresh has two snapshots to compare). */
  change: {
    before: ReadonlyMap<string, ReceivedRecord>;
    after: ReadonlyMap<string, ReceivedRecord>;
    newUtxos: Array<{ address: string; txid: string; amountSats: bigint; height: number | null }>;
  } | null;
};

const HEX64 = /^[0-9a-f]{64}$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

class Fallback extends Error {}

/** "<walletname>:<txcount>:<hash>" → the hash (null when not in that form). */
export function recordedBlock(walletState: string | null): string | null {
  const h = walletState?.slice(-64) ?? null;
  return h !== null && HEX64.test(h) && walletState!.at(-65) === ':' ? h : null;
}

export class IncrementalRefresh {
  readonly #o: IncrementalOptions;
  readonly #log: Logger;
  readonly #now: () => number;
  #running: Promise<IncrementalResult> | null = null;

  #scope(): WalletScope {
    return this.#o.wallet === undefined ? this.#o.profileId : { profileId: this.#o.profileId, wallet: this.#o.wallet };
  }

  constructor(o: IncrementalOptions) {
    this.#o = o;
    this.#log = o.log ?? silentLogger;
    this.#now = o.now ?? Date.now;
  }

  get running(): boolean {
    return this.#running !== null;
  }

  /** The incremental refresh, or the full one when it cannot be (see the top of the file). */
  run(opts: RefreshRunOptions = {}): Promise<IncrementalResult> {
    return (this.#running ??= this.#run(opts).finally(() => (this.#running = null)));
  }

  async #run(opts: RefreshRunOptions): Promise<IncrementalResult> {
    try {
      return await this.#incremental(opts);
    } catch (e) {
      if (!(e instanceof Fallback)) throw this.#failed(e, opts.signal);
      this.#log.info(`refresh: full refresh (${e.message})`);
      const r = await this.#o.engine.run(opts);
      return { ...r, mode: 'full', fallback: e.message, affected: [], change: null, phases: {} };
    }
  }

  /**
   * A failure that is not a reason to fall back (the node or the index down, a reply that is not what
   * it should be) is recorded as the full refresh records its own (a 'failed' row; the next refresh is
   * then a full one); a cancel is not a failure.
   */
  #failed(e: unknown, signal: AbortSignal | undefined): AppError {
    if (signal?.aborted) return new AppError('cancelled', 'The refresh was cancelled.');
    const err = isAppError(e) ? e : new AppError('internal', 'The refresh failed inside Spyglass. The details were written to the log.');
    if (!isAppError(e)) this.#log.error(`refresh: unexpected ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    if (err.code === 'cancelled') return err;
    try {
      this.#o.store.recordFailure(this.#scope(), { takenAt: new Date(this.#now()).toISOString(), step: 'received', code: err.code, message: err.message });
    } catch (e2) {
      this.#log.error(`refresh: could not record the failure: ${e2 instanceof Error ? e2.message : String(e2)}`);
    }
    this.#log.warn(`refresh: incremental refresh failed: ${err.code} ${err.message}`);
    return err;
  }

  async #incremental(opts: RefreshRunOptions): Promise<IncrementalResult> {
    const { store, rpc, index } = this.#o;
    const scope = this.#scope();
    const t0 = performance.now();
    const phases: Record<string, number> = {};
    let tp = t0;
    const lap = (name: string): void => {
      const t = performance.now();
      phases[name] = Math.round((t - tp) * 10) / 10;
      tp = t;
    };
    const callOpts = opts.signal ? { signal: opts.signal } : {};
    const takenAt = new Date(this.#now()).toISOString();
    const prev = store.latestSnapshot(scope);
    if (prev === null || prev.status !== 'ok') throw new Fallback('no good latest snapshot');
    if (store.lastAttempt(scope)?.id !== prev.id) throw new Fallback('the last refresh failed');
    const since = recordedBlock(prev.walletState);
    if (since === null) throw new Fallback('no recorded wallet block');
    if (!store.sameWatchSet(scope, prev.id)) throw new Fallback('the watch set changed');
    const users = store.userAddressesOf(prev.id);
    const addressCount = prev.addressCount ?? 0;

    lap('snapshot');
    let sinceReply: unknown;
    let header: unknown;
    let info: unknown;
    let nodeTip: Tip;
    let indexTip: Tip;
    try {
      [sinceReply, header, info, nodeTip, indexTip] = await Promise.all([
        rpc.call('listsinceblock', { blockhash: since, target_confirmations: 1, include_removed: true }, callOpts),
        rpc.call('getblockheader', [since], { ...callOpts, wallet: false }),
        rpc.call('getwalletinfo', [], callOpts),
        rpc.call('getblockchaininfo', [], { ...callOpts, wallet: false }).then(parseNodeTip),
        index.tip(callOpts),
      ]);
    } catch (e) {
      if (isAppError(e) && e.code === 'rpc.error') throw new Fallback(`the node could not list since the recorded block: ${e.message}`);
      throw e;
    }
    if (!isRecord(sinceReply) || !Array.isArray(sinceReply.transactions)) throw new AppError('rpc.bad_reply', 'The node answered listsinceblock without a list of transactions.');
    if (Array.isArray(sinceReply.removed) && sinceReply.removed.length > 0) throw new Fallback('a reorganization removed transactions');
    if (!isRecord(header) || typeof header.height !== 'number' || typeof header.confirmations !== 'number') throw new AppError('rpc.bad_reply', 'The node answered getblockheader without height and confirmations.');
    if (header.confirmations < 1) throw new Fallback('the recorded block is no longer in the chain');
    const lpb = isRecord(info) && isRecord(info.lastprocessedblock) ? info.lastprocessedblock : null;
    if (!isRecord(info) || lpb === null || typeof lpb.hash !== 'string' || typeof lpb.height !== 'number' || typeof info.walletname !== 'string' || typeof info.txcount !== 'number') {
      throw new Fallback('the node does not report the wallet state');
    }
    if (sinceReply.lastblock !== lpb.hash) throw new Fallback('a block arrived during the refresh');
    const walletState = `${info.walletname.slice(0, 100)}:${info.txcount}:${lpb.hash}`;
    const blocks = lpb.height - header.height;
    if (!Number.isSafeInteger(blocks) || blocks < 0) throw new Fallback('the wallet is behind the recorded block');

    lap('since');
    // ---- affected addresses
    const entries = sinceReply.transactions as unknown[];
    // The snapshot's entries of the addresses named (only those rows are read).
    const prevReceived = store.receivedOf(prev.id, entries.flatMap((e) => (isRecord(e) && typeof e.address === 'string' ? [e.address] : [])));
    const affected = new Set<string>();
    const sends = new Set<string>();
    for (const e of entries) {
      if (!isRecord(e) || typeof e.txid !== 'string' || !HEX64.test(e.txid)) throw new AppError('rpc.bad_reply', 'listsinceblock lists an entry without a txid.');
      if (typeof e.address === 'string') {
        const was = prevReceived.get(e.address);
        // Still in the mempool and already counted by the snapshot: nothing changed for it.
        if (was !== undefined && e.category === 'receive' && e.confirmations === 0 && was.confirmations === 0 && was.txids.includes(e.txid)) continue;
        if (was !== undefined) affected.add(e.address);
        // An address-book entry (it has a label) the snapshot lacks: listreceivedbyaddress lists it now.
        // Without a label it is a change address, which listreceivedbyaddress never lists.
        else if (e.category !== 'send' && 'label' in e) throw new Fallback(`the wallet has an address the snapshot lacks (${e.address})`);
      }
      if (e.category === 'send') sends.add(e.txid);
    }
    const { spent: spentFrom, change } = await this.#spentFrom([...sends], prev.id, callOpts);
    for (const [a, r] of store.receivedOf(prev.id, spentFrom)) {
      prevReceived.set(a, r);
      affected.add(a);
    }
    // The sends' change (rows only the full refresh adds; engine.ts changeRecords): a new change
    // address needs it; the known ones are touched only when what they hold moved.
    const changeNow = await this.#changeNow([...change], prev.id, callOpts);
    for (const [a, r] of changeNow) {
      prevReceived.set(a, store.receivedOf(prev.id, [a]).get(a)!);
      if (!sameChange(r, prevReceived.get(a)!)) affected.add(a);
    }
    if (affected.size > (this.#o.maxAffected ?? 1000)) throw new Fallback(`${affected.size} addresses touched`);
    const list = [...affected];

    lap('affected');
    // ---- the node's answer for them and the index's, at once
    const nodeAnswer =
      list.length === 0
        ? Promise.resolve(null)
        : Promise.all([
            rpc.batch(
              list.map((a) => ({ method: 'listreceivedbyaddress', params: { minconf: 0, include_empty: true, address_filter: a } })),
              callOpts,
            ),
            rpc.call('listunspent', [0, 9_999_999, list], callOpts),
          ]);
    nodeAnswer.catch(() => {}); // awaited below; a rejection meanwhile is not unhandled
    // The index: the affected addresses, the node addresses it disagreed with or was behind for at
    // the last lookup, and the user's when its tip moved.
    const lookUp = [...list];
    for (const a of store.needRecheck(prev.id, header.height)) if (!affected.has(a)) lookUp.push(a);
    if (prev.index === null || prev.index.hash !== indexTip.hash) lookUp.push(...users);
    const before = new Map<string, string[]>();
    for (const a of lookUp) before.set(a, store.utxos(scope, a, prev.id).map((u) => `${u.txid}:${u.vout}`));
    const got = await Promise.all(
      lookUp.map(async (address) => {
        try {
          return { address, utxos: (await index.addressUtxo(address, callOpts)).map(toRecord) };
        } catch (e) {
          if (isAppError(e) && (e.code === 'index.invalid' || e.code === 'index.not_found')) throw new Fallback(`the index refused ${address}`);
          throw e;
        }
      }),
    );
    lap('index');
    const received: ReceivedRecord[] = [];
    const answer = await nodeAnswer;
    if (answer !== null) {
      const [replies, unspentReply] = answer;
      const unspent = parseUnspent(unspentReply, 1);
      const listedNow = new Set(replies.flatMap((r, i) => (r.ok && parseReceived(r.value).some((x) => x.address === list[i]) ? [list[i]!] : [])));
      const changeRows = changeByAddress(unspentReply, listedNow, unspent);
      replies.forEach((r, i) => {
        if (!r.ok) throw new AppError('rpc.bad_reply', `listreceivedbyaddress for ${list[i]}: ${r.error.message}`);
        const rec = parseReceived(r.value).find((x) => x.address === list[i]);
        if (rec === undefined) {
          // Not listed: a change row of the snapshot (what it holds now), else it left the wallet.
          const was = prevReceived.get(list[i]!);
          if (was === undefined || was.nodeLabel !== '') throw new Fallback(`${list[i]} left the wallet`);
          const now = changeRows.get(list[i]!);
          // Its coins spent: the full refresh drops the row (listunspent no longer names it).
          if (now === undefined) throw new Fallback(`the change at ${list[i]} was spent`);
          received.push(now);
          return;
        }
        rec.nodeUnspent = prevReceived.get(rec.address)?.nodeUnspent === null ? null : (unspent.get(rec.address) ?? EMPTY_NODE_UNSPENT);
        received.push(rec);
      });
    }
    lap('node');

    // ---- write
    store.applyIncrement(scope, { snapshotId: prev.id, takenAt, node: nodeTip, index: indexTip, walletState, blocks, received, lookedUp: got });
    const added: Array<{ address: string; txid: string; amountSats: bigint; height: number | null }> = [];
    let newSats = 0n;
    let spentUtxos = 0;
    const snapAfter = store.latestSnapshot(scope)!;
    for (const g of got) {
      const was = new Set(before.get(g.address));
      for (const u of g.utxos) {
        if (was.delete(`${u.txid}:${u.vout}`)) continue;
        added.push({ address: g.address, txid: u.txid, amountSats: u.amountSats, height: u.height });
        newSats += u.amountSats;
      }
      spentUtxos += was.size;
    }
    const newUtxos = added.length;
    lap('write');
    const total = Math.round(performance.now() - t0);
    const changed = received.length > 0 || newUtxos > 0 || spentUtxos > 0;
    this.#log.info(`refresh: incremental, ${blocks} new block(s), ${list.length} address(es) touched, ${lookUp.length} lookup(s) in ${total} ms`);
    return {
      mode: 'incremental',
      fallback: null,
      affected: list,
      phases,
      change: { before: prevReceived, after: new Map(received.map((r) => [r.address, r])), newUtxos: added },
      snapshotId: prev.id,
      previousId: prev.id,
      status: 'ok',
      unchanged: !changed,
      takenAt,
      node: nodeTip,
      index: indexTip,
      counts: {
        addresses: snapAfter.addressCount ?? addressCount,
        nodeAddresses: addressCount - users.length,
        userAddresses: users.length,
        infosFetched: 0,
        infoErrors: 0,
        utxoLookups: lookUp.length,
        utxoFailures: 0,
        carriedForward: addressCount - lookUp.length,
        utxosFetched: got.reduce((n, g) => n + g.utxos.length, 0),
      },
      fetched: lookUp,
      diff: { newUtxos, newSats, spentUtxos, spentSats: 0n, newTxids: 0 },
      spendCheck: 'listunspent',
      timings: { received: 0, addressinfo: 0, tips: 0, utxos: 0, write: 0, total },
    };
  }

  /** The addresses whose coins the transactions `txids` (the wallet's sends) spent. */
  async #spentFrom(txids: string[], snapshotId: number, callOpts: { signal?: AbortSignal }): Promise<{ spent: Set<string>; change: Set<string> }> {
    const out = new Set<string>();
    if (txids.length === 0) return { spent: out, change: new Set() };
    const { inputs, change } = await this.#inputsOf(txids, callOpts);
    const owners = this.#o.store.outpointOwners(snapshotId, inputs);
    const unknown = inputs.filter((k) => !owners.has(k));
    for (const a of owners.values()) out.add(a);
    if (unknown.length > 0) {
      const prevTxids = [...new Set(unknown.map((k) => k.split(':')[0]!))];
      const replies = await this.#o.rpc.batch(
        prevTxids.map((t) => ({ method: 'gettransaction', params: [t, true, true] })),
        callOpts,
      );
      const byTx = new Map<string, unknown>();
      replies.forEach((r, i) => byTx.set(prevTxids[i]!, r.ok ? r.value : null));
      for (const k of unknown) {
        const [t, v] = k.split(':');
        const dec = byTx.get(t!);
        const vout = isRecord(dec) && isRecord(dec.decoded) && Array.isArray(dec.decoded.vout) ? (dec.decoded.vout[Number(v)] as unknown) : null;
        const spk = isRecord(vout) && isRecord(vout.scriptPubKey) ? vout.scriptPubKey : null;
        if (spk !== null && typeof spk.address === 'string') out.add(spk.address);
      }
    }
    return { spent: out, change };
  }

  /**
   * What the sends' change addresses hold now (listunspent 0 restricted to them). One not in the
   * snapshot is a new change address: the full refresh adds it.
   */
  async #changeNow(addresses: string[], snapshotId: number, callOpts: { signal?: AbortSignal }): Promise<Map<string, ReceivedRecord>> {
    if (addresses.length === 0) return new Map();
    const known = this.#o.store.receivedOf(snapshotId, addresses);
    for (const a of addresses) if (!known.has(a)) throw new Fallback(`a spend with change to a new address (${a})`);
    const reply = await this.#o.rpc.call('listunspent', [0, 9_999_999, addresses], callOpts);
    const rows = changeByAddress(reply, new Set(), parseUnspent(reply, 1));
    for (const a of addresses) if (!rows.has(a)) throw new Fallback(`the change at ${a} was spent`);
    return rows;
  }

  /** The outpoints ("txid:vout") the transactions spend, and their change addresses (gettransaction verbose, one batch). */
  async #inputsOf(txids: string[], callOpts: { signal?: AbortSignal }): Promise<{ inputs: string[]; change: Set<string> }> {
    const replies = await this.#o.rpc.batch(
      txids.map((t) => ({ method: 'gettransaction', params: [t, true, true] })),
      callOpts,
    );
    const out: string[] = [];
    const change = new Set<string>();
    replies.forEach((r, i) => {
      if (!r.ok) throw new Fallback(`gettransaction ${txids[i]}: ${r.error.message}`);
      const dec = isRecord(r.value) && isRecord(r.value.decoded) ? r.value.decoded : null;
      if (dec === null || !Array.isArray(dec.vin)) throw new AppError('rpc.bad_reply', `gettransaction ${txids[i]} has no decoded inputs.`);
      for (const vin of dec.vin as unknown[]) {
        if (isRecord(vin) && typeof vin.txid === 'string' && typeof vin.vout === 'number') out.push(`${vin.txid}:${vin.vout}`);
      }
      // Change: an output the wallet leaves out of the transaction's details (engine.ts changeRecords).
      const listed = new Set(isRecord(r.value) && Array.isArray(r.value.details) ? r.value.details.flatMap((d: unknown) => (isRecord(d) && typeof d.address === 'string' ? [d.address] : [])) : []);
      for (const o of Array.isArray(dec.vout) ? (dec.vout as unknown[]) : []) {
        const spk = isRecord(o) && isRecord(o.scriptPubKey) ? o.scriptPubKey : null;
        if (spk !== null && typeof spk.address === 'string' && !listed.has(spk.address)) change.add(spk.address);
      }
    });
    return { inputs: out, change };
  }
}

/** A change row holds the same as before (then it is not touched). */
function sameChange(a: ReceivedRecord, b: ReceivedRecord): boolean {
  return a.amountSats === b.amountSats && a.confirmations === b.confirmations && a.txids.join() === b.txids.join() && a.nodeUnspent?.hash === b.nodeUnspent?.hash && samePending(a.nodeUnspent, b.nodeUnspent);
}

function toRecord(u: IndexUtxo): { txid: string; vout: number; amountSats: bigint; height: number | null } {
  return { txid: u.txId, vout: u.vOut, amountSats: u.amount, height: u.block };
}
