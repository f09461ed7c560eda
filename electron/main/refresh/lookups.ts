// The refresh's index lookups (engine.ts, step 4 "utxos"): `address/utxo` for each address to look
// up, handed to the index client a window at a time — here, or (lookUpElsewhere: the app) in the
// import worker (lookup-job.ts), on this thread's index budget.
import { setMaxListeners } from 'node:events';
import type { AppError } from '../../../shared/errors';
import type { IndexClient } from '../blockindex/client';
import type { IndexUtxo } from '../blockindex/types';
import type { Logger } from '../log';
import type { AddressSource, SnapshotAddress, UtxoRecord, WalletScope } from '../store/watch';
import type { RefreshIndex } from './engine-types';
import { cancelled, toAppError } from './progress';
import type { Slicer } from './slice';
import type { LookupJobReply, LookupOp } from './lookup-job';

/** Index errors that concern one address; any other error ends the refresh. */
const PER_ADDRESS_CODES: ReadonlySet<string> = new Set(['index.invalid', 'index.not_found', 'index.not_configured']);

/**
 * A lookup's answer: the address's UTXOs, or (`kept`: looked up in the import worker) how many it has,
 * kept there for the snapshot's write (lookup-job.ts), or the code of the error the index gave for it.
 */
export type LookupResult = { utxos: IndexUtxo[] } | { kept: number } | { error: string };

/** How many UTXOs a lookup found (0 for an error). */
export function foundCount(r: LookupResult | undefined): number {
  return r === undefined || 'error' in r ? 0 : 'kept' in r ? r.kept : r.utxos.length;
}

/** A lookup's UTXOs as the snapshot stores them. */
export function utxoRecords(utxos: readonly IndexUtxo[]): UtxoRecord[] {
  return utxos.map((u) => ({ txid: u.txId, vout: u.vOut, amountSats: u.amount, height: u.block }));
}

/**
 * Looks up `addresses` through the index client, at most `window` at a time (the client's
 * concurrency cap and rate limit apply within that). The first error that is not about one
 * address cancels the running lookups, starts no more, and is thrown.
 */
export async function lookUpUtxos(
  index: Pick<RefreshIndex, 'addressUtxo'>,
  addresses: readonly string[],
  window: number,
  signal: AbortSignal | undefined,
  log: Logger,
  onDone: (done: number) => void,
): Promise<Map<string, LookupResult>> {
  const out = new Map<string, LookupResult>();
  onDone(0);
  if (addresses.length === 0) return out;
  const inner = new AbortController();
  setMaxListeners(0, inner.signal); // each running lookup listens to it (up to `window` at a time)
  const onAbort = (): void => inner.abort();
  if (signal?.aborted) inner.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let fatal = null as AppError | null; // set from the workers below
  let done = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < addresses.length && !inner.signal.aborted) {
      const address = addresses[next++]!;
      try {
        out.set(address, { utxos: await index.addressUtxo(address, { signal: inner.signal }) });
      } catch (e) {
        const err = toAppError(e, log);
        if (PER_ADDRESS_CODES.has(err.code) && !inner.signal.aborted) {
          log.warn(`refresh: address/utxo ${address}: ${err.code} ${err.message}`);
          out.set(address, { error: err.code });
        } else {
          fatal ??= err;
          inner.abort();
        }
      } finally {
        done++;
        onDone(done);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(addresses.length, window) }, worker));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw cancelled();
  if (fatal !== null) throw fatal;
  return out;
}

/** Runs one job of the lookups in the import worker, under the refresh's session (lookup-job.ts). */
export type LookupElsewhere = (op: LookupOp) => Promise<LookupJobReply>;

/** Addresses sent to the worker per job, in lookup windows (default 4 windows). */
const WINDOWS_PER_PAGE = 4;

