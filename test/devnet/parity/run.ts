/**
 * The differential runner: each step is one request, built per node from that node's own earlier
 * results (its addresses, txids…), sent to real Core and then to the devnet; the replies are compared
 * (compare.ts) and every difference is kept with the step's name. It also records which methods were
 * answered with a result and with an error, for the coverage check.
 */
import { parseJson, toPlain } from '../../../shared/json';
import type { TestRpc } from '../../support/rpc';
import { ReplyComparer, type Difference, type Reply } from './compare';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Vars = Record<string, any>;

export interface Side {
  name: 'core' | 'devnet';
  rpc: TestRpc;
  vars: Vars;
}

export interface HttpRequest {
  path?: string;
  body: string;
  /** undefined: the node's credentials; null: no Authorization header; else the header. */
  auth?: string | null;
  httpMethod?: string;
}

export interface Step {
  name: string;
  /** The JSON-RPC method (for the coverage check), or '' for transport-level requests. */
  method: string;
  strict: boolean;
  request(v: Vars): HttpRequest;
  /** Per node, after its reply: keep what later steps need (result is the parsed `result`, or null). */
  save?(v: Vars, result: unknown, reply: Reply): void;
  /** Arrays whose order is not compared (paths like `body.result`, `body.result[].txids`; compare.ts says why). */
  unordered?: string[];
  /** A rule each node's result must keep on its own (e.g. a sort order over values that differ): null or what is wrong. */
  check?(result: unknown): string | null;
}

type Params = unknown[] | Record<string, unknown>;
let nextId = 0;

/** A JSON-RPC 1.0 call, the way the app sends them. */
export function call(
  name: string,
  method: string,
  params: Params | ((v: Vars) => Params) = [],
  opts: { wallet?: string | ((v: Vars) => string); strict?: boolean; save?: Step['save']; unordered?: string[]; check?: Step['check'] } = {},
): Step {
  const id = `p${++nextId}`;
  return {
    name,
    method,
    strict: opts.strict ?? false,
    request(v) {
      const p = typeof params === 'function' ? params(v) : params;
      const w = typeof opts.wallet === 'function' ? opts.wallet(v) : opts.wallet;
      return { path: w === undefined ? '/' : `/wallet/${encodeURIComponent(w)}`, body: JSON.stringify({ jsonrpc: '1.0', id, method, params: p }) };
    },
    save: opts.save,
    unordered: opts.unordered,
    check: opts.check,
  };
}

/** The same call in strict mode (the identical chain: nothing is normalised). */
export const strict = (name: string, method: string, params: Params | ((v: Vars) => Params) = [], opts: Parameters<typeof call>[3] = {}): Step =>
  call(name, method, params, { ...opts, strict: true });

export interface Coverage {
  ok: Set<string>;
  error: Set<string>;
}

export class DiffRunner {
  readonly comparer: ReplyComparer;
  readonly differences: Difference[] = [];
  readonly coverage: Coverage = { ok: new Set(), error: new Set() };
  steps = 0;

  constructor(
    readonly core: Side,
    readonly devnet: Side,
    datadirs: { core: string | null; devnet: string | null },
  ) {
    this.comparer = new ReplyComparer(datadirs);
  }

  private async send(side: Side, req: HttpRequest): Promise<Reply> {
    const r = await side.rpc.raw(req.path ?? '/', req.body, { method: req.httpMethod, auth: req.auth });
    return { status: r.status, contentType: r.contentType, text: r.text, wwwAuthenticate: r.headers.get('www-authenticate') };
  }

  /** Runs the steps in order; returns the differences they found. */
  async run(steps: Step[]): Promise<Difference[]> {
    const found: Difference[] = [];
    for (const step of steps) {
      this.steps++;
      let coreReply: Reply;
      let devnetReply: Reply;
      try {
        coreReply = await this.send(this.core, step.request(this.core.vars));
        devnetReply = await this.send(this.devnet, step.request(this.devnet.vars));
      } catch (e) {
        throw new Error(`step '${step.name}': ${(e as Error).message}`, { cause: e });
      }
      if (process.env.PARITY_DUMP && step.name.includes(process.env.PARITY_DUMP)) {
        console.info(`[parity dump] ${step.name}\n  request: ${step.request(this.core.vars).body}\n  core:   ${coreReply.status} ${coreReply.text}  devnet: ${devnetReply.status} ${devnetReply.text}`);
      }
      const diffs = this.comparer.compare(step.name, step.method, coreReply, devnetReply, step.strict, new Set(step.unordered ?? []));
      if (step.check) {
        const c = step.check(resultOf(coreReply).result);
        const d = step.check(resultOf(devnetReply).result);
        if (c !== d) diffs.push({ step: step.name, method: step.method, path: 'rule', core: c ?? 'kept', devnet: d ?? 'kept' });
      }
      found.push(...diffs);
      this.differences.push(...diffs);
      const coreResult = resultOf(coreReply);
      if (step.method) {
        if (coreResult.error) this.coverage.error.add(step.method);
        else if (coreResult.ok) this.coverage.ok.add(step.method);
      }
      if (step.save) {
        for (const [side, reply] of [[this.core, coreReply], [this.devnet, devnetReply]] as const) {
          const r = resultOf(reply);
          try {
            step.save(side.vars, r.ok ? r.result : null, reply);
          } catch (e) {
            throw new Error(`step '${step.name}' on ${side.name}: ${(e as Error).message}; reply ${reply.status} ${reply.text.slice(0, 300)}`, { cause: e });
          }
        }
      }
    }
    return found;
  }
}

/** The `result` (plain JSON; numbers as JS numbers) of a single JSON-RPC reply, or its error. */
export function resultOf(reply: Reply): { ok: boolean; result: unknown; error: { code: number; message: string } | null } {
  try {
    const body = toPlain(parseJson(reply.text)) as { result?: unknown; error?: { code: number; message: string } | null };
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      return { ok: !body.error && 'result' in body, result: body.result ?? null, error: body.error ?? null };
    }
  } catch {
    // not JSON
  }
  return { ok: false, result: null, error: null };
}
