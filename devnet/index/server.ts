/**
 * The devnet's imitation of the bitaps block index (interface B): routing, pointer parsing,
 * the `{data, time}` envelope, error bodies and Python-style JSON. Transport-agnostic: the HTTP
 * layer (rate limiting, fault injection) calls {@link IndexServer.handle}.
 * Spec: shared/spec/index-api.md sections 1, 2, 3, 6, 7.
 */
import type { ChainView } from '../chain/types';
import { ApiError, INTERNAL_SERVER_ERROR, INVALID_BLOCK_POINTER, NOT_FOUND, PARAMETER_ERROR, pyInt } from './records';
import { blockRecordOf } from './block-record';
import { txRecordOf } from './tx-record';
import { utxoRecords } from './utxo-records';
import { PyFloat, pyDumps, pyRound, type PyJson } from './pyjson';

export interface IndexRequest {
  readonly method: string;
  /** Path without query string, e.g. `/v1/blockchain/block/12`. */
  readonly path: string;
  readonly query: URLSearchParams;
}

export interface IndexResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface IndexServerOptions {
  /** Clock in seconds (like Python `time.time()`), used only for the envelope's `time`. */
  readonly now?: () => number;
  /** Server page limit of `/address/utxo` (default 5000). */
  readonly utxoPageLimit?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

type Route = 'block' | 'transaction' | 'utxo';

const ROUTES: readonly [RegExp, Route][] = [
  [/^\/v1\/blockchain\/block\/([^/]+)$/, 'block'],
  [/^\/v1\/blockchain\/transaction\/([^/]+)$/, 'transaction'],
  [/^\/v1\/blockchain\/address\/utxo\/([^/]+)$/, 'utxo'],
];

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const isHex = (s: string): boolean => /^[0-9a-fA-F]*$/.test(s) && s.length % 2 === 0;

const truthy = (v: string | null): boolean => v === 'True' || v === '1';

export class IndexServer {
  private readonly now: () => number;
  private readonly utxoPageLimit: number;

  constructor(
    private readonly view: ChainView,
    opts: IndexServerOptions = {},
  ) {
    this.now = opts.now ?? ((): number => performance.now() / 1000);
    this.utxoPageLimit = opts.utxoPageLimit ?? 5000;
  }

  handle(req: IndexRequest): IndexResponse {
    const method = req.method.toUpperCase();
    let match: [string, Route] | undefined;
    for (const [re, route] of ROUTES) {
      const m = re.exec(req.path);
      if (m?.[1] !== undefined) {
        match = [decodeSegment(m[1]), route];
        break;
      }
    }
    if (!match) {
      return json(404, { about: 'BTCAPI server', error: 'Endpoint not found' });
    }
    if (method !== 'GET' && method !== 'HEAD') {
      return {
        status: 405,
        headers: { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET,HEAD' },
        body: '405: Method Not Allowed',
      };
    }
    const started = this.now();
    let res: IndexResponse;
    try {
      const [arg, route] = match;
      const data =
        route === 'block' ? this.block(arg)
        : route === 'transaction' ? this.transaction(arg, req.query)
        : utxoRecords(this.view, arg, req.query, { maxLimit: this.utxoPageLimit });
      const elapsed = Math.max(0, this.now() - started);
      res = json(200, { data, time: new PyFloat(pyRound(elapsed, 4)) });
    } catch (err) {
      res =
        err instanceof ApiError
          ? errorResponse(err.status, err.code, err.message)
          : errorResponse(500, INTERNAL_SERVER_ERROR, 'internal server error');
    }
    return method === 'HEAD' ? { ...res, body: '' } : res;
  }

  private block(pointer: string): PyJson {
    const view = this.view;
    let block;
    if (pointer === 'last') {
      block = view.blockAt(view.tipHeight());
    } else if (pointer.length < 12) {
      const h = pyInt(pointer);
      if (h === undefined) throw new ApiError(400, INVALID_BLOCK_POINTER, 'invalid block pointer');
      block = h >= 0 ? view.blockAt(h) : undefined;
    } else if (pointer.length === 64) {
      if (!isHex(pointer)) throw new ApiError(400, INVALID_BLOCK_POINTER, 'invalid block pointer');
      block = view.blockByHash(pointer.toLowerCase());
    } else {
      throw new ApiError(400, INVALID_BLOCK_POINTER, 'invalid block pointer');
    }
    if (!block) throw new ApiError(404, NOT_FOUND, 'block not found');
    return blockRecordOf(view, block);
  }

  private transaction(pointer: string, query: URLSearchParams): PyJson {
    const view = this.view;
    const opts = { rawTx: truthy(query.get('raw_tx')) };
    const notFound = (): ApiError => new ApiError(404, NOT_FOUND, 'transaction not found');
    if (pointer.length === 64) {
      if (!isHex(pointer)) throw new ApiError(400, PARAMETER_ERROR, 'invalid transaction hash');
      const found = view.findTx(pointer.toLowerCase());
      if (!found) throw notFound();
      return txRecordOf(view, found, opts);
    }
    // Like the server: `k = pointer.split(":")`, int(k[0]), int(k[1]); further parts are ignored.
    const parts = pointer.split(':');
    const h = pyInt(parts[0]);
    const i = pyInt(parts[1]);
    if (h === undefined || i === undefined || h < 0 || i < 0) {
      throw new ApiError(400, PARAMETER_ERROR, 'invalid transaction pointer');
    }
    const block = view.blockAt(h);
    const tx = block?.txs[i];
    if (!block || !tx) throw notFound();
    const found = view.findTx(tx.txid);
    // The view's record of the tx (first-seen time); fall back to the block position.
    return txRecordOf(view, found && found.block?.hash === block.hash ? found : { tx, block, index: i, firstSeen: block.time }, opts);
  }
}

function json(status: number, value: PyJson): IndexResponse {
  return { status, headers: { 'Content-Type': JSON_TYPE }, body: pyDumps(value) };
}

export function errorResponse(status: number, code: number, message: string): IndexResponse {
  return json(status, { error_code: code, message, details: '' });
}
