/**
 * The devnet's JSON-RPC server core, HTTP-agnostic, behaving like Bitcoin Core v30:
 * src/httprpc.cpp (HTTPReq_JSONRPC, JSONErrorReply), src/rpc/request.cpp (JSONRPCRequest::parse,
 * JSONRPCReplyObj), src/rpc/server.cpp (CRPCTable::execute, transformNamedArguments, JSONRPCExecOne)
 * and src/rpc/util.cpp (RPCHelpMan::HandleRequest: argument count and declared-type checks).
 *
 * A transport (node:http) only has to hand `handle()` the method, path, headers and body text and
 * write back the status, headers and body it returns.
 */
import { JsonParseError, UJson, U_NULL, UTYPE_NAME, jsonString, parseJson, writeJson, type UValue } from '../../shared/json';
import { RpcError, RPC, type ArgSpec, type RpcContext, type RpcMethodSpec } from './types';

export interface RpcHttpRequest {
  method: string;
  /** Request URI as sent (path and query). */
  path: string;
  headers: Record<string, string | undefined>;
  body: string;
}

export interface RpcHttpReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RpcServerOptions {
  /** Checks the Authorization header (see basicAuth in ./auth). Not called when the header is missing. */
  auth: (header: string | undefined) => boolean | Promise<boolean>;
  methods: RpcMethodSpec[];
  /** Delay before answering wrong credentials (Core: 250 ms). */
  authFailureDelayMs?: number;
  /**
   * The HTTP layer in front of the RPC handler: 'libevent' (Core before 31.99) answers methods it does
   * not implement with its own 501 page and HEAD without a content type; 'core' (31.99's own server,
   * the default) answers 405 to every method but POST.
   */
  http?: 'libevent' | 'core';
}

/** libevent's reply to a method it does not implement (evhttp_send_error, 501). */
export const LIBEVENT_NOT_IMPLEMENTED = '<HTML><HEAD>\n<TITLE>501 Not Implemented</TITLE>\n</HEAD><BODY>\n<H1>Not Implemented</H1>\n</BODY></HTML>\n';
/** The methods libevent accepts by default (evhttp allowed_methods). */
const LIBEVENT_METHODS = new Set(['GET', 'POST', 'HEAD', 'PUT', 'DELETE']);

/** libevent's default content type (401, 404, 405 replies). */
export const LIBEVENT_CONTENT_TYPE = 'text/html; charset=ISO-8859-1';
export const WWW_AUTH_HEADER_DATA = 'Basic realm="jsonrpc"';
export const INITIAL_WARMUP_MESSAGE = 'RPC server started';

/** Mutable request state; like Core's JSONRPCRequest it is reused across the elements of a batch. */
interface JsonRpcRequest {
  /** undefined = no `id` member (reply omits it). */
  id: UValue | undefined;
  v2: boolean;
  method: string;
  params: UValue;
  walletPath: string | null;
}

interface ErrorObj {
  code: number;
  message: string;
}

const isNotification = (j: JsonRpcRequest): boolean => j.id === undefined && j.v2;

/** JSONRPCReplyObj: `result` is JSON text already written. */
function replyObj(result: string | null, error: ErrorObj | null, j: JsonRpcRequest): string {
  const parts: string[] = ['{'];
  const add = (k: string, v: string): void => {
    if (parts.length > 1) parts.push(',');
    parts.push(jsonString(k), ':', v);
  };
  if (j.v2) add('jsonrpc', '"2.0"');
  if (error === null) {
    add('result', result ?? 'null');
    if (!j.v2) add('error', 'null');
  } else {
    if (!j.v2) add('result', 'null');
    add('error', writeJson({ code: error.code, message: error.message }));
  }
  if (j.id !== undefined) add('id', writeJson(new UJson(j.id)));
  parts.push('}');
  return parts.join('');
}

function errOf(e: unknown): ErrorObj {
  if (e instanceof RpcError) return { code: e.code, message: e.message };
  return { code: RPC.MISC_ERROR, message: e instanceof Error ? e.message : String(e) };
}

