import { afterEach, describe, expect, it, vi } from 'vitest';
import { REGTEST } from '../../shared/bitcoin/networks';
import { RpcServer, urlDecode, type RpcHttpReply } from '../../devnet/rpc/server';
import { basicAuth, basicAuthHeader } from '../../devnet/rpc/auth';
import { statelessMethods, HELP_CREATERAWTRANSACTION, HELP_DECODEPSBT, HELP_GETADDRESSINFO } from '../../devnet/rpc/stateless';
import { RpcError, type RpcMethodSpec } from '../../devnet/rpc/types';
import { amountFromValue, getInt, getStr, parseHashV } from '../../devnet/rpc/args';
import { RawJson, UJson } from '../../shared/json';
import { coreGroup as recorded, type CoreRecording, type RecordedGeneration } from '../fixtures';

const AUTH = basicAuthHeader('user', 'pass');

/** Test-only methods exercising the framework. */
const echo: RpcMethodSpec = {
  name: 'echo',
  args: [
    { name: 'a', type: 'str', required: true },
    { name: 'b', type: 'num', required: false },
    { name: 'c|alias_c', type: 'bool', required: false },
    { name: 'd', type: 'amount', required: false },
  ],
  help: 'echo "a" ( b c d )\n\nTest method.',
  handler(args) {
    return args.map((a) => (a === undefined ? '<undefined>' : new UJson(a)));
  },
};
const failing: RpcMethodSpec = {
  name: 'fail',
  args: [{ name: 'kind', type: 'str', required: true }],
  help: 'fail "kind"',
  handler([kind]) {
    const k = getStr(kind);
    if (k === 'rpc') throw new RpcError(-5, 'Invalid address');
    if (k === 'plain') throw new Error('something broke');
    if (k === 'int') return getInt({ t: 'num', v: '1.5' });
    if (k === 'type') return getInt({ t: 'str', v: '1' });
    if (k === 'amount') return amountFromValue({ t: 'bool', v: true });
    if (k === 'hash') return parseHashV({ t: 'str', v: 'foo' }, 'blockhash');
    return new RawJson('1.00000000');
  },
};
const asyncMethod: RpcMethodSpec = {
  name: 'ctx',
  args: [],
  help: 'ctx',
  async handler(_args, ctx) {
    await new Promise((r) => setTimeout(r, 1));
    return { walletPath: ctx.walletPath };
  },
};

function makeServer(generation: RecordedGeneration = '31.99'): RpcServer {
  return new RpcServer({
    auth: basicAuth('user', 'pass'),
    methods: [...statelessMethods(REGTEST, generation), echo, failing, asyncMethod],
  });
}

async function post(server: RpcServer, body: string, path = '/'): Promise<RpcHttpReply> {
  return server.handle({ method: 'POST', path, headers: { authorization: AUTH, 'content-type': 'text/plain' }, body });
}

const norm = (text: string): string => JSON.stringify(JSON.parse(text));

function expectJson(reply: RpcHttpReply, status: number, body: unknown): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['Content-Type']).toBe('application/json');
  expect(reply.body.endsWith('\n')).toBe(true);
  expect(norm(reply.body)).toBe(JSON.stringify(body));
}

