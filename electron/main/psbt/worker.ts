// The PSBT worker thread: runs jobs.ts's functions on its own read-only connection to the app's SQLite
// file (WAL: it reads what main has committed), so decoding and reviewing a 100,000-input PSBT never
// blocks the main process. Messages: { id, job, request } in, { id, ok, value | error } out, where
// `error` is the IpcError of the AppError the job threw (rebuilt as an AppError in main).
// The same script, started with role 'verify', is a helper of the verify pool (verify-pool.ts): before
// combining or finalizing a PSBT of many inputs, the worker has its signatures checked on every core.
import { parentPort, workerData } from 'node:worker_threads';
import { toIpcError } from '../../../shared/errors';
import { openReadOnlyDatabase } from '../store/db';
import { ProfileRepository } from '../store/profiles';
import { WatchRepository } from '../store/watch';
import { DraftStore } from '../send/drafts-store';
import { runJob, type JobMessage } from './job-table';
import { psbtsOfJob, verifySlice, VerifyPool, type HelperScript, type VerifySliceRequest } from './verify-pool';

const data = workerData as { role?: 'verify'; dbFile?: string; self?: HelperScript };

if (data.role === 'verify') {
  parentPort!.on('message', (m: { id: number; request: VerifySliceRequest }) => {
    try {
      parentPort!.postMessage({ id: m.id, ok: true, value: verifySlice(m.request) });
    } catch (e) {
      parentPort!.postMessage({ id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) });
    }
  });
} else {
  const db = openReadOnlyDatabase(data.dbFile!);
  const store = { repo: new WatchRepository(db), profiles: new ProfileRepository(db), drafts: new DraftStore(db) };
  const pool = data.self ? new VerifyPool(data.self) : null;

  parentPort!.on('message', (m: JobMessage) => {
    void (async () => {
      try {
        const psbts = psbtsOfJob(m.job, m.request);
        if (pool && psbts.length > 0) await pool.preverify(psbts);
        parentPort!.postMessage({ id: m.id, ok: true, value: runJob(store, m.job, m.request) });
      } catch (e) {
        parentPort!.postMessage({ id: m.id, ok: false, error: toIpcError(e) });
      }
    })();
  });
}
