// Where the refresh engine writes a new snapshot. The write of 100,000 addresses is one SQLite
// transaction of seconds (its rows, the watched set, the getaddressinfo replies, the UTXOs carried
// forward); on the main thread it held the event loop that long (issue #27). In the app it runs in
// the import worker (watch/import-worker.ts: its own connection to the same file; WAL lets main keep
// reading the previous snapshot meanwhile), with the pruning of old snapshots and the diff's counts
// after it. Without a writer (tests that build the engine by hand) the engine writes on its own
// repository, as before.
import type { DiffSummary, WalletScope, WatchRepository } from '../store/watch';
import { snapshotFromText } from './snapshot-text';
import type { IndexUtxo } from '../blockindex/types';
import { utxoRecords } from './lookups';

export interface SnapshotWriteRequest {
  scope: WalletScope;
  /** The snapshot as snapshotText wrote it. */
  text: string;
  /** Good snapshots to keep (prune). */
  keep: number;
  /**
   * The parts sent before under this name (writeSnapshotPart): their info lines go after `text`'s
   * (one snapshot text), and the parts are dropped.
   */
  session?: string;
}

/**
 * Part of a snapshot sent ahead of its write: getaddressinfo lines (snapshotInfoLines) as each batch
 * arrives, so that the thread running the refresh never holds every reply of 100,000 addresses until
 * the write. `text` null drops the parts of the session (a refresh that failed or was cancelled).
 */
export interface SnapshotPartRequest {
  session: string;
  text: string | null;
}

export interface SnapshotWriteReply {
  snapshotId: number;
  diff: DiffSummary;
  /** Why pruning old snapshots failed (the snapshot is written all the same), or null. */
  pruneError: string | null;
}

/** Writes a snapshot elsewhere (the import worker): the engine's `writer` option. */
export type SnapshotWriter = (request: SnapshotWriteRequest) => Promise<SnapshotWriteReply>;
/** Sends a part of a snapshot ahead of its write, to where `SnapshotWriter` writes: the engine's `writerPart` option. */
export type SnapshotPartWriter = (request: SnapshotPartRequest) => Promise<void>;

/** The parts sent ahead, by session, in the thread that writes (the import worker; main with the inline runner). */
const parts = new Map<string, string[]>();

/** Keeps (or, with `text` null, drops) a part of a snapshot until its write (snapshot-part job). */
export function writeSnapshotPart(req: SnapshotPartRequest): null {
  if (req.text === null) {
    parts.delete(req.session);
    return null;
  }
  const list = parts.get(req.session) ?? [];
  if (req.text !== '') list.push(req.text);
  parts.set(req.session, list);
  return null;
}

/** Sessions whose parts are kept (for tests). */
export function snapshotPartSessions(): number {
  return parts.size;
}

/**
 * The write, as the import worker runs it: the snapshot in ONE transaction (WatchRepository.writeSnapshot),
 * then old snapshots pruned, then the counts of what changed since the previous snapshot.
 */
export function writeSnapshotJob(repo: WatchRepository, req: SnapshotWriteRequest, kept?: ReadonlyMap<string, readonly IndexUtxo[]>): SnapshotWriteReply {
  let text = req.text;
  if (req.session !== undefined) {
    const sent = parts.get(req.session) ?? [];
    parts.delete(req.session);
    if (sent.length > 0) text = [text, ...sent].join('\n');
  }
  const s = snapshotFromText(text);
  // The UTXOs of the lookups made here (lookup-job.ts): the text has their addresses, fetched, without them.
  if (kept !== undefined && kept.size > 0) {
    for (const a of s.addresses) {
      const got = a.state === 'fetched' ? kept.get(a.address) : undefined;
      if (got !== undefined && a.state === 'fetched') a.utxos = utxoRecords(got);
    }
  }
  const snapshotId = repo.writeSnapshot(req.scope, s);
  let pruneError: string | null = null;
  try {
    repo.prune(req.scope, req.keep);
  } catch (e) {
    pruneError = e instanceof Error ? e.message : String(e);
  }
  return { snapshotId, diff: repo.diffSummary(s.previousId, snapshotId), pruneError };
}
