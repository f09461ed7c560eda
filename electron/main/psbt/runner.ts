// Where PSBT jobs run: in the PSBT worker thread (the app), or inline in this thread (tests that build
// PsbtService by hand, the bench's baseline). Both run job-table.ts's functions; both reject with the
// AppError the job threw (rebuilt from its IpcError across the thread boundary).
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { AppError, type ErrorCode, type IpcError } from '../../../shared/errors';
import type { Logger } from '../log';
import { runJob, type JobMessage, type JobName, type Jobs } from './job-table';
import type { JobStore } from './jobs';

export interface PsbtRunner {
  readonly kind: 'worker' | 'inline';
  run<J extends JobName>(job: J, request: Jobs[J]['request']): Promise<Jobs[J]['reply']>;
  close(): Promise<void>;
}

export class InlineRunner implements PsbtRunner {
  readonly kind = 'inline';
  constructor(private readonly store: JobStore) {}
  async run<J extends JobName>(job: J, request: Jobs[J]['request']): Promise<Jobs[J]['reply']> {
    return runJob(this.store, job, request) as Jobs[J]['reply'];
  }
  async close(): Promise<void> {}
}

/** The worker's script: the built `psbt-worker.js` in the app, worker.ts (through tsx) from source. */
export interface WorkerScript {
  file: string | URL;
  execArgv?: string[];
}

/** The worker script next to this module when running from source (tests), through tsx. */
export function sourceWorkerScript(): WorkerScript {
  return { file: new URL('./worker.ts', import.meta.url), execArgv: ['--import', 'tsx'] };
}

/**
 * The worker script for an entry module at `moduleUrl`: the built `psbt-worker.js` beside a built entry
 * (out/main/index.js, out/main/web.js), or worker.ts when the entry runs from source.
 */
export function workerScriptBeside(moduleUrl: string): WorkerScript {
  return moduleUrl.endsWith('.ts') ? sourceWorkerScript() : { file: new URL('./psbt-worker.js', moduleUrl) };
}

interface Pending {
  job: JobName;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export class WorkerRunner implements PsbtRunner {
  readonly kind = 'worker';
  #worker: Worker | null = null;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed = false;

  constructor(
    private readonly script: WorkerScript,
    private readonly dbFile: string,
    private readonly log: Logger,
  ) {}

  #start(): Worker {
    const file = this.script.file;
    const self = { href: typeof file === 'string' ? pathToFileURL(file).href : file.href, ...(this.script.execArgv ? { execArgv: this.script.execArgv } : {}) };
    const w = new Worker(this.script.file, { workerData: { dbFile: this.dbFile, self }, ...(this.script.execArgv ? { execArgv: this.script.execArgv } : {}) });
    w.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: IpcError }) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new AppError(m.error!.code as ErrorCode, m.error!.message, m.error!.detail));
    });
    const lost = (why: string): void => {
      if (this.#worker === w) this.#worker = null;
      if (this.#closed) return;
      this.log.warn(`psbt worker stopped: ${why}`);
      for (const [id, p] of this.#pending) {
        this.#pending.delete(id);
        p.reject(new AppError('internal', `The PSBT worker stopped while it was working on this (${why}). Try again.`));
      }
    };
    w.on('error', (e) => lost(e.message.split('\n')[0] ?? 'error'));
    w.on('exit', (code) => lost(`exit code ${code}`));
    // An idle worker does not keep the process alive.
    w.unref();
    return w;
  }

  run<J extends JobName>(job: J, request: Jobs[J]['request']): Promise<Jobs[J]['reply']> {
    if (this.#closed) return Promise.reject(new AppError('cancelled', 'The PSBT worker was closed.'));
    const w = (this.#worker ??= this.#start());
    const id = this.#nextId++;
    return new Promise<Jobs[J]['reply']>((resolve, reject) => {
      this.#pending.set(id, { job, resolve: resolve as (v: unknown) => void, reject });
      w.ref();
      const message: JobMessage = { id, job, request };
      w.postMessage(message);
    }).finally(() => {
      if (this.#pending.size === 0) this.#worker?.unref();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      p.reject(new AppError('cancelled', 'The PSBT worker was closed.'));
    }
    const w = this.#worker;
    this.#worker = null;
    if (w) await w.terminate();
  }
}
