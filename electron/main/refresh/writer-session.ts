// A refresh's session with the writer that takes parts ahead of the write (the import worker,
// snapshot-writer.ts): the getaddressinfo lines sent batch by batch, or asked and kept there
// (info-batches.ts), and the received step asked there (received-job.ts), all under one name, which
// the write then takes. Whatever used the session marks it, so that a failed, cancelled or unchanged
// refresh drops what it left there (its parts, and the worker's client for it).
import { randomUUID } from 'node:crypto';
import type { SnapshotPartWriter } from './snapshot-writer';

export class WriterSession {
  readonly id = randomUUID();
  /** Whether something was sent or asked under this name since the last write took it. */
  used = false;
  readonly #part: SnapshotPartWriter;

  constructor(part: SnapshotPartWriter) {
    this.#part = part;
  }

  /** Sends a part (snapshot lines) ahead of the write. */
  send(text: string): Promise<void> {
    this.used = true;
    return this.#part({ session: this.id, text });
  }

  /** `job` run under this session's name (the request gets `session`). */
  job<A extends object, R>(job: (request: A & { session: string }) => Promise<R>): (request: A) => Promise<R> {
    return (request) => {
      this.used = true;
      return job({ ...request, session: this.id });
    };
  }

  /** Drops what was sent or kept under this name (which aborts a call under way there); `onError` hears a failed drop. */
  drop = (onError?: (e: unknown) => void): void => {
    void this.#part({ session: this.id, text: null }).catch((e: unknown) => onError?.(e));
  };
}
