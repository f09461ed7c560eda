// A refresh's session in the import worker: the node client it asks with (built from the main
// thread's own, RpcClient.handoff(): the same URL, credentials, wallet, timeouts, warm-up retries and
// redaction — the credentials came over in-process and are kept only in that client), the abort of
// its call under way, and what the `received` step parsed here until the main thread has read it
// (received-job.ts). Used by the getaddressinfo batches (info-batches.ts) and the received step; the
// index lookups (lookup-job.ts) keep their index client here too (built from main's, on main's budget).
//
// One session per refresh, made at its first job, ended when the refresh's parts are written or
// dropped (endWorkerSession, from the snapshot-write and snapshot-part jobs): a cancelled or failed
// refresh drops it, which aborts the call under way — its reply is not kept.
import { AppError } from '../../../shared/errors';
import { readCookie } from '../credentials';
import type { IndexClient } from '../blockindex/client';
import type { IndexUtxo } from '../blockindex/types';
import { RpcClient, type RpcHandoff } from '../rpc/client';
import type { ReceivedRecord } from '../store/watch';

export interface WorkerSession {
  /** The node client (null for a session only the index lookups opened, until a node job comes). */
  rpc: RpcClient | null;
  /** The index client of the lookups (lookup-job.ts: built from main's, paced by main's budget), once they started. */
  index: IndexClient | null;
  /** The lookups' UTXOs by address, kept for the snapshot's write (lookup-job.ts, snapshot-writer.ts). */
  kept: Map<string, IndexUtxo[]>;
  abort: AbortController;
  /** The received step's records (listreceivedbyaddress, then its change rows), until read. */
  received: ReceivedRecord[] | null;
  /** How many of `received` listreceivedbyaddress listed (the change rows come after). */
  listed: number;
}

const sessions = new Map<string, WorkerSession>();

/** The session named `session`, made at its first job; its node client built from `rpc` at its first node job. */
export function workerSession(session: string, rpc: RpcHandoff): WorkerSession & { rpc: RpcClient } {
  const s = lookupSession(session);
  s.rpc ??= new RpcClient({ ...rpc, readCookie });
  return s as WorkerSession & { rpc: RpcClient };
}

/** The session named `session`, made (without a node client) if this is its first job. */
export function lookupSession(session: string): WorkerSession {
  let s = sessions.get(session);
  if (s === undefined) {
    s = { rpc: null, index: null, kept: new Map(), abort: new AbortController(), received: null, listed: 0 };
    sessions.set(session, s);
  }
  return s;
}

/** Throws 'cancelled' when `s` was ended (dropped) while its job waited on the node. */
export function stillOpen(session: string, s: WorkerSession): void {
  if (s.abort.signal.aborted || sessions.get(session) !== s) throw new AppError('cancelled', 'The refresh was cancelled.');
}

/** The UTXOs the session's lookups kept (empty when it has none), for its write. */
export function keptLookups(session: string): Map<string, IndexUtxo[]> {
  return sessions.get(session)?.kept ?? new Map();
}

/** The session's parts were written or dropped: a call under way is aborted and its client closed. */
export function endWorkerSession(session: string): void {
  const s = sessions.get(session);
  if (s === undefined) return;
  sessions.delete(session);
  s.abort.abort();
  s.rpc?.close();
  s.index?.close();
  s.received = null;
  s.kept = new Map();
}

/** Sessions with a client (for tests). */
export function workerSessions(): number {
  return sessions.size;
}

/** The session named `session` if it is open (a later job of a step its first job opened). */
export function openSession(session: string): WorkerSession {
  const s = sessions.get(session);
  if (s === undefined) throw new AppError('cancelled', 'The refresh was cancelled.');
  return s;
}
