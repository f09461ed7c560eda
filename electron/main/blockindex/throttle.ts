// Request pacing of the index client: the concurrency cap (FIFO slots, held for a whole call) and the
// client's own rate limit (a token per request, returned `perMs` after the request finished). Both
// queue waiters in FIFO order; an aborted waiter leaves its queue and rejects with 'cancelled'.
import { AppError } from '../../../shared/errors';

function cancelledError(): AppError {
  return new AppError('cancelled', 'The request to the index was cancelled.');
}

interface Waiter {
  resolve: () => void;
  reject: (e: AppError) => void;
}

/** Waits in FIFO order; an aborted waiter leaves the queue. */
function enqueue(queue: Waiter[], signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(cancelledError());
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      const i = queue.indexOf(waiter);
      if (i >= 0) queue.splice(i, 1);
      reject(cancelledError());
    };
    const waiter: Waiter = {
      resolve: () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      reject,
    };
    queue.push(waiter);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Concurrency cap: `limit` holders at once, the rest wait in FIFO order. */
export class Slots {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly limit: number) {}

  acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limit && this.queue.length === 0) {
      if (signal?.aborted) return Promise.reject(cancelledError());
      this.active++;
      return Promise.resolve();
    }
    return enqueue(this.queue, signal);
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next.resolve(); // the slot passes straight to the next in line
    else this.active--;
  }
}

/**
 * The client's own rate limit: a bucket of `capacity` tokens; each request takes one, and a token
 * comes back `perMs` after its request FINISHED. The server sees a request arrive before it
 * finishes, so consecutive requests on one token arrive at least `perMs` apart, and no window of
 * `perMs` (as the server measures it) holds more than `capacity` requests — unlike a refilling
 * bucket, which allows up to twice that across a window edge.
 */
export class Limiter {
  /** Tokens held by requests in flight. */
  private inFlight = 0;
  /** performance.now() times at which used tokens come back, ascending. */
  private returning: number[] = [];
  private readonly queue: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly capacity: number,
    private readonly perMs: number,
  ) {}

  take(signal?: AbortSignal): Promise<void> {
    if (this.queue.length === 0 && this.available(performance.now()) > 0) {
      if (signal?.aborted) return Promise.reject(cancelledError());
      this.inFlight++;
      return Promise.resolve();
    }
    const p = enqueue(this.queue, signal);
    this.pump();
    return p;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The request holding a token has finished (any outcome). */
  finish(): void {
    this.inFlight--;
    this.returning.push(performance.now() + this.perMs);
    this.pump();
  }

  private available(now: number): number {
    while (this.returning.length > 0 && this.returning[0]! <= now) this.returning.shift();
    return this.capacity - this.inFlight - this.returning.length;
  }

  private pump(): void {
    const now = performance.now();
    let free = this.available(now);
    while (free > 0 && this.queue.length > 0) {
      this.inFlight++;
      free--;
      this.queue.shift()!.resolve();
    }
    if (this.queue.length === 0 || this.timer || this.returning.length === 0) return;
    // Timers can fire a little early against performance.now(); pump() re-checks and re-arms.
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, Math.max(1, Math.ceil(this.returning[0]! - now)));
  }
}
