// The refresh's `received` step where the snapshot is written (the import worker's snapshot-received
// job; received-step.ts `elsewhere`): listreceivedbyaddress (2.6 MB for 10,000 addresses) and the
// wallet-wide listunspent (11.9 MB for 20,000 coins, every coin with its descriptor) are asked here
// by the refresh's session client (worker-session.ts: built from the main thread's own with
// RpcClient.handoff()) and parsed here, with the same functions as on main (node-replies.ts). The
// main thread reads back only the records it needs, a page at a time: the received records, then
// their node-unspent digests and the change rows (issue #27: those two replies parsed on main held
// it 300+ ms). Errors are the client's own AppErrors, sent back as IpcErrors. The wallet-state check
// (getwalletinfo before and after listreceivedbyaddress) stays on main, around these jobs.
import type { RpcHandoff } from '../rpc/client';
import type { NodeUnspent, ReceivedRecord } from '../store/watch';
import { addUnspent, LIST_RECEIVED_PARAMS, parseReceived } from './node-replies';
import { openSession, stillOpen, workerSession } from './worker-session';

/** One job of the step, in this order: list, its pages, [unspent, its pages,] release. */
export type ReceivedOp =
  /** Asks listreceivedbyaddress and keeps its records (nodeUnspent null). */
  | { op: 'list' }
  /** Asks listunspent, gives the kept records their digests and appends the change rows. */
  | { op: 'unspent' }
  /** A page of the kept records (`records`), or only their digests (`unspent`). */
  | { op: 'page'; what: 'records' | 'unspent'; from: number; size: number }
  /** The main thread has read what it needs: the records are dropped here (the session stays). */
  | { op: 'release' };

export type ReceivedJobRequest = ReceivedOp & {
  /** The refresh's session (worker-session.ts). */
  session: string;
  /** The main thread's client, to build the same one here (never stored, logged or sent back). */
  rpc: RpcHandoff;
};

export interface ReceivedJobReply {
  /** Records kept (listreceivedbyaddress's, and after `unspent` the change rows after them). */
  count: number;
  /** How many of them listreceivedbyaddress listed. */
  listed: number;
  /** Entries of the reply parsed by this job (list: addresses; unspent: coins). */
  parsed: number;
  records?: ReceivedRecord[];
  unspent?: Array<NodeUnspent | null>;
}

export async function receivedJob(req: ReceivedJobRequest): Promise<ReceivedJobReply> {
  if (req.op === 'list') {
    const s = workerSession(req.session, req.rpc);
    const reply = await s.rpc.call('listreceivedbyaddress', LIST_RECEIVED_PARAMS, { signal: s.abort.signal });
    stillOpen(req.session, s);
    s.received = parseReceived(reply);
    s.listed = s.received.length;
    return { count: s.listed, listed: s.listed, parsed: s.listed };
  }
  const s = openSession(req.session);
  if (req.op === 'release') {
    s.received = null;
    return { count: 0, listed: 0, parsed: 0 };
  }
  const kept = s.received;
  if (kept === null) throw new Error(`The refresh's received records are not kept here (${req.op} before list).`);
  if (req.op === 'unspent') {
    const reply = await workerSession(req.session, req.rpc).rpc.call('listunspent', [0], { signal: s.abort.signal });
    stillOpen(req.session, s);
    const parsed = addUnspent(kept, reply);
    return { count: kept.length, listed: s.listed, parsed };
  }
  const page = kept.slice(req.from, req.from + req.size);
  const base = { count: kept.length, listed: s.listed, parsed: 0 };
  return req.what === 'records' ? { ...base, records: page } : { ...base, unspent: page.map((r) => r.nodeUnspent) };
}
