// The refresh's index lookups where the snapshot is written (the import worker's snapshot-lookups job;
// lookups.ts lookUpElsewhere): the `address/utxo` GETs of 10,000 addresses are sent and their JSON
// parsed here, by the refresh's session index client — built from the main thread's own
// (IndexClient.handoff(): the same base URL, timeouts, retries, page size, reply limit, validation and
// error mapping; the index has no credentials) and paced by main's budget (IndexClient.lend(), over the
// MessagePort the first job hands over: one concurrency cap and rate limit for main and this thread).
// The main thread sends the addresses a page at a time and gets back each address's UTXOs (the few
// fields the snapshot keeps) or the code of the error the index gave for it; an error that is not about
// one address is the page's error (the client's own AppError, sent back as an IpcError). A dropped
// session (cancel, failure) closes the client, which aborts its requests at once.
import type { MessagePort } from 'node:worker_threads';
import { AppError } from '../../../shared/errors';
import { IndexClient } from '../blockindex/client';
import type { IndexClientOptions } from '../blockindex/client-options';
import type { Logger } from '../log';
import { lookUpUtxos, type LookupResult } from './lookups';
import { lookupSession, stillOpen, openSession } from './worker-session';
import { keptSame } from './change-check';
import type { WalletScope, WatchRepository } from '../store/watch';

export type LookupOp =
  /** Builds the session's index client from main's: its options, and the port of main's budget (transferred). */
  | { op: 'start'; index: IndexClientOptions; budget: MessagePort }
  /** Looks up one page of addresses, at most `window` at a time; their UTXOs are kept here, their counts sent back. */
  | { op: 'look'; addresses: string[]; window: number }
  /** Whether the UTXOs kept for `addresses` are exactly those snapshot `prevId` holds for them (isUnchanged). */
  | { op: 'same'; scope: WalletScope; prevId: number; addresses: string[] };

export type LookupJobRequest = LookupOp & { session: string };

export interface LookupJobReply {
  /** Per address of the page, in the order they were answered. */
  results: Array<[string, LookupResult]>;
  /** The log lines of the addresses the index refused (the main thread writes them). */
  warnings: string[];
  /** For `same`. */
  same?: boolean;
}

/** `repo`: the writer's repository (for `same`: the previous snapshot's UTXOs). */
export async function lookupJob(repo: () => WatchRepository, req: LookupJobRequest): Promise<LookupJobReply> {
  if (req.op === 'start') {
    const s = lookupSession(req.session);
    s.index?.close();
    s.index = new IndexClient(req.index, req.budget);
    return { results: [], warnings: [] };
  }
  const s = openSession(req.session);
  if (req.op === 'same') return { results: [], warnings: [], same: keptSame(repo(), req.scope, req.prevId, req.addresses, s.kept) };
  const index = s.index;
  if (index === null) throw new AppError('internal', 'The refresh looked up addresses in the import worker before it handed over its index client.');
  const warnings: string[] = [];
  const log: Logger = { info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  const found = await lookUpUtxos(index, req.addresses, req.window, s.abort.signal, log, () => {});
  stillOpen(req.session, s);
  // Each address's UTXOs kept here for the write (snapshot-writer.ts); main gets their count.
  const results: Array<[string, LookupResult]> = [];
  for (const [address, r] of found) {
    if ('utxos' in r) {
      s.kept.set(address, r.utxos);
      results.push([address, { kept: r.utxos.length }]);
    } else results.push([address, r]);
  }
  return { results, warnings };
}
