// The animated-QR scan worker thread (scan-runner.ts): it keeps the scans and runs the fountain decoder and
// the final CBOR/PSBT decode, so no part costs the main process any time. Messages: { id, session, part } in,
// { id, ok, value | error } out, where the part was checked by main (ur-part.ts) before it was sent. It loads
// no native module and opens no database.
import { parentPort } from 'node:worker_threads';
import { ScanSessions } from './scan-runner';
import type { UrPart } from './ur-part';

const sessions = new ScanSessions();
parentPort!.on('message', (m: { id: number; session: string; part: UrPart }) => {
  try {
    parentPort!.postMessage({ id: m.id, ok: true, value: sessions.step(m.session, m.part) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
