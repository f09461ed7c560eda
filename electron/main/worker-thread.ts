// One worker thread that answers numbered requests: started when first asked, kept while it has work (an
// idle one does not keep the process alive), started again after it stopped. The PSBT worker
// (psbt/runner.ts), the import worker (watch/import-runner.ts) and the QR scan worker (psbt/scan-runner.ts)
// each put their own messages and errors on it. The thread replies { id, ok, value | error }.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Logger } from './log';

/** A worker's script: the built `*.js` beside the entry in the app, the `.ts` (through tsx) from source. */
export interface WorkerScript {
  file: string | URL;
  execArgv?: string[];
}

/** The script `name` beside a built entry at `moduleUrl` (out/main/index.js, web.js), or `source` when the entry runs from source. */
export function scriptBeside(moduleUrl: string, name: string, source: () => WorkerScript): WorkerScript {
  return moduleUrl.endsWith('.ts') ? source() : { file: new URL(`./${name}`, moduleUrl) };
}

export interface WorkerThreadOptions {
  script: WorkerScript;
  workerData?: unknown;
  resourceLimits?: ResourceLimits;
  /** In the log line when it stops: "psbt worker stopped: …". */
  name: string;
  log: Logger;
  /** The error a failed reply's `error` becomes. */
  replyError(error: unknown): Error;
  /** The error of each request under way when the thread stopped (`why`: its error or exit code). */
  lostError(why: string): Error;
  /** The error of a request after close(). */
  closedError(): Error;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export class WorkerThread {
  #worker: Worker | null = null;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;

  constructor(private readonly o: WorkerThreadOptions) {}

  #start(): Worker {
    const { script, workerData, resourceLimits } = this.o;
    const w = new Worker(script.file, {
      ...(workerData !== undefined ? { workerData } : {}),
      ...(resourceLimits ? { resourceLimits } : {}),
      ...(script.execArgv ? { execArgv: script.execArgv } : {}),
    });
    w.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: unknown }) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(this.o.replyError(m.error));
    });
    const lost = (why: string): void => {
      if (this.#worker === w) this.#worker = null;
      if (this.#closed) return;
      this.o.log.warn(`${this.o.name} stopped: ${why}`);
      for (const [id, p] of this.#pending) {
        this.#pending.delete(id);
        p.reject(this.o.lostError(why));
      }
    };
    w.on('error', (e) => lost(e.message.split('\n')[0] ?? 'error'));
    w.on('exit', (code) => lost(`exit code ${code}`));
    // An idle worker does not keep the process alive.
    w.unref();
    return w;
  }

  /** A request: `send` posts its message(s) for `id`; the reply's value, or the error it became. */
  request<T>(send: (w: Worker, id: number) => void | Promise<void>): Promise<T> {
    if (this.#closed) return Promise.reject(this.o.closedError());
    const w = (this.#worker ??= this.#start());
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      w.ref();
      void send(w, id);
    }).finally(() => {
      if (this.#pending.size === 0) this.#worker?.unref();
    });
  }

  /** Request `id` is still awaited from thread `w` (a sender of several messages stops when it is not). */
  awaits(w: Worker, id: number): boolean {
    return this.#worker === w && this.#pending.has(id);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      p.reject(this.o.closedError());
    }
    const w = this.#worker;
    this.#worker = null;
    if (w) await w.terminate();
  }
}
