// The index client's request budget (issue #27): its concurrency cap (a slot held for a whole call,
// retries included), its rate limit (a token per request, throttle.ts) and a server-announced 429
// pause. The main thread's client paces with its own budget (LocalPacer). A client built in another
// thread of this process from main's (IndexClient.handoff(), the refresh's index lookups in the import
// worker) paces with main's over a MessagePort (RemotePacer ↔ serveBudget): every slot and every
// token is asked of main's budget and given back to it, so main and the worker together never exceed
// one limit (e.g. 15 requests / 5 s to a remote index), nor one concurrency cap.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { AppError, toIpcError, type ErrorCode, type IpcError } from '../../../shared/errors';
import { sleep } from '../net/http';
import { Limiter, Slots } from './throttle';

/** Gives back what was taken (once; later calls do nothing). */
export type Release = () => void;

export interface Pacer {
  /** A concurrency slot, held for a whole call. */
  slot(signal: AbortSignal): Promise<Release>;
  /** A request's turn: after a 429 pause, a rate-limit token, given back when the request finished. */
  token(signal: AbortSignal): Promise<Release>;
  /** A 429's Ratelimit-Reset: no request of the budget is sent for `ms`. */
  pause(ms: number): void;
  close(): void;
}

function once(f: () => void): Release {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}

function cancelledError(): AppError {
  return new AppError('cancelled', 'The request to the index was cancelled.');
}

/** The budget of this thread's client. */
export class LocalPacer implements Pacer {
  readonly #slots: Slots;
  readonly #limiter: Limiter | null;
  /** performance.now() before which no request is sent (a 429's Ratelimit-Reset). */
  #pausedUntil = 0;

  constructor(concurrency: number, rate: { requests: number; perMs: number } | null) {
    this.#slots = new Slots(concurrency);
    this.#limiter = rate ? new Limiter(rate.requests, rate.perMs) : null;
  }

  async slot(signal: AbortSignal): Promise<Release> {
    await this.#slots.acquire(signal);
    return once(() => this.#slots.release());
  }

  async token(signal: AbortSignal): Promise<Release> {
    const pause = this.#pausedUntil - performance.now();
    if (pause > 0) await sleep(pause, signal);
    const limiter = this.#limiter;
    if (limiter === null) return () => {};
    await limiter.take(signal);
    return once(() => limiter.finish());
  }

  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
  }

  close(): void {
    this.#limiter?.close();
  }
}

type BudgetAsk = { id: number; kind: 'slot' | 'token' } | { id: number; done: true } | { pause: number };
type BudgetAnswer = { id: number; ok: true } | { id: number; ok: false; error: IpcError } | { closed: true };

/** A lent budget: the port to hand to the other thread, and close() once its work is over. */
export interface LentBudget {
  port: MessagePort;
  /**
   * Gives back whatever the other side still holds, stops waits it still has, tells it the budget is
   * gone (its client closes: its calls end 'cancelled'), and closes the channel.
   */
  close(): void;
}

/**
 * Serves `pacer` to another thread: it asks a slot or a token ({id, kind}), is answered when main's
 * budget grants it ({id, ok}), and gives it back ({id, done}) — a `done` before the grant withdraws
 * the ask. A `pause` is a 429 the other side got.
 */
export function serveBudget(pacer: Pacer): LentBudget {
  const { port1, port2 } = new MessageChannel();
  const held = new Map<number, { abort: AbortController; release: Release | null }>();
  port1.on('message', (m: BudgetAsk) => {
    if ('pause' in m) {
      if (typeof m.pause === 'number' && Number.isFinite(m.pause) && m.pause > 0) pacer.pause(m.pause);
      return;
    }
    if ('done' in m) {
      const h = held.get(m.id);
      held.delete(m.id);
      if (h !== undefined) (h.release ?? (() => h.abort.abort()))();
      return;
    }
    const h = { abort: new AbortController(), release: null as Release | null };
    held.set(m.id, h);
    (m.kind === 'slot' ? pacer.slot(h.abort.signal) : pacer.token(h.abort.signal)).then(
      (release) => {
        if (held.get(m.id) !== h) return release(); // withdrawn, or the budget closed meanwhile
        h.release = release;
        port1.postMessage({ id: m.id, ok: true } satisfies BudgetAnswer);
      },
      (e: unknown) => {
        if (held.get(m.id) !== h) return;
        held.delete(m.id);
        port1.postMessage({ id: m.id, ok: false, error: toIpcError(e) } satisfies BudgetAnswer);
      },
    );
  });
  // The thread's own work (the job awaited) keeps it alive, not this port.
  port1.unref();
  return {
    port: port2,
    close: () => {
      const all = [...held.values()];
      held.clear();
      for (const h of all) (h.release ?? (() => h.abort.abort()))();
      port1.postMessage({ closed: true } satisfies BudgetAnswer);
      port1.close();
    },
  };
}

/** The budget of a client in another thread, asked of the one serveBudget serves on `port`. */
export class RemotePacer implements Pacer {
  readonly #port: MessagePort;
  readonly #waiting = new Map<number, (m: { id: number; ok: true } | { id: number; ok: false; error: IpcError }) => void>();
  #next = 0;
  #closed = false;

  /** `onClosed`: the lender closed the budget (its client was closed, or the loan is over). */
  constructor(port: MessagePort, onClosed: () => void) {
    this.#port = port;
    port.on('message', (m: BudgetAnswer) => {
      if (!('closed' in m)) return this.#waiting.get(m.id)?.(m);
      const cancelled = toIpcError(cancelledError());
      for (const [id, answer] of [...this.#waiting]) answer({ id, ok: false, error: cancelled });
      this.close();
      onClosed();
    });
    port.unref();
  }

  slot(signal: AbortSignal): Promise<Release> {
    return this.#ask('slot', signal);
  }

  token(signal: AbortSignal): Promise<Release> {
    return this.#ask('token', signal);
  }

  pause(ms: number): void {
    this.#post({ pause: ms });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#port.close();
  }

  #post(m: BudgetAsk): void {
    if (!this.#closed) this.#port.postMessage(m);
  }

  #ask(kind: 'slot' | 'token', signal: AbortSignal): Promise<Release> {
    // (A closed budget: every ask is refused, as a closed client's calls are.)
    if (signal.aborted || this.#closed) return Promise.reject(cancelledError());
    const id = ++this.#next;
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        this.#forget(id);
        this.#post({ id, done: true });
        reject(cancelledError());
      };
      this.#waiting.set(id, (m: { id: number; ok: true } | { id: number; ok: false; error: IpcError }) => {
        this.#forget(id);
        signal.removeEventListener('abort', onAbort);
        if (m.ok) resolve(once(() => this.#post({ id, done: true })));
        else reject(new AppError(m.error.code as ErrorCode, m.error.message, m.error.detail));
      });
      signal.addEventListener('abort', onAbort, { once: true });
      // While an ask waits, its answer keeps this thread alive: with the runner inline (the CLI), both
      // ends are in one thread, and with the port unref'd the process would end, code 0, mid-refresh.
      if (this.#waiting.size === 1 && !this.#closed) this.#port.ref();
      this.#post({ id, kind });
    });
  }

  #forget(id: number): void {
    this.#waiting.delete(id);
    if (this.#waiting.size === 0) this.#port.unref();
  }
}
