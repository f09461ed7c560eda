// The refresh's getaddressinfo batches where the snapshot is written (the import worker's
// snapshot-infos job; address-infos.ts `elsewhere`): the node is asked here, by the refresh's
// session client (worker-session.ts: built from the main thread's own with RpcClient.handoff()),
// the replies are parsed here and kept as snapshot lines under the refresh's session
// (snapshot-writer.ts) until its write; the main thread gets back the counts and the log lines.
// Errors are the client's own AppErrors (the same messages as on main), sent back as IpcErrors.
// A cancelled or failed refresh drops the session, which also aborts a batch under way — its
// replies are not kept.
import type { RpcHandoff } from '../rpc/client';
import { infoBatchLines, infoCalls, type InfoBatchOutcome } from './address-infos';
import { writeSnapshotPart } from './snapshot-writer';
import { stillOpen, workerSession } from './worker-session';

export interface InfoBatchRequest {
  /** The refresh's session: its parts (snapshot-part) and its write (snapshot-write) name it. */
  session: string;
  /** The main thread's client, to build the same one here (never stored, logged or sent back). */
  rpc: RpcHandoff;
  /** The addresses of one batch, in order. */
  addresses: string[];
}

/** Asks the node getaddressinfo for one batch, and keeps the good replies as the session's part. */
export async function infoBatchJob(req: InfoBatchRequest): Promise<InfoBatchOutcome> {
  const s = workerSession(req.session, req.rpc);
  const replies = await s.rpc.batch(infoCalls(req.addresses), { signal: s.abort.signal });
  stillOpen(req.session, s);
  const { lines, count, warnings } = infoBatchLines(req.addresses, replies);
  if (lines.length > 0) writeSnapshotPart({ session: req.session, text: lines.join('\n') });
  return { count, warnings };
}