/** JSONRPCRequest::parse. Throws RpcError; `j` is updated in Core's order (id, version, method, params). */
function parseRequest(j: JsonRpcRequest, v: UValue): void {
  if (v.t !== 'obj') throw new RpcError(RPC.INVALID_REQUEST, 'Invalid Request object');
  const find = (k: string): UValue | undefined => {
    const i = v.k.indexOf(k);
    return i < 0 ? undefined : v.v[i];
  };
  j.id = find('id');
  j.v2 = false;
  const version = find('jsonrpc');
  if (version !== undefined && version.t !== 'null') {
    if (version.t !== 'str') throw new RpcError(RPC.INVALID_REQUEST, 'jsonrpc field must be a string');
    if (version.v === '1.0') j.v2 = false;
    else if (version.v === '2.0') j.v2 = true;
    else throw new RpcError(RPC.INVALID_REQUEST, 'JSON-RPC version not supported');
  }
  const method = find('method');
  if (method === undefined || method.t === 'null') throw new RpcError(RPC.INVALID_REQUEST, 'Missing method');
  if (method.t !== 'str') throw new RpcError(RPC.INVALID_REQUEST, 'Method must be a string');
  j.method = method.v;
  const params = find('params');
  if (params === undefined || params.t === 'null') j.params = { t: 'arr', v: [] };
  else if (params.t === 'arr' || params.t === 'obj') j.params = params;
  else throw new RpcError(RPC.INVALID_REQUEST, 'Params must be an array or object');
}

/** transformNamedArguments (src/rpc/server.cpp), without named-only (OBJ_NAMED_PARAMS) arguments. */
export function transformNamedArguments(params: Extract<UValue, { t: 'obj' }>, args: ArgSpec[]): UValue[] {
  const argsIn = new Map<string, UValue>();
  params.k.forEach((k, i) => {
    if (argsIn.has(k)) throw new RpcError(RPC.INVALID_PARAMETER, `Parameter ${k} specified multiple times`);
    argsIn.set(k, params.v[i] ?? U_NULL);
  });
  let out: UValue[] = [];
  let hole = 0;
  let initialHoleSize = 0;
  let initialParam: string | null = null;
  for (const arg of args) {
    const found = arg.name.split('|').find((n) => argsIn.has(n));
    if (found !== undefined) {
      // Fill holes between specified parameters with nulls (never at the end).
      for (let i = 0; i < hole; i++) out.push(U_NULL);
      hole = 0;
      if (initialParam === null) initialParam = arg.name;
      out.push(argsIn.get(found) ?? U_NULL);
      argsIn.delete(found);
    } else {
      hole += 1;
      if (out.length === 0) initialHoleSize = hole;
    }
  }
  if (argsIn.has('args')) {
    const positional = argsIn.get('args') ?? U_NULL;
    argsIn.delete('args');
    if (positional.t === 'arr') {
      if (initialHoleSize < positional.v.length && initialParam !== null) {
        throw new RpcError(
          RPC.INVALID_PARAMETER,
          `Parameter ${initialParam} specified twice both as positional and named argument`,
        );
      }
      const named = out;
      out = [...positional.v];
      for (let i = out.length; i < named.length; i++) out.push(named[i] ?? U_NULL);
    }
  }
  const unknown = argsIn.keys().next();
  if (!unknown.done) throw new RpcError(RPC.INVALID_PARAMETER, `Unknown named parameter ${unknown.value}`);
  return out;
}

/** RPCArg::ExpectedType: the JSON type the framework checks, or null when not checked. */
function expectedType(arg: ArgSpec): UValue['t'] | null {
  switch (arg.type) {
    case 'str':
    case 'str_hex':
      return 'str';
    case 'num':
      return 'num';
    case 'bool':
      return 'bool';
    case 'obj':
    case 'obj_user_keys':
      return 'obj';
    case 'arr':
      return 'arr';
    case 'amount':
    case 'any':
      return null;
  }
}

/**
 * RPCHelpMan::HandleRequest checks: positional argument count (-1 with the help text), then the
 * declared type of every argument, all mismatches in one -3 error (UniValue::write(4) layout).
 * Returns the handler's argument list (undefined = omitted, or null for an optional argument).
 */
