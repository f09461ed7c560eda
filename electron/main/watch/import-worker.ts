// The import worker thread: parses and writes big user inputs — BIP329 label files, "Add addresses"
// lists, wallet files — on its own connection to the app's SQLite file (WAL: main keeps reading while
// it writes; each job's write is one transaction), so 100,000 lines never block the main process.
// It also writes a refresh's snapshot, and asks the node that refresh's getaddressinfo batches itself
// (refresh/info-batches.ts: the one job that waits on the network; other jobs run meanwhile).
// Messages: { id, slice } (a long text, in slices), then { id, job, request } in, { id, ok, value | error } out, where `error` is the IpcError of
// the AppError the job threw (rebuilt as an AppError in main).
import { parentPort, workerData } from 'node:worker_threads';
import { toIpcError } from '../../../shared/errors';
import { collectGarbage } from '../memory';
import { openDatabase } from '../store/db';
import { WatchRepository } from '../store/watch';
import { runImportJob, type ImportJobMessage } from './import-table';

const data = workerData as { dbFile: string };
const repo = new WatchRepository(openDatabase(data.dbFile));

/** The slices of the long text of each job still to come, by job id. */
const slices = new Map<number, string[]>();

parentPort!.on('message', (m: ImportJobMessage) => {
  if ('slice' in m) {
    const list = slices.get(m.id) ?? [];
    list.push(m.slice);
    slices.set(m.id, list);
    return;
  }
  // A big job's text and what it parsed are garbage after it, and they count in the app's resident
  // memory: a full collection that gives the pages back (memory.ts), here, where it holds up only this
  // thread, after the reply went out.
  const collect = (): void => {
    if (m.sliced === true || m.job === 'snapshot-write') collectGarbage();
  };
  let value: unknown;
  try {
    const request = m.sliced ? { ...(m.request as object), text: (slices.get(m.id) ?? []).join('') } : m.request;
    slices.delete(m.id);
    value = runImportJob(repo, m.job, request);
  } catch (e) {
    parentPort!.postMessage({ id: m.id, ok: false, error: toIpcError(e) });
    collect();
    return;
  }
  if (value instanceof Promise) {
    // A job that asks the network (snapshot-infos, snapshot-received, snapshot-lookups): other jobs run while it waits.
    value.then(
      (v: unknown) => parentPort!.postMessage({ id: m.id, ok: true, value: v }),
      (e: unknown) => parentPort!.postMessage({ id: m.id, ok: false, error: toIpcError(e) }),
    );
    return;
  }
  parentPort!.postMessage({ id: m.id, ok: true, value });
  collect();
});
