// The refresh's index lookups (engine.ts, step 4 "utxos"): `address/utxo` for each address to look
// up, handed to the index client a window at a time.
import { setMaxListeners } from 'node:events';
import type { AppError } from '../../../shared/errors';
import type { IndexUtxo } from '../blockindex/types';
import type { Logger } from '../log';
import type { AddressSource, SnapshotAddress } from '../store/watch';
import type { RefreshIndex } from './engine-types';
import { cancelled, toAppError } from './progress';
import type { Slicer } from './slice';

/** Index errors that concern one address; any other error ends the refresh. */
const PER_ADDRESS_CODES: ReadonlySet<string> = new Set(['index.invalid', 'index.not_found', 'index.not_configured']);

/** A lookup's answer: the address's UTXOs, or the code of the error the index gave for that address. */
export type LookupResult = { utxos: IndexUtxo[] } | { error: string };

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
    addresses.push({
      address: p.address,
      source: p.source,
      state: 'fetched',
      utxos: got.utxos.map((u) => ({ txid: u.txId, vout: u.vOut, amountSats: u.amount, height: u.block })),
    });
  }
  return addresses;
}