/**
 * lookUpUtxos in the import worker (lookup-job.ts): the worker's client is built from `index`'s
 * handoff() and paced by its budget (lend(): main's concurrency cap and rate limit count the worker's
 * requests too); the addresses go a page at a time, the next page sent while one is under way (so the
 * window stays busy), and the answers come back per address. The same outcome as lookUpUtxos: a page's
 * error (not about one address) is thrown, and a cancel drops the session there (`drop`, at once),
 * which aborts its requests.
 */
export async function lookUpElsewhere(a: {
  job: LookupElsewhere;
  index: Pick<IndexClient, 'handoff' | 'lend'>;
  addresses: readonly string[];
  window: number;
  signal: AbortSignal | undefined;
  log: Logger;
  onDone: (done: number) => void;
  drop: () => void;
  page?: number;
}): Promise<Map<string, LookupResult>> {
  const out = new Map<string, LookupResult>();
  const { addresses, signal } = a;
  a.onDone(0);
  if (addresses.length === 0) return out;
  if (signal?.aborted) throw cancelled();
  const size = Math.max(1, Math.floor(a.page ?? a.window * WINDOWS_PER_PAGE));
  const budget = a.index.lend();
  signal?.addEventListener('abort', a.drop);
  const running: Array<Promise<LookupJobReply>> = [];
  try {
    await a.job({ op: 'start', index: a.index.handoff(), budget: budget.port });
    const look = (at: number): Promise<LookupJobReply> => {
      const p = a.job({ op: 'look', addresses: addresses.slice(at, at + size), window: a.window });
      p.catch(() => {}); // awaited below, in order; one still running when an earlier one failed is dropped with the session
      return p;
    };
    let done = 0;
    let next = 0;
    const sendNext = (): void => {
      if (next < addresses.length) {
        running.push(look(next));
        next += size;
      }
    };
    sendNext();
    sendNext();
    while (running.length > 0) {
      const r = await running.shift()!;
      if (signal?.aborted) throw cancelled();
      sendNext();
      for (const w of r.warnings) a.log.warn(w);
      for (const [address, got] of r.results) out.set(address, got);
      done += r.results.length;
      a.onDone(done);
    }
  } finally {
    signal?.removeEventListener('abort', a.drop);
    budget.close();
  }
  if (signal?.aborted) throw cancelled();
  return out;
}

/**
 * For isUnchanged: whether the UTXOs the import worker kept (lookUpElsewhere) are exactly those snapshot
 * `prevId` holds for their addresses — compared there (op `same`); undefined when none were kept there.
 */
export async function keptSameThere(job: LookupElsewhere, lookups: ReadonlyMap<string, LookupResult>, scope: WalletScope, prevId: number): Promise<boolean | undefined> {
  const kept = [...lookups].filter(([, got]) => 'kept' in got).map(([address]) => address);
  if (kept.length === 0) return undefined;
  return (await job({ op: 'same', scope, prevId, addresses: kept })).same === true;
}

/**
 * The snapshot's address rows from the plan and the lookups' answers: an address not looked up keeps
 * its UTXOs (carried), one the index refused is marked failed with its code, the rest take what the
 * index gave.
 */
export async function snapshotAddresses(
  plan: ReadonlyArray<{ address: string; source: AddressSource; fetch: boolean }>,
  lookups: ReadonlyMap<string, LookupResult>,
  slicer: Slicer,
): Promise<SnapshotAddress[]> {
  const addresses: SnapshotAddress[] = [];
  for (const p of plan) {
    await slicer.tick();
    if (!p.fetch) {
      addresses.push({ address: p.address, source: p.source, state: 'carried' });
      continue;
    }
    const got = lookups.get(p.address);
    if (got === undefined || 'error' in got) {
      addresses.push({ address: p.address, source: p.source, state: 'failed', errorCode: got?.error ?? 'internal' });
      continue;
    }
    // Kept in the import worker: its write fills them in (snapshot-writer.ts).
    addresses.push({ address: p.address, source: p.source, state: 'fetched', utxos: 'kept' in got ? [] : utxoRecords(got.utxos) });
  }
  return addresses;
}
