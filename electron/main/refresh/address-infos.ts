// The refresh's getaddressinfo step (engine.ts, step 2 "addressinfo"): the replies for the addresses
// that are new or stale, asked in JSON-RPC batches. Three ways, by where the replies are parsed:
// - kept here as JSON text until the write (tests that build the engine by hand, no writer);
// - parsed here and sent batch by batch as snapshot lines (`send`: the snapshot-part job,
//   snapshot-writer.ts), so that this thread never holds the replies of 100,000 addresses at once;
// - not seen here at all (`elsewhere`: the app): the import worker asks the node each batch itself,
//   with a client built from this connection's own options (info-batches.ts), parses the replies and
//   keeps their lines for the write; this thread gets back only the counts and the log lines. A
//   batch of 500 replies is ~1 MB of JSON the main thread no longer parses, and V8's young
//   generation no longer grows for it (issue #27: the release that held the main thread after it).
import type { Logger } from '../log';
import type { BatchEntry } from '../rpc/client';
import type { RefreshRpc } from './engine-types';
import { isRecord } from './node-replies';
import type { ProgressFn } from './progress';
import type { Slicer } from './slice';
import { snapshotInfoLine } from './snapshot-text';

export interface AddressInfos {
  /** The replies kept here (empty when they were sent, or asked elsewhere). */
  infos: Array<{ address: string; infoJson: string }>;
  /** Replies stored (kept or sent). */
  count: number;
  /** Replies the node refused or that were not objects. */
  errors: number;
}

/** One batch of getaddressinfo replies as snapshot lines (info-batches.ts), and what to log of it. */
export interface InfoBatchOutcome {
  /** Replies stored. */
  count: number;
  /** Replies the node refused or that were not objects, one log line each. */
  warnings: string[];
}

/** The getaddressinfo calls of `addresses`, in order. */
export function infoCalls(addresses: readonly string[]): Array<{ method: string; params: unknown[] }> {
  return addresses.map((a) => ({ method: 'getaddressinfo', params: [a] }));
}

/** One reply: the info to store, or what to log of a reply the node refused or that is not an object. */
function infoOf(address: string, r: BatchEntry<unknown>): { info: { address: string; infoJson: string } } | { warning: string } {
  if (r.ok && isRecord(r.value)) return { info: { address, infoJson: JSON.stringify(r.value) } };
  return { warning: `refresh: getaddressinfo ${address}: ${r.ok ? 'not an object' : `${r.error.code} ${r.error.message}`}` };
}

/** A batch's replies as snapshot lines (one per good reply), where the batch was asked. */
export function infoBatchLines(chunk: readonly string[], replies: ReadonlyArray<BatchEntry<unknown>>): InfoBatchOutcome & { lines: string[] } {
  const out = { count: 0, warnings: [] as string[], lines: [] as string[] };
  for (let j = 0; j < replies.length; j++) {
    const got = infoOf(chunk[j]!, replies[j]!);
    if ('warning' in got) out.warnings.push(got.warning);
    else {
      out.count++;
      out.lines.push(snapshotInfoLine(got.info));
    }
  }
  return out;
}

export async function fetchAddressInfos(o: {
  rpc: RefreshRpc;
  addresses: readonly string[];
  batchSize: number;
  callOpts: { signal?: AbortSignal };
  log: Logger;
  slicer: Slicer;
  progress: ProgressFn;
  checkAbort: () => void;
  /** Where each batch's lines go (null: kept in `infos`). */
  send: ((lines: string) => Promise<void>) | null;
  /**
   * Asks, parses and keeps a batch where the snapshot is written (info-batches.ts); the node's
   * replies never reach this thread. Takes precedence over `rpc` and `send`.
   */
  elsewhere?: ((addresses: string[]) => Promise<InfoBatchOutcome>) | null;
  /**
   * With `elsewhere`: drops the parts there, which aborts the batch under way. Called at once when
   * `callOpts.signal` aborts during this step (and only then: a cancel during the write must not take
   * the parts from the write).
   */
  drop?: () => void;
}): Promise<AddressInfos> {
  const signal = o.callOpts.signal;
  const drop = o.elsewhere ? o.drop : undefined;
  if (drop) signal?.addEventListener('abort', drop);
  try {
    return await fetchAll(o);
  } finally {
    if (drop) signal?.removeEventListener('abort', drop);
  }
}

async function fetchAll(o: Parameters<typeof fetchAddressInfos>[0]): Promise<AddressInfos> {
  const { addresses, send } = o;
  const out: AddressInfos = { infos: [], count: 0, errors: 0 };
  o.progress('addressinfo', 0, addresses.length, true);
  for (let i = 0; i < addresses.length; i += o.batchSize) {
    const chunk = addresses.slice(i, i + o.batchSize);
    if (o.elsewhere) {
      const got = await o.elsewhere(chunk);
      out.count += got.count;
      out.errors += got.warnings.length;
      for (const w of got.warnings) o.log.warn(w);
    } else {
      const replies = await o.rpc.batch(infoCalls(chunk), o.callOpts);
      const lines: string[] = [];
      for (let j = 0; j < replies.length; j++) {
        const got = infoOf(chunk[j]!, replies[j]!);
        if ('warning' in got) {
          out.errors++;
          o.log.warn(got.warning);
        } else {
          out.count++;
          if (send !== null) lines.push(snapshotInfoLine(got.info));
          else out.infos.push(got.info);
        }
        await o.slicer.tick();
      }
      if (send !== null && lines.length > 0) await send(lines.join('\n'));
    }
    o.progress('addressinfo', Math.min(addresses.length, i + chunk.length), addresses.length);
    o.checkAbort();
  }
  return out;
}