describe.each(['30', '31.99'] as const)('RpcServer: the Core %s recordings', (generation) => {
  const server = makeServer(generation);
  const replay = async (rec: CoreRecording, headers: Record<string, string | undefined>): Promise<RpcHttpReply> =>
    server.handle({ method: rec.request.method, path: rec.request.path, headers, body: rec.request.body });
  const coreGroup = (group: string): CoreRecording[] => recorded(group, generation);

  for (const rec of coreGroup('createrawtransaction')) {
    it(`createrawtransaction: ${rec.name}`, async () => {
      const reply = await replay(rec, { Authorization: AUTH });
      expect(reply.status).toBe(rec.response.status);
      expect(reply.headers['Content-Type']).toBe(rec.response.contentType);
      expect(reply.body.endsWith('\n')).toBe(true);
      expect(norm(reply.body)).toBe(JSON.stringify(rec.response.body));
    });
  }

  for (const rec of coreGroup('decodepsbt')) {
    it(`decodepsbt: ${rec.name}`, async () => {
      const reply = await replay(rec, { Authorization: AUTH });
      expect(reply.status).toBe(rec.response.status);
      expect(reply.headers['Content-Type']).toBe(rec.response.contentType);
      expect(norm(reply.body)).toBe(JSON.stringify(rec.response.body));
    });
  }

  it('decodepsbt: wrong argument count gives its help', async () => {
    const reply = await post(server, '{"id":1,"method":"decodepsbt","params":[]}');
    expect(JSON.parse(reply.body).error).toEqual({ code: -1, message: HELP_DECODEPSBT });
    expect(HELP_DECODEPSBT.startsWith('decodepsbt "psbt"\n\n')).toBe(true);
  });

  const http = new Map(coreGroup('http').map((r) => [r.name, r]));
  const rec = (name: string): CoreRecording => {
    const r = http.get(name);
    if (!r) throw new Error(`no recording ${name}`);
    return r;
  };

  for (const name of ['method not found 1.0', 'method not found 2.0', 'invalid json']) {
    it(`http: ${name}`, async () => {
      const r = rec(name);
      const reply = await replay(r, { Authorization: AUTH });
      expect(reply.status).toBe(r.response.status);
      expect(reply.headers['Content-Type']).toBe(r.response.contentType);
      expect(norm(reply.body)).toBe(JSON.stringify(r.response.body));
    });
  }

  it('http: GET request', async () => {
    const r = rec('GET request');
    const reply = await replay(r, { Authorization: AUTH });
    expect(reply.status).toBe(405);
    expect(reply.headers['Content-Type']).toBe(r.response.contentType);
    expect(reply.body).toBe(r.response.body);
  });

  // The 250 ms penalty on the clock the server's timers run on, faked: the answers are told apart by
  // whether they need the clock to move, not by how long a (perhaps busy) machine took.
  afterEach(() => void vi.useRealTimers());
  /** Settles `p` with the fake clock moved by `ms`: its value, or 'pending'. */
  const afterMs = async <T>(p: Promise<T>, ms: number): Promise<T | 'pending'> => {
    let out: T | 'pending' = 'pending';
    void p.then((v) => (out = v));
    await vi.advanceTimersByTimeAsync(ms);
    return out;
  };

  it('http: no credentials (401 at once)', async () => {
    const r = rec('no credentials');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const reply = await afterMs(replay(r, {}), 0); // no 250 ms penalty without credentials
    if (reply === 'pending') throw new Error('the 401 without credentials waited for the clock');
    expect(reply.status).toBe(401);
    expect(reply.headers['Content-Type']).toBe(r.response.contentType);
    expect(reply.headers['WWW-Authenticate']).toBe('Basic realm="jsonrpc"');
    expect(reply.body).toBe('');
  });

  it('http: wrong password (401 after 250 ms)', async () => {
    const r = rec('wrong password');
    const t0 = Date.now();
    const reply = await replay(r, { Authorization: basicAuthHeader('user', 'wrong') });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
    expect(reply.status).toBe(401);
    expect(reply.headers['Content-Type']).toBe(r.response.contentType);
    expect(reply.headers['WWW-Authenticate']).toBe('Basic realm="jsonrpc"');
    expect(reply.body).toBe('');
  });

  it('createrawtransaction also answers on a wallet path', async () => {
    const r = coreGroup('createrawtransaction')[0]!;
    const reply = await server.handle({ method: 'POST', path: '/wallet/watch', headers: { Authorization: AUTH }, body: r.request.body });
    expect(norm(reply.body)).toBe(JSON.stringify(r.response.body));
  });
});

describe('RpcServer: transport', () => {
  const server = makeServer();

  it('404 for other paths, before auth', async () => {
    for (const path of ['/foo', '/wallet', '/rest/tx']) {
      const reply = await server.handle({ method: 'POST', path, headers: {}, body: '{}' });
      expect(reply).toEqual({ status: 404, headers: { 'Content-Type': 'text/html; charset=ISO-8859-1' }, body: '' });
    }
  });

  it('auth header variants', async () => {
    const body = '{"id":1,"method":"ctx"}';
    const bad = [`basic ${AUTH.slice(6)}`, 'Basic !!!', `Basic ${Buffer.from('userpass').toString('base64')}`];
    const s = new RpcServer({ auth: basicAuth('user', 'pass'), methods: [asyncMethod], authFailureDelayMs: 0 });
    for (const a of bad) {
      expect((await s.handle({ method: 'POST', path: '/', headers: { Authorization: a }, body })).status).toBe(401);
    }
    expect((await s.handle({ method: 'POST', path: '/', headers: { AUTHORIZATION: AUTH }, body })).status).toBe(200);
  });

  it('wallet path is URL-decoded', async () => {
    expectJson(await post(server, '{"id":1,"method":"ctx"}', '/wallet/my%20wallet%2Fx'), 200, {
      result: { walletPath: 'my wallet/x' },
      error: null,
      id: 1,
    });
    expectJson(await post(server, '{"id":1,"method":"ctx"}', '/wallet/'), 200, { result: { walletPath: '' }, error: null, id: 1 });
    expectJson(await post(server, '{"id":1,"method":"ctx"}'), 200, { result: { walletPath: null }, error: null, id: 1 });
    expect(urlDecode('a%zz%4')).toBe('a%zz%4');
    expect(urlDecode('%C3%A9+')).toBe('é+');
  });
});

