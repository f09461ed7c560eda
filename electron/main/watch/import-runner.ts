// Where import jobs (import-table.ts) run: in the import worker thread (the app), or inline in this
// thread (tests that build WatchService by hand). Both reject with the AppError the job threw (rebuilt
// from its IpcError across the thread boundary). The thread itself: worker-thread.ts.
import { MessagePort, type Worker } from 'node:worker_threads';
import { AppError, type ErrorCode, type IpcError } from '../../../shared/errors';
import type { Logger } from '../log';
import type { WatchRepository } from '../store/watch';
import { runImportJob, type ImportJobMessage, type ImportJobName, type ImportJobs } from './import-table';
import { scriptBeside, WorkerThread, type WorkerScript } from '../worker-thread';

export interface ImportRunner {
  readonly kind: 'worker' | 'inline';
  run<J extends ImportJobName>(job: J, request: ImportJobs[J]['request']): Promise<ImportJobs[J]['reply']>;
  close(): Promise<void>;
}

export class InlineImportRunner implements ImportRunner {
  readonly kind = 'inline';
  constructor(private readonly repo: WatchRepository | null) {}
  async run<J extends ImportJobName>(job: J, request: ImportJobs[J]['request']): Promise<ImportJobs[J]['reply']> {
    return runImportJob(this.repo, job, request) as ImportJobs[J]['reply'];
  }
  async close(): Promise<void> {}
}

/** import-worker.ts through tsx, for the app run from source (tests). */
export function sourceImportWorkerScript(): WorkerScript {
  return { file: new URL('./import-worker.ts', import.meta.url), execArgv: ['--import', 'tsx'] };
}

/** The built `import-worker.js` beside a built entry (out/main/index.js, out/main/web.js), or import-worker.ts from source. */
export function importWorkerScriptBeside(moduleUrl: string): WorkerScript {
  return scriptBeside(moduleUrl, 'import-worker.js', sourceImportWorkerScript);
}

/** The longest text sent to the worker in one message (characters); longer ones go in slices this long. */
export const TEXT_SLICE = 256 * 1024;

export class WorkerImportRunner implements ImportRunner {
  readonly kind = 'worker';
  readonly #thread: WorkerThread;

  constructor(script: WorkerScript, dbFile: string, log: Logger) {
    this.#thread = new WorkerThread({
      script,
      workerData: { dbFile },
      name: 'import worker',
      log,
      replyError: (e) => {
        const err = e as IpcError;
        return new AppError(err.code as ErrorCode, err.message, err.detail);
      },
      lostError: (why) => new AppError('internal', `The import worker stopped while it was working on this (${why}); its write is one transaction, so it was written whole or not at all. Try again.`),
      closedError: () => new AppError('cancelled', 'The import worker was closed.'),
    });
  }

  run<J extends ImportJobName>(job: J, request: ImportJobs[J]['request']): Promise<ImportJobs[J]['reply']> {
    return this.#thread.request((w, id) => this.#post(w, id, job, request));
  }

  /**
   * Sends the job. Copying a 10 MB text into the worker in one postMessage blocks this thread for as
   * long as the copy takes (hundreds of ms on a busy machine), so a long text goes first in slices, one
   * per turn of the event loop, and the job names them.
   */
  async #post(w: Worker, id: number, job: ImportJobName, request: object): Promise<void> {
    const text = (request as { text?: unknown }).text;
    if (typeof text !== 'string' || text.length <= TEXT_SLICE) {
      // A port in the request (the index budget lent to the refresh's lookups) is moved to the worker.
      const ports = Object.values(request).filter((v): v is MessagePort => v instanceof MessagePort);
      w.postMessage({ id, job, request } satisfies ImportJobMessage, ports);
      return;
    }
    for (let at = 0; at < text.length; ) {
      let end = Math.min(text.length, at + TEXT_SLICE);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--; // keep a surrogate pair whole
      w.postMessage({ id, slice: text.slice(at, end) } satisfies ImportJobMessage);
      at = end;
      await new Promise((r) => setImmediate(r));
      if (!this.#thread.awaits(w, id)) return; // the worker stopped, or closed
    }
    w.postMessage({ id, job, request: { ...request, text: '' }, sliced: true } satisfies ImportJobMessage);
  }

  close(): Promise<void> {
    return this.#thread.close();
  }
}
