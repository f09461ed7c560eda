// The refresh's getaddressinfo step (engine.ts, step 2 "addressinfo"): the replies for the addresses
// that are new or stale, asked in JSON-RPC batches. Each reply is kept as its JSON text until the
// write (10,000 parsed replies would hold several times the memory) — in this thread, or, given a
// `send` (the import worker's snapshot-part job, snapshot-writer.ts), sent there batch by batch as
// snapshot lines, so that this thread never holds the replies of 100,000 addresses at once.
import type { Logger } from '../log';
import type { RefreshRpc } from './engine-types';
import { isRecord } from './node-replies';
import type { ProgressFn } from './progress';
import type { Slicer } from './slice';
import { snapshotInfoLine } from './snapshot-text';

export interface AddressInfos {
  /** The replies kept here (empty when they were sent). */
  infos: Array<{ address: string; infoJson: string }>;
  /** Replies stored (kept or sent). */
  count: number;
  /** Replies the node refused or that were not objects. */
  errors: number;
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
}): Promise<AddressInfos> {
  const { addresses, send } = o;
  const out: AddressInfos = { infos: [], count: 0, errors: 0 };
  o.progress('addressinfo', 0, addresses.length, true);
  for (let i = 0; i < addresses.length; i += o.batchSize) {
    const chunk = addresses.slice(i, i + o.batchSize);
    const replies = await o.rpc.batch(
      chunk.map((a) => ({ method: 'getaddressinfo', params: [a] })),
      o.callOpts,
    );
    const lines: string[] = [];
    for (let j = 0; j < replies.length; j++) {
      const r = replies[j]!;
      const address = chunk[j]!;
      if (r.ok && isRecord(r.value)) {
        out.count++;
        const info = { address, infoJson: JSON.stringify(r.value) };
        if (send !== null) lines.push(snapshotInfoLine(info));
        else out.infos.push(info);
      } else {
        out.errors++;
        o.log.warn(`refresh: getaddressinfo ${address}: ${r.ok ? 'not an object' : `${r.error.code} ${r.error.message}`}`);
      }
      await o.slicer.tick();
    }
    if (send !== null && lines.length > 0) await send(lines.join('\n'));
    o.progress('addressinfo', Math.min(addresses.length, i + chunk.length), addresses.length);
    o.checkAbort();
  }
  return out;
}
