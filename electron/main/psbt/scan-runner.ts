// Where animated-QR scans are put back together: in a worker thread of their own (scan-worker.ts; the app), or inline in
// this thread (tests that build the services by hand, the bench's baseline). Main checks each frame first
// (ur-part.ts: bounded, linear in its ≤ 4,296 characters) and hands the worker only a part that passed;
// the worker keeps the sessions, runs the fountain decoder and the final CBOR/PSBT decode. A worker that
// stops (its heap is capped) loses its sessions: the frame that was waiting is answered "start over", the
// next one starts a new worker, and the main process never waits on a decode.
import { encodeBase64 } from '../../../shared/bitcoin/psbt';
import type { ScanProgressView } from '../../../shared/ipc/send';
import type { Logger } from '../log';
import { scriptBeside, WorkerThread, type WorkerScript } from '../worker-thread';
import { PsbtUrScanner } from './ur';
import { UrScanError, type UrPart } from './ur-part';

/** Scans kept at once (a scan is one QR scanner on screen; older ones are dropped first). */
const MAX_SESSIONS = 8;

/** The scanning sessions and what one checked part does to them; the same code in either runner. */
export class ScanSessions {
  readonly #scans = new Map<string, PsbtUrScanner>();

  step(session: string, part: UrPart): ScanProgressView {
    let s = this.#scans.get(session);
    if (!s) {
      if (this.#scans.size >= MAX_SESSIONS) this.#scans.delete(this.#scans.keys().next().value!);
      s = new PsbtUrScanner();
      this.#scans.set(session, s);
    }
    try {
      const p = s.receivePart(part);
      const done = p.status === 'complete';
      const psbt = done ? encodeBase64(s.result()) : null;
      if (done) this.#scans.delete(session);
      return { progress: p.progress, received: p.received, expected: p.expected || null, done, psbt, error: null, errorCode: null };
    } catch (e) {
      if (!(e instanceof UrScanError)) throw e;
      return { progress: s.progress, received: s.received, expected: s.expected || null, done: false, psbt: null, error: e.message, errorCode: e.code };
    }
  }
}

export interface UrScanRunner {
  readonly kind: 'worker' | 'inline';
  scan(session: string, part: UrPart): Promise<ScanProgressView>;
  close(): Promise<void>;
}

export class InlineScanRunner implements UrScanRunner {
  readonly kind = 'inline';
  readonly #sessions = new ScanSessions();
  async scan(session: string, part: UrPart): Promise<ScanProgressView> {
    return this.#sessions.step(session, part);
  }
  async close(): Promise<void> {}
}

/** The scan worker from source (tests), through tsx. */
export function sourceScanWorkerScript(): WorkerScript {
  return { file: new URL('./scan-worker.ts', import.meta.url), execArgv: ['--import', 'tsx'] };
}

/** The scan worker for an entry module at `moduleUrl`: the built `scan-worker.js` beside a built entry, or scan-worker.ts from source. */
export function scanWorkerScriptBeside(moduleUrl: string): WorkerScript {
  return scriptBeside(moduleUrl, 'scan-worker.js', sourceScanWorkerScript);
}

/** The scan worker's heap: what the largest scan needs (a 15 MiB message, its mixed parts' budget) and room. */
const SCAN_HEAP_MB = 512;

export class WorkerScanRunner implements UrScanRunner {
  readonly kind = 'worker';
  readonly #thread: WorkerThread;

  constructor(script: WorkerScript, log: Logger) {
    this.#thread = new WorkerThread({
      script,
      resourceLimits: { maxOldGenerationSizeMb: SCAN_HEAP_MB },
      name: 'QR scan worker',
      log,
      replyError: (e) => new Error(String(e)),
      lostError: (why) => new UrScanError('decoder-stopped', `The QR decoder stopped while reading this frame (${why}): start the scan over`),
      closedError: () => new UrScanError('decoder-stopped', 'The QR decoder was closed.'),
    });
  }

  scan(session: string, part: UrPart): Promise<ScanProgressView> {
    return this.#thread.request((w, id) => w.postMessage({ id, session, part }));
  }

  close(): Promise<void> {
    return this.#thread.close();
  }
}
