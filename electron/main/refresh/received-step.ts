// The refresh's first step (engine.ts, "received"): what the node's wallet has received
// (`listreceivedbyaddress`), and, when spends are checked, the node's own unspent outputs per address
// and the wallet's change addresses that hold coins (one `listunspent`, skipped while the wallet's
// state is the one the latest snapshot recorded). The engine's header comment says why each call.
import type { Logger } from '../log';
import type { AddressFetch, ReceivedRecord, WalletScope, WatchRepository } from '../store/watch';
import type { RefreshResult, RefreshRpc } from './engine-types';
import { changeByAddress, EMPTY_NODE_UNSPENT, LIST_RECEIVED_PARAMS, parseReceived, parseUnspent, walletStateOf } from './node-replies';
import type { Slicer } from './slice';

export interface ReceivedStep {
  prev: ReturnType<WatchRepository['latestSnapshot']>;
  prevReceived: Map<string, ReceivedRecord>;
  prevFetch: Map<string, AddressFetch>;
  /** The node's addresses (change addresses with coins included), with their node-unspent digests. */
  received: ReceivedRecord[];
  /** The wallet state the rows are exact at, or null when the wallet moved meanwhile (or is not checked). */
  walletState: string | null;
  /** How many replies were parsed (for the engine's memory release). */
  handled: number;
  spendCheck: RefreshResult['spendCheck'];
}

export async function readReceived(a: {
  store: WatchRepository;
  scope: WalletScope;
  rpc: RefreshRpc;
  checkSpends: boolean;
  callOpts: { signal?: AbortSignal };
  log: Logger;
  slicer: Slicer;
}): Promise<ReceivedStep> {
  let spendCheck: RefreshResult['spendCheck'] = 'off';
  const prev = a.store.latestSnapshot(a.scope);
  const prevReceived = prev === null ? new Map<string, ReceivedRecord>() : a.store.received(prev.id);
  const prevFetch = prev === null ? new Map<string, AddressFetch>() : a.store.fetchStates(prev.id);
  await a.slicer.pause();
  const [walletStateBefore, receivedReply] = await Promise.all([
    a.checkSpends ? walletStateOf(a.rpc, a.callOpts, a.log) : Promise.resolve(null),
    // Named, without include_watchonly (no effect on descriptor wallets; removed after v30, which
    // shifts the positions of the arguments after it): valid in every Core variant (spec §7).
    a.rpc.call('listreceivedbyaddress', LIST_RECEIVED_PARAMS, a.callOpts),
  ]);
  const received = parseReceived(receivedReply);
  await a.slicer.pause();
  // The state is what the snapshot's node rows are exact at (the incremental refresh lists what
  // happened since its block, refresh/incremental.ts): asked again, and not recorded when the
  // wallet moved while listreceivedbyaddress was read (then the next refresh is a full one).
  const walletState = walletStateBefore !== null && (await walletStateOf(a.rpc, a.callOpts, a.log)) === walletStateBefore ? walletStateBefore : null;
  let handled = received.length;
  if (a.checkSpends) {
    const reuse =
      walletState !== null && prev !== null && prev.walletState === walletState && received.every((r) => prevReceived.get(r.address)?.nodeUnspent != null);
    const listed = new Set(received.map((r) => r.address));
    if (reuse) {
      for (const r of received) r.nodeUnspent = prevReceived.get(r.address)!.nodeUnspent;
      // The same wallet state: the same change coins as the previous snapshot's change rows.
      for (const r of prevReceived.values()) if (!listed.has(r.address)) received.push(r);
    } else {
      const reply = await a.rpc.call('listunspent', [0], a.callOpts);
      handled += Array.isArray(reply) ? reply.length : 0;
      const unspent = parseUnspent(reply, 1);
      for (const r of received) r.nodeUnspent = unspent.get(r.address) ?? EMPTY_NODE_UNSPENT;
      const change = changeByAddress(reply, listed, unspent);
      received.push(...change.values());
      await a.slicer.pause();
    }
    spendCheck = reuse ? 'reused' : 'listunspent';
  }
  return { prev, prevReceived, prevFetch, received, walletState, handled, spendCheck };
}