describe('RpcServer: envelopes and request errors', () => {
  const server = makeServer();
  const E = (code: number, message: string) => ({ code, message });

  it('legacy reply without id omits it; numeric/null ids are echoed verbatim', async () => {
    expectJson(await post(server, '{"method":"echo","params":["x"]}'), 200, {
      result: ['x', '<undefined>', '<undefined>', '<undefined>'],
      error: null,
    });
    const reply = await post(server, '{"id":1.50,"method":"echo","params":["x"]}');
    expect(reply.body).toBe('{"result":["x","<undefined>","<undefined>","<undefined>"],"error":null,"id":1.50}\n');
    expectJson(await post(server, '{"id":null,"method":"nosuch"}'), 404, { result: null, error: E(-32601, 'Method not found'), id: null });
  });

  it('results keep raw number tokens', async () => {
    const reply = await post(server, '{"jsonrpc":"2.0","id":"r","method":"fail","params":["none"]}');
    expect(reply.body).toBe('{"jsonrpc":"2.0","result":1.00000000,"id":"r"}\n');
  });

  it('JSON-RPC 2.0 notifications: executed, 204, no body (errors too)', async () => {
    for (const body of [
      '{"jsonrpc":"2.0","method":"echo","params":["x"]}',
      '{"jsonrpc":"2.0","method":"nosuch"}',
      '{"jsonrpc":"2.0","method":"echo","params":[1]}',
    ]) {
      const reply = await post(server, body);
      expect(reply.status).toBe(204);
      expect(reply.body).toBe('');
    }
  });

  it('request object errors', async () => {
    expectJson(await post(server, '{"id":1}'), 400, { result: null, error: E(-32600, 'Missing method'), id: 1 });
    expectJson(await post(server, '{"id":1,"method":null}'), 400, { result: null, error: E(-32600, 'Missing method'), id: 1 });
    expectJson(await post(server, '{"id":1,"method":5}'), 400, { result: null, error: E(-32600, 'Method must be a string'), id: 1 });
    expectJson(await post(server, '{"id":1,"method":"echo","params":"x"}'), 400, {
      result: null,
      error: E(-32600, 'Params must be an array or object'),
      id: 1,
    });
    expectJson(await post(server, '{"jsonrpc":"2.0","id":1}'), 400, { jsonrpc: '2.0', error: E(-32600, 'Missing method'), id: 1 });
    // A 2.0 request without id that fails to parse is still answered (JSONErrorReply), without id.
    expectJson(await post(server, '{"jsonrpc":"2.0"}'), 400, { jsonrpc: '2.0', error: E(-32600, 'Missing method') });
  });

  it('jsonrpc version rules', async () => {
    expectJson(await post(server, '{"jsonrpc":"3.0","id":1,"method":"echo","params":["x"]}'), 400, {
      result: null,
      error: E(-32600, 'JSON-RPC version not supported'),
      id: 1,
    });
    expectJson(await post(server, '{"jsonrpc":2,"id":1,"method":"echo","params":["x"]}'), 400, {
      result: null,
      error: E(-32600, 'jsonrpc field must be a string'),
      id: 1,
    });
    expectJson(await post(server, '{"jsonrpc":null,"id":1,"method":"echo","params":["x"]}'), 200, {
      result: ['x', '<undefined>', '<undefined>', '<undefined>'],
      error: null,
      id: 1,
    });
  });

  it('parse errors', async () => {
    expectJson(await post(server, ''), 500, { result: null, error: E(-32700, 'Parse error'), id: null });
    expectJson(await post(server, '{"id":1} x'), 500, { result: null, error: E(-32700, 'Parse error'), id: null });
    expectJson(await post(server, '"hello"'), 500, { result: null, error: E(-32700, 'Top-level object parse error'), id: null });
    expectJson(await post(server, '5'), 500, { result: null, error: E(-32700, 'Top-level object parse error'), id: null });
  });

  it('status codes: legacy by code, 2.0 errors while executing are 200', async () => {
    expectJson(await post(server, '{"id":1,"method":"fail","params":["rpc"]}'), 500, { result: null, error: E(-5, 'Invalid address'), id: 1 });
    expectJson(await post(server, '{"id":1,"method":"fail","params":["plain"]}'), 500, { result: null, error: E(-1, 'something broke'), id: 1 });
    expectJson(await post(server, '{"jsonrpc":"2.0","id":1,"method":"fail","params":["rpc"]}'), 200, {
      jsonrpc: '2.0',
      error: E(-5, 'Invalid address'),
      id: 1,
    });
  });

  it('argument helpers give Core messages', async () => {
    const call = async (kind: string) => JSON.parse((await post(server, `{"id":1,"method":"fail","params":["${kind}"]}`)).body).error;
    expect(await call('int')).toEqual(E(-1, 'JSON integer out of range'));
    expect(await call('type')).toEqual(E(-3, 'JSON value of type string is not of expected type number'));
    expect(await call('amount')).toEqual(E(-3, 'Amount is not a number or string'));
    expect(await call('hash')).toEqual(E(-8, "blockhash must be of length 64 (not 3, for 'foo')"));
  });
});