export function checkArguments(spec: RpcMethodSpec, params: UValue[]): (UValue | undefined)[] {
  let required = 0;
  for (let n = spec.args.length; n > 0; n--) {
    if (spec.args[n - 1]?.required) {
      required = n;
      break;
    }
  }
  if (params.length < required || params.length > spec.args.length) throw new RpcError(RPC.MISC_ERROR, spec.help);

  const mismatches: string[] = [];
  spec.args.forEach((arg, i) => {
    const v = params[i] ?? U_NULL;
    if (!arg.required && v.t === 'null') return;
    const t = expectedType(arg);
    if (t !== null && v.t !== t) {
      mismatches.push(
        `    ${jsonString(`Position ${i + 1} (${arg.name})`)}: ${jsonString(
          `JSON value of type ${UTYPE_NAME[v.t]} is not of expected type ${UTYPE_NAME[t]}`,
        )}`,
      );
    }
  });
  if (mismatches.length > 0) {
    throw new RpcError(RPC.TYPE_ERROR, `Wrong type passed:\n{\n${mismatches.join(',\n')}\n}`);
  }
  return spec.args.map((arg, i) => {
    const v = params[i];
    if (v === undefined) return undefined;
    if (v.t === 'null' && !arg.required) return undefined;
    return v;
  });
}

/** Core's UrlDecode (common/url.cpp): %XX octets decoded, everything else kept (no '+' → space). */
export function urlDecode(s: string): string {
  const chars = Array.from(s);
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    const hex = `${chars[i + 1] ?? ''}${chars[i + 2] ?? ''}`;
    if (c === '%' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
      continue;
    }
    bytes.push(...enc.encode(c));
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

const WALLET_ENDPOINT_BASE = '/wallet/';

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === lower && v !== undefined) return v;
  }
  return undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const jsonReply = (status: number, body: string): RpcHttpReply => ({
  status,
  headers: { 'Content-Type': 'application/json' },
  body: `${body}\n`,
});

const KNOWN_HTTP_METHODS = new Set(['GET', 'POST', 'HEAD', 'PUT']);

export class RpcServer {
  private readonly methods = new Map<string, RpcMethodSpec>();
  private readonly auth: RpcServerOptions['auth'];
  private readonly authFailureDelayMs: number;
  private readonly http: 'libevent' | 'core';
  private warmup: string | null = null;

  constructor(opts: RpcServerOptions) {
    this.auth = opts.auth;
    this.authFailureDelayMs = opts.authFailureDelayMs ?? 250;
    this.http = opts.http ?? 'core';
    for (const m of opts.methods) this.register(m);
  }

  /** Adds (or replaces) a method. */
  register(m: RpcMethodSpec): void {
    this.methods.set(m.name, m);
  }

  has(name: string): boolean {
    return this.methods.has(name);
  }

  /** While a message is set, every call answers -28 with it (Core's warm-up; initially `RPC server started`). */
  setWarmup(message: string | null): void {
    this.warmup = message;
  }

  /** CRPCTable::execute plus the RPCHelpMan checks: the result as JSON text, or throws RpcError. */
  async execute(method: string, params: UValue, ctx: RpcContext): Promise<string> {
    if (this.warmup !== null) throw new RpcError(RPC.IN_WARMUP, this.warmup);
    const spec = this.methods.get(method);
    if (spec === undefined) throw new RpcError(RPC.METHOD_NOT_FOUND, 'Method not found');
    try {
      const positional = params.t === 'obj' ? transformNamedArguments(params, spec.args) : params.t === 'arr' ? params.v : [];
      const args = checkArguments(spec, positional);
      const result = await spec.handler(args, ctx);
      return writeJson(result);
    } catch (e) {
      if (e instanceof RpcError) throw e;
      throw new RpcError(RPC.MISC_ERROR, e instanceof Error ? e.message : String(e));
    }
  }

