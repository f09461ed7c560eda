// The PSBT worker thread: runs jobs.ts's functions on its own read-only connection to the app's SQLite
// file (WAL: it reads what main has committed), so decoding and reviewing a 100,000-input PSBT never
// blocks the main process. Messages: { id, job, request } in, { id, ok, value | error } out, where
// `error` is the IpcError of the AppError the job threw (rebuilt as an AppError in main).
import { parentPort, workerData } from 'node:worker_threads';
import { toIpcError } from '../../../shared/errors';
import { openReadOnlyDatabase } from '../store/db';
import { ProfileRepository } from '../store/profiles';
import { WatchRepository } from '../store/watch';
import { DraftStore } from '../send/drafts-store';
import { runJob, type JobMessage } from './job-table';

const data = workerData as { dbFile: string };
const db = openReadOnlyDatabase(data.dbFile);
const store = { repo: new WatchRepository(db), profiles: new ProfileRepository(db), drafts: new DraftStore(db) };

parentPort!.on('message', (m: JobMessage) => {
  try {
    parentPort!.postMessage({ id: m.id, ok: true, value: runJob(store, m.job, m.request) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, ok: false, error: toIpcError(e) });
  }
});