describe('RpcServer: arguments', () => {
  const server = makeServer();
  const E = (code: number, message: string) => ({ code, message });
  const errorOf = async (body: string) => JSON.parse((await post(server, body)).body).error as unknown;

  it('argument count → -1 with the help text', async () => {
    expect(await errorOf('{"id":1,"method":"echo","params":[]}')).toEqual(E(-1, echo.help));
    expect(await errorOf('{"id":1,"method":"echo","params":["a",1,true,1,5]}')).toEqual(E(-1, echo.help));
    expect(await errorOf('{"id":1,"method":"createrawtransaction","params":[[]]}')).toEqual(E(-1, HELP_CREATERAWTRANSACTION));
    expect(HELP_GETADDRESSINFO.startsWith('getaddressinfo "address"\n\n')).toBe(true);
  });

  it('declared types: all mismatches in one -3 message; amount not checked; optional null = omitted', async () => {
    expect(await errorOf('{"id":1,"method":"echo","params":[1,"x",1,true]}')).toEqual(
      E(
        -3,
        'Wrong type passed:\n{\n    "Position 1 (a)": "JSON value of type number is not of expected type string",\n' +
          '    "Position 2 (b)": "JSON value of type string is not of expected type number",\n' +
          '    "Position 3 (c|alias_c)": "JSON value of type number is not of expected type bool"\n}',
      ),
    );
    expect(await errorOf('{"id":1,"method":"echo","params":[null]}')).toEqual(
      E(-3, 'Wrong type passed:\n{\n    "Position 1 (a)": "JSON value of type null is not of expected type string"\n}'),
    );
    const ok = JSON.parse((await post(server, '{"id":1,"method":"echo","params":["x",null,null,true]}')).body);
    expect(ok.result).toEqual(['x', '<undefined>', '<undefined>', true]);
    expect(await errorOf('{"id":1,"method":"createrawtransaction","params":[{},[],"0"]}')).toEqual(
      E(
        -3,
        'Wrong type passed:\n{\n    "Position 1 (inputs)": "JSON value of type object is not of expected type array",\n' +
          '    "Position 3 (locktime)": "JSON value of type string is not of expected type number"\n}',
      ),
    );
    // outputs is skip_type_check: null passes the framework and fails in ConstructTransaction.
    expect(await errorOf('{"id":1,"method":"createrawtransaction","params":[[],null]}')).toEqual(
      E(-8, 'Invalid parameter, output argument must be non-null'),
    );
  });

  it('named parameters', async () => {
    const result = async (params: string) => JSON.parse((await post(server, `{"id":1,"method":"echo","params":${params}}`)).body) as {
      result: unknown;
      error: unknown;
    };
    expect((await result('{"a":"x","c":true}')).result).toEqual(['x', '<undefined>', true, '<undefined>']);
    expect((await result('{"alias_c":false,"a":"x"}')).result).toEqual(['x', '<undefined>', false, '<undefined>']);
    expect((await result('{"a":"x","zzz":1}')).error).toEqual(E(-8, 'Unknown named parameter zzz'));
    expect((await result('{"a":"x","a":"y"}')).error).toEqual(E(-8, 'Parameter a specified multiple times'));
    // Missing required named arg: the hole is null → type error; none given → count error.
    expect((await result('{"b":1}')).error).toEqual(
      E(-3, 'Wrong type passed:\n{\n    "Position 1 (a)": "JSON value of type null is not of expected type string"\n}'),
    );
    expect((await result('{}')).error).toEqual(E(-1, echo.help));
    // `args` gives leading positional arguments; named ones follow.
    expect((await result('{"args":["x",2],"c":true}')).result).toEqual(['x', 2, true, '<undefined>']);
    expect((await result('{"args":["x",2],"b":3}')).error).toEqual(
      E(-8, 'Parameter b specified twice both as positional and named argument'),
    );
    expect((await result('{"args":"nope","a":"x"}')).result).toEqual(['x', '<undefined>', '<undefined>', '<undefined>']);
    // createrawtransaction with named arguments
    const crt = JSON.parse(
      (await post(server, '{"id":1,"method":"createrawtransaction","params":{"outputs":[],"inputs":[],"version":3}}')).body,
    );
    expect(crt.result).toBe('03000000000000000000');
  });
});

