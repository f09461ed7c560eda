// The refresh's getaddressinfo batches where the snapshot is written (the import worker's
// snapshot-infos job; address-infos.ts `elsewhere`): the node is asked here, by a client built from
// the main thread's own (RpcClient.handoff(): the same URL, credentials, wallet, timeouts, warm-up
// retries and redaction — the credentials came over in-process and are kept only in that client),
// the replies are parsed here and kept as snapshot lines under the refresh's session
// (snapshot-writer.ts) until its write; the main thread gets back the counts and the log lines.
// Errors are the client's own AppErrors (the same messages as on main), sent back as IpcErrors.
//
// One client per session, made at its first batch, closed when the session's parts are written or
// dropped (endInfoSession): a cancelled or failed refresh drops them, which also aborts a batch
// under way — its replies are not kept.
import { AppError } from '../../../shared/errors';
import { readCookie } from '../credentials';
import { RpcClient, type RpcHandoff } from '../rpc/client';
import { infoBatchLines, infoCalls, type InfoBatchOutcome } from './address-infos';
import { writeSnapshotPart } from './snapshot-writer';

export interface InfoBatchRequest {
  /** The refresh's session: its parts (snapshot-part) and its write (snapshot-write) name it. */
  session: string;
  /** The main thread's client, to build the same one here (never stored, logged or sent back). */
  rpc: RpcHandoff;
  /** The addresses of one batch, in order. */
  addresses: string[];
}

const sessions = new Map<string, { rpc: RpcClient; abort: AbortController }>();

/** Asks the node getaddressinfo for one batch, and keeps the good replies as the session's part. */
export async function infoBatchJob(req: InfoBatchRequest): Promise<InfoBatchOutcome> {
  let s = sessions.get(req.session);
  if (s === undefined) {
    s = { rpc: new RpcClient({ ...req.rpc, readCookie }), abort: new AbortController() };
    sessions.set(req.session, s);
  }
  const { signal } = s.abort;
  const replies = await s.rpc.batch(infoCalls(req.addresses), { signal });
  if (signal.aborted || sessions.get(req.session) !== s) throw new AppError('cancelled', 'The refresh was cancelled.');
  const { lines, count, warnings } = infoBatchLines(req.addresses, replies);
  if (lines.length > 0) writeSnapshotPart({ session: req.session, text: lines.join('\n') });
  return { count, warnings };
}

/** The session's parts were written or dropped: a batch under way is aborted and its client closed. */
export function endInfoSession(session: string): void {
  const s = sessions.get(session);
  if (s === undefined) return;
  sessions.delete(session);
  s.abort.abort();
  s.rpc.close();
}

/** Sessions with a client (for tests). */
export function infoSessions(): number {
  return sessions.size;
}
