// Where the refresh engine writes a new snapshot. The write of 100,000 addresses is one SQLite
// transaction of seconds (its rows, the watched set, the getaddressinfo replies, the UTXOs carried
// forward); on the main thread it held the event loop that long (issue #27). In the app it runs in
// the import worker (watch/import-worker.ts: its own connection to the same file; WAL lets main keep
// reading the previous snapshot meanwhile), with the pruning of old snapshots and the diff's counts
// after it. Without a writer (tests that build the engine by hand) the engine writes on its own
// repository, as before.
import type { DiffSummary, WalletScope, WatchRepository } from '../store/watch';
import { snapshotFromText } from './snapshot-text';

export interface SnapshotWriteRequest {
  scope: WalletScope;
  /** The snapshot as snapshotText wrote it. */
  text: string;
  /** Good snapshots to keep (prune). */
  keep: number;
}

export interface SnapshotWriteReply {
  snapshotId: number;
  diff: DiffSummary;
  /** Why pruning old snapshots failed (the snapshot is written all the same), or null. */
  pruneError: string | null;
}

/** Writes a snapshot elsewhere (the import worker): the engine's `writer` option. */
export type SnapshotWriter = (request: SnapshotWriteRequest) => Promise<SnapshotWriteReply>;

/**
 * The write, as the import worker runs it: the snapshot in ONE transaction (WatchRepository.writeSnapshot),
 * then old snapshots pruned, then the counts of what changed since the previous snapshot.
 */
export function writeSnapshotJob(repo: WatchRepository, req: SnapshotWriteRequest): SnapshotWriteReply {
  const s = snapshotFromText(req.text);
  const snapshotId = repo.writeSnapshot(req.scope, s);
  let pruneError: string | null = null;
  try {
    repo.prune(req.scope, req.keep);
  } catch (e) {
    pruneError = e instanceof Error ? e.message : String(e);
  }
  return { snapshotId, diff: repo.diffSummary(s.previousId, snapshotId), pruneError };
}