describe('RpcServer: batches', () => {
  const server = makeServer();
  const E = (code: number, message: string) => ({ code, message });

  it('each element by its own version; notifications produce no element', async () => {
    const reply = await post(
      server,
      '[{"jsonrpc":"1.0","id":"a","method":"nosuch"},{"jsonrpc":"2.0","id":"b","method":"echo","params":["x"]},' +
        '{"jsonrpc":"2.0","method":"echo","params":["y"]},{"id":"d","method":"fail","params":["rpc"]},7]',
    );
    expectJson(reply, 200, [
      { result: null, error: E(-32601, 'Method not found'), id: 'a' },
      { jsonrpc: '2.0', result: ['x', '<undefined>', '<undefined>', '<undefined>'], id: 'b' },
      { result: null, error: E(-5, 'Invalid address'), id: 'd' },
      // Core reuses the request object: a non-object element carries the previous element's id.
      { result: null, error: E(-32600, 'Invalid Request object'), id: 'd' },
    ]);
  });

  it('empty batch → 200 []; all notifications → 204', async () => {
    expectJson(await post(server, '[]'), 200, []);
    const reply = await post(server, '[{"jsonrpc":"2.0","method":"echo","params":["x"]},{"jsonrpc":"2.0","method":"nosuch"}]');
    expect(reply.status).toBe(204);
    expect(reply.body).toBe('');
  });

  it('request-object errors stay inside their element', async () => {
    expectJson(await post(server, '[5,{"id":2},{"jsonrpc":"9","id":3,"method":"echo"}]'), 200, [
      { result: null, error: E(-32600, 'Invalid Request object'), id: null },
      { result: null, error: E(-32600, 'Missing method'), id: 2 },
      { result: null, error: E(-32600, 'JSON-RPC version not supported'), id: 3 },
    ]);
  });
});

describe('RpcServer: warm-up', () => {
  it('answers -28 to every call while set', async () => {
    const server = makeServer();
    server.setWarmup('Loading block index…');
    expectJson(await post(server, '{"id":1,"method":"echo","params":["x"]}'), 500, {
      result: null,
      error: { code: -28, message: 'Loading block index…' },
      id: 1,
    });
    expectJson(await post(server, '{"jsonrpc":"2.0","id":1,"method":"nosuch"}'), 200, {
      jsonrpc: '2.0',
      error: { code: -28, message: 'Loading block index…' },
      id: 1,
    });
    expectJson(await post(server, '[{"id":1,"method":"echo","params":[]}]'), 200, [
      { result: null, error: { code: -28, message: 'Loading block index…' }, id: 1 },
    ]);
    server.setWarmup(null);
    expect((await post(server, '{"id":1,"method":"echo","params":["x"]}')).status).toBe(200);
  });
});
