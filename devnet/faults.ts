/**
 * Fault and limit modes for reliability tests, all off by default: a token-bucket-style rate limit
 * answering 429 with `Ratelimit-Remaining`/`Ratelimit-Reset`, injected latency, 5xx replies, HTML
 * error pages from a "proxy", truncated JSON, connection resets, and (node only) a -28 warm-up.
 */

export type FaultMode = 'http500' | 'http502' | 'http503' | 'html' | 'truncated' | 'reset' | 'garbage';

export const FAULT_MODES: readonly FaultMode[] = ['http500', 'http502', 'http503', 'html', 'truncated', 'reset', 'garbage'];

export interface FaultConfig {
  /** Delay added before every reply. */
  latencyMs?: number;
  /** Requests allowed per window; the 429 carries the seconds left in the window. */
  rateLimit?: { limit: number; windowSeconds: number } | null;
  /** Failure to inject instead of the real reply. */
  mode?: FaultMode | null;
  /** Inject `mode` on every Nth request (1 = every request). Default 1. */
  every?: number;
  /** Node only: answer -28 with this message until `warmupUntil` (ms since epoch) or forever. */
  warmup?: { message: string; untilMs?: number } | null;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type FaultAction =
  | { kind: 'pass' }
  | { kind: 'reply'; reply: Reply }
  | { kind: 'truncate' }
  | { kind: 'reset' };

const HTML_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** Per-server fault state (one for the node, one for the index). */
export class Faults {
  private config: FaultConfig = {};
  private count = 0;
  private windowStart = 0;
  private windowCount = 0;

  constructor(private readonly which: 'rpc' | 'index', private readonly now: () => number = Date.now) {}

  set(config: FaultConfig): void {
    this.config = { ...config };
    this.count = 0;
    this.windowStart = 0;
    this.windowCount = 0;
  }

  get(): FaultConfig {
    return { ...this.config };
  }

  latency(): number {
    return this.config.latencyMs ?? 0;
  }

  warmupMessage(): string | null {
    const w = this.config.warmup;
    if (!w) return null;
    if (w.untilMs !== undefined && this.now() >= w.untilMs) return null;
    return w.message;
  }

  /** Decides what to do with the next request. */
  next(): FaultAction {
    const c = this.config;
    if (c.rateLimit) {
      const now = this.now();
      const windowMs = c.rateLimit.windowSeconds * 1000;
      if (now - this.windowStart >= windowMs) {
        this.windowStart = now;
        this.windowCount = 0;
      }
      this.windowCount++;
      const reset = Math.max(1, Math.ceil((this.windowStart + windowMs - now) / 1000));
      if (this.windowCount > c.rateLimit.limit) {
        return {
          kind: 'reply',
          reply: {
            status: 429,
            headers: {
              'Content-Type': 'text/plain; charset=utf-8',
              'Ratelimit-Limit': String(c.rateLimit.limit),
              'Ratelimit-Remaining': '0',
              'Ratelimit-Reset': String(reset),
              'Retry-After': String(reset),
            },
            body: '429: Too Many Requests',
          },
        };
      }
    }
    if (!c.mode) return { kind: 'pass' };
    this.count++;
    const every = Math.max(1, c.every ?? 1);
    if (this.count % every !== 0) return { kind: 'pass' };
    switch (c.mode) {
      case 'reset':
        return { kind: 'reset' };
      case 'truncated':
        return { kind: 'truncate' };
      case 'html':
        return { kind: 'reply', reply: { status: 502, headers: { 'Content-Type': 'text/html' }, body: HTML_PAGE } };
      case 'garbage':
        return { kind: 'reply', reply: { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"data": [1, 2, "\u0000", {"x": }' } };
      case 'http503':
        return this.which === 'rpc'
          ? { kind: 'reply', reply: { status: 503, headers: { 'Content-Type': 'text/plain' }, body: 'Work queue depth exceeded' } }
          : { kind: 'reply', reply: { status: 503, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '503: Service Unavailable' } };
      case 'http502':
        return { kind: 'reply', reply: { status: 502, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '502: Bad Gateway' } };
      case 'http500':
        return this.which === 'rpc'
          ? { kind: 'reply', reply: { status: 500, headers: { 'Content-Type': 'text/plain' }, body: 'Internal Server Error' } }
          : {
              kind: 'reply',
              reply: {
                status: 500,
                headers: { 'Content-Type': 'application/json; charset=utf-8' },
                body: '{"error_code": 1, "message": "internal server error", "details": ""}',
              },
            };
    }
  }
}