  /** JSONRPCExecOne. */
  private async execOne(j: JsonRpcRequest, catchErrors: boolean): Promise<string> {
    let result: string;
    if (catchErrors) {
      try {
        result = await this.execute(j.method, j.params, { walletPath: j.walletPath });
      } catch (e) {
        return replyObj(null, errOf(e), j);
      }
    } else {
      result = await this.execute(j.method, j.params, { walletPath: j.walletPath });
    }
    return replyObj(result, null, j);
  }

  /** One HTTP request, as Core's HTTP server and HTTPReq_JSONRPC answer it. */
  async handle(req: RpcHttpRequest): Promise<RpcHttpReply> {
    const empty = (status: number, extra: Record<string, string> = {}): RpcHttpReply => ({
      status,
      headers: { 'Content-Type': LIBEVENT_CONTENT_TYPE, ...extra },
      body: '',
    });
    if (this.http === 'libevent' && !LIBEVENT_METHODS.has(req.method)) {
      return { status: 501, headers: { 'Content-Type': 'text/html', Connection: 'close' }, body: LIBEVENT_NOT_IMPLEMENTED };
    }
    // http_request_cb: unknown HTTP methods, then the handler lookup by path.
    if (!KNOWN_HTTP_METHODS.has(req.method)) return empty(405);
    const uri = req.path;
    if (uri !== '/' && !uri.startsWith(WALLET_ENDPOINT_BASE)) return empty(404);

    // HTTPReq_JSONRPC
    if (req.method !== 'POST') {
      return {
        status: 405,
        // libevent sends no content type with a HEAD reply.
        headers: req.method === 'HEAD' && this.http === 'libevent' ? {} : { 'Content-Type': LIBEVENT_CONTENT_TYPE },
        body: req.method === 'HEAD' ? '' : 'JSONRPC server handles only POST requests',
      };
    }
    const authHeader = header(req.headers, 'authorization');
    if (authHeader === undefined) return empty(401, { 'WWW-Authenticate': WWW_AUTH_HEADER_DATA });
    if (!(await this.auth(authHeader))) {
      await sleep(this.authFailureDelayMs);
      return empty(401, { 'WWW-Authenticate': WWW_AUTH_HEADER_DATA });
    }

    const j: JsonRpcRequest = {
      id: U_NULL,
      v2: false,
      method: '',
      params: { t: 'arr', v: [] },
      walletPath: uri.startsWith(WALLET_ENDPOINT_BASE) ? urlDecode(uri.slice(WALLET_ENDPOINT_BASE.length)) : null,
    };
    try {
      let request: UValue;
      try {
        request = parseJson(req.body);
      } catch (e) {
        if (e instanceof JsonParseError) throw new RpcError(RPC.PARSE_ERROR, 'Parse error');
        throw e;
      }

      if (request.t === 'obj') {
        parseRequest(j, request);
        // Legacy requests throw (HTTP error statuses); 2.0 requests get HTTP 200 with the error.
        const reply = await this.execOne(j, j.v2);
        if (isNotification(j)) return { status: 204, headers: {}, body: '' };
        return jsonReply(200, reply);
      }
      if (request.t === 'arr') {
        const replies: string[] = [];
        for (const element of request.v) {
          let response: string;
          try {
            parseRequest(j, element);
            response = await this.execOne(j, true);
          } catch (e) {
            response = replyObj(
              null,
              e instanceof RpcError ? errOf(e) : { code: RPC.PARSE_ERROR, message: errOf(e).message },
              j,
            );
          }
          if (!isNotification(j)) replies.push(response);
        }
        if (replies.length === 0 && request.v.length > 0) return { status: 204, headers: {}, body: '' };
        return jsonReply(200, `[${replies.join(',')}]`);
      }
      throw new RpcError(RPC.PARSE_ERROR, 'Top-level object parse error');
    } catch (e) {
      // JSONErrorReply
      const err = e instanceof RpcError ? errOf(e) : { code: RPC.PARSE_ERROR, message: errOf(e).message };
      let status = 500;
      if (err.code === RPC.INVALID_REQUEST) status = 400;
      else if (err.code === RPC.METHOD_NOT_FOUND) status = 404;
      return jsonReply(status, replyObj(null, err, j));
    }
  }
}
