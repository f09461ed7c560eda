// Where PSBT jobs run: in the PSBT worker thread (the app), or inline in this thread (tests that build
// PsbtService by hand, the bench's baseline). Both run job-table.ts's functions; both reject with the
// AppError the job threw (rebuilt from its IpcError across the thread boundary).
import { AppError, type ErrorCode, type IpcError } from '../../../shared/errors';
import type { Logger } from '../log';
import { scriptBeside, WorkerThread, type WorkerScript } from '../worker-thread';
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

export type { WorkerScript } from '../worker-thread';

/** The worker script next to this module when running from source (tests), through tsx. */
export function sourceWorkerScript(): WorkerScript {
  return { file: new URL('./worker.ts', import.meta.url), execArgv: ['--import', 'tsx'] };
}

/**
 * The worker script for an entry module at `moduleUrl`: the built `psbt-worker.js` beside a built entry
 * (out/main/index.js, out/main/web.js), or worker.ts when the entry runs from source.
 */
export function workerScriptBeside(moduleUrl: string): WorkerScript {
  return scriptBeside(moduleUrl, 'psbt-worker.js', sourceWorkerScript);
}

export class WorkerRunner implements PsbtRunner {
  readonly kind = 'worker';
  readonly #thread: WorkerThread;

  constructor(script: WorkerScript, dbFile: string, log: Logger) {
    this.#thread = new WorkerThread({
      script,
      workerData: { dbFile },
      name: 'psbt worker',
      log,
      replyError: (e) => {
        const err = e as IpcError;
        return new AppError(err.code as ErrorCode, err.message, err.detail);
      },
      lostError: (why) => new AppError('internal', `The PSBT worker stopped while it was working on this (${why}). Try again.`),
      closedError: () => new AppError('cancelled', 'The PSBT worker was closed.'),
    });
  }

  run<J extends JobName>(job: J, request: Jobs[J]['request']): Promise<Jobs[J]['reply']> {
    return this.#thread.request((w, id) => w.postMessage({ id, job, request } satisfies JobMessage));
  }

  close(): Promise<void> {
    return this.#thread.close();
  }
}
