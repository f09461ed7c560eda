/**
 * rpcErrorFromReply and friends, driven by the real Bitcoin Core v30 recordings (group "http" and
 * every recorded error reply) plus hand-written proxy pages, broken JSON and garbage.
 */
import { describe, expect, it } from 'vitest';
import { coreGroup, coreRecordings, type CoreRecording } from '../fixtures';
import { interpretBatchReply, interpretReply, rpcErrorFromCore, rpcErrorFromReply, snippet } from '../../electron/main/rpc/errors';

const BASE = 'http://127.0.0.1:18443';

function rec(name: string): CoreRecording {
  const r = coreGroup('http').find((x) => x.name === name);
  if (!r) throw new Error(`no recording "${name}" in group http`);
  return r;
}

/** The reply body as the node sent it (recordings store JSON bodies parsed). */
function bodyText(r: CoreRecording): string {
  return typeof r.response.body === 'string' ? r.response.body : `${JSON.stringify(r.response.body)}\n`;
}

function requestOf(r: CoreRecording): { id: unknown; method: string } {
  const b = JSON.parse(r.request.body) as { id?: unknown; method?: string };
  return { id: b.id, method: b.method ?? '' };
}

function replay(r: CoreRecording, method?: string): ReturnType<typeof rpcErrorFromReply> {
  const req = r.request.body.trim().startsWith('{') ? safeRequest(r) : { id: undefined, method: '' };
  return rpcErrorFromReply(r.response.status, bodyText(r), method ?? req.method, BASE + r.request.path, {
    contentType: r.response.contentType,
    id: req.id as string | number | null | undefined,
  });
}

function safeRequest(r: CoreRecording): { id: unknown; method: string } {
  try {
    return requestOf(r);
  } catch {
    return { id: undefined, method: '' };
  }
}

describe('rpcErrorFromReply on the recorded "http" group', () => {
  it('401 with an empty body (wrong password and no credentials) is rpc.unauthorized with the remedy', () => {
    for (const name of ['wrong password', 'no credentials']) {
      const r = rec(name);
      expect(r.response.status).toBe(401);
      expect(r.response.body).toBe('');
      const e = replay(r);
      expect(e?.code).toBe('rpc.unauthorized');
      expect(e?.message).toBe(
        'The node rejected the RPC user name or password (HTTP 401). Check rpcuser/rpcpassword or rpcauth in bitcoin.conf — or, with cookie auth, that the cookie file belongs to the running node.',
      );
      expect(e?.detail).toMatchObject({ status: 401, host: '127.0.0.1:18443' });
    }
  });

  it('-32601 is rpc.method_not_found both for JSON-RPC 1.0 (HTTP 404) and 2.0 (HTTP 200)', () => {
    const legacy = rec('method not found 1.0');
    const v2 = rec('method not found 2.0');
    expect([legacy.response.status, v2.response.status]).toEqual([404, 200]);
    for (const r of [legacy, v2]) {
      const e = replay(r);
      expect(e?.code).toBe('rpc.method_not_found');
      expect(e?.message).toBe('The node does not know the method "nosuchmethod". It may be too old or the method may be disabled.');
      expect(e?.detail).toMatchObject({ method: 'nosuchmethod', coreCode: -32601 });
    }
  });

  it('-19 (several wallets, path /) is rpc.wallet_not_specified with Core\'s message and the remedy', () => {
    const e = replay(rec('wallet method without wallet (two loaded)'));
    expect(e?.code).toBe('rpc.wallet_not_specified');
    expect(e?.message).toBe(
      'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path. Several wallets are loaded: choose one in the profile.',
    );
    expect(e?.detail).toMatchObject({ coreCode: -19, method: 'getaddressinfo' });
  });

  it('-18 (unknown wallet) is rpc.wallet_not_found naming the wallet of the URL', () => {
    const e = replay(rec('unknown wallet'));
    expect(e?.code).toBe('rpc.wallet_not_found');
    expect(e?.message).toBe(
      'Requested wallet does not exist or is not loaded. Load it with `bitcoin-cli loadwallet nope` or pick one of the loaded wallets.',
    );
    expect(e?.detail).toMatchObject({ coreCode: -18, wallet: 'nope', method: 'getaddressinfo' });
  });

  it('-32700 (invalid JSON sent, "id":null in the reply) is rpc.error with Core\'s text verbatim', () => {
    const r = rec('invalid json');
    const e = rpcErrorFromReply(r.response.status, bodyText(r), 'getblockcount', BASE + r.request.path, { contentType: r.response.contentType, id: 'spyglass-1' });
    expect(e?.code).toBe('rpc.error');
    expect(e?.message).toBe('Bitcoin Core error -32700: Parse error');
    expect(e?.detail).toMatchObject({ coreCode: -32700, method: 'getblockcount' });
  });

  it('a success reply (named params, numeric id without jsonrpc) is no error and gives the result', () => {
    expect(replay(rec('named params'))).toBeNull();
    const numeric = rec('numeric id and missing jsonrpc');
    expect(replay(numeric)).toBeNull();
    const out = interpretReply(numeric.response.status, bodyText(numeric), 'getblockcount', BASE, { contentType: numeric.response.contentType, id: 7 });
    expect(out).toEqual({ ok: true, value: 104 });
  });

  it('405 in plain words (GET) is rpc.http with the status and the node\'s text', () => {
    const r = rec('GET request');
    const e = rpcErrorFromReply(r.response.status, bodyText(r), 'getblockcount', BASE, { contentType: r.response.contentType });
    expect(e?.code).toBe('rpc.http');
    expect(e?.message).toContain('HTTP 405 ("JSONRPC server handles only POST requests")');
    expect(e?.detail).toMatchObject({ status: 405 });
  });

  it('the recorded batch reply: matched by id (not position), 1.0 and 2.0 envelopes, per-entry errors', () => {
    const r = rec('batch');
    const calls = [
      { id: 'c', method: 'listreceivedbyaddress' },
      { id: 'a', method: 'getaddressinfo' },
      { id: 'b', method: 'nosuchmethod' },
      { id: 'z', method: 'getblockcount' },
    ];
    const out = interpretBatchReply(r.response.status, bodyText(r), calls, BASE + r.request.path, { contentType: r.response.contentType });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const body = r.response.body as Array<{ result: unknown }>;
    expect(out.entries.get('a')).toEqual({ ok: true, value: body[0]!.result });
    expect(out.entries.get('c')).toEqual({ ok: true, value: body[2]!.result });
    const b = out.entries.get('b');
    expect(b?.ok === false && b.error.code).toBe('rpc.method_not_found');
    const z = out.entries.get('z');
    expect(z?.ok === false && z.error.code).toBe('rpc.bad_reply');
    expect(z?.ok === false && z.error.message).toContain('"getblockcount"');
  });

  it('a batch reply that is one error object (e.g. a parse error) or a 401 is an error for the whole request', () => {
    const parse = rec('invalid json');
    const out = interpretBatchReply(parse.response.status, bodyText(parse), [{ id: 'x', method: 'm' }], BASE, { contentType: parse.response.contentType });
    expect(out.ok === false && out.error.code).toBe('rpc.error');
    const unauth = rec('wrong password');
    const out2 = interpretBatchReply(401, bodyText(unauth), [{ id: 'x', method: 'm' }], BASE, { contentType: unauth.response.contentType });
    expect(out2.ok === false && out2.error.code).toBe('rpc.unauthorized');
    const single = interpretBatchReply(200, '{"result":1,"error":null,"id":"x"}', [{ id: 'x', method: 'm' }], BASE, { contentType: 'application/json' });
    expect(single.ok === false && single.error.code).toBe('rpc.bad_reply');
  });
});

describe('every recorded Core error reply', () => {
  const errors = coreRecordings().filter((r) => {
    const b = r.response.body as { error?: unknown } | null;
    return typeof b === 'object' && b !== null && !Array.isArray(b) && b.error;
  });

  it('maps to the right code and keeps Core\'s message verbatim', () => {
    expect(errors.length).toBeGreaterThan(20);
    for (const r of errors) {
      const core = (r.response.body as { error: { code: number; message: string } }).error;
      const e = replay(r);
      expect(e, r.name).not.toBeNull();
      const expected =
        core.code === -32601 ? 'rpc.method_not_found' : core.code === -18 ? 'rpc.wallet_not_found' : core.code === -19 ? 'rpc.wallet_not_specified' : core.code === -28 ? 'rpc.warming_up' : 'rpc.error';
      expect(e?.code, r.name).toBe(expected);
      if (expected === 'rpc.error') {
        expect(e?.message, r.name).toBe(`Bitcoin Core error ${core.code}: ${core.message}`);
        expect(e?.detail, r.name).toMatchObject({ coreCode: core.code });
      } else if (expected !== 'rpc.method_not_found') {
        expect(e?.message, r.name).toContain(core.message);
      }
    }
  });

  it('and every recorded success reply is no error and yields its result', () => {
    const ok = coreRecordings().filter((r) => {
      const b = r.response.body as { error?: unknown; result?: unknown } | null;
      return typeof b === 'object' && b !== null && !Array.isArray(b) && !b.error && 'result' in b;
    });
    expect(ok.length).toBeGreaterThan(20);
    for (const r of ok) {
      const req = safeRequest(r);
      const out = interpretReply(r.response.status, bodyText(r), req.method, BASE + r.request.path, { contentType: r.response.contentType, id: req.id as string });
      expect(out, r.name).toEqual({ ok: true, value: (r.response.body as { result: unknown }).result });
    }
  });
});

describe('replies that are not JSON-RPC (hand-written)', () => {
  const NGINX =
    '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

  it('an HTML proxy page is rpc.bad_reply with its visible text, not its markup', () => {
    const e = rpcErrorFromReply(502, NGINX, 'getblockchaininfo', BASE, { contentType: 'text/html' });
    expect(e?.code).toBe('rpc.bad_reply');
    expect(e?.message).toBe(
      'The node\'s reply is not JSON-RPC (HTTP 502, text/html: "502 Bad Gateway 502 Bad Gateway nginx"). A proxy or another service may be answering at this URL.',
    );
    expect(e?.message).not.toContain('<');
    expect(e?.detail).toMatchObject({ status: 502, contentType: 'text/html', method: 'getblockchaininfo' });
  });

  it('a long page is cut to 80 visible characters with an ellipsis, never dumped whole', () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const page = `<!DOCTYPE html><html><head><style>body{color:red}</style><script>var secret = 1;</script></head><body><p>${words}</p></body></html>`;
    const e = rpcErrorFromReply(200, page, 'getblockcount', BASE, { contentType: 'text/html; charset=utf-8' });
    expect(e?.code).toBe('rpc.bad_reply');
    const quoted = /"(.*)"/.exec(e!.message)![1]!;
    expect(quoted.endsWith('…')).toBe(true);
    expect(Array.from(quoted).length).toBe(81);
    expect(e?.message).not.toContain('secret');
    expect(e?.message).not.toContain('color:red');
    expect(e!.message.length).toBeLessThan(300);
  });

  it('truncated JSON is rpc.bad_reply saying it is cut off', () => {
    const full = '{"jsonrpc":"2.0","result":{"chain":"regtest","blocks":200,"headers":200,"bestblockhash":"00"},"id":"spyglass-1"}\n';
    const e = rpcErrorFromReply(200, full.slice(0, 40), 'getblockchaininfo', BASE, { contentType: 'application/json' });
    expect(e?.code).toBe('rpc.bad_reply');
    expect(e?.message).toContain('HTTP 200, application/json: "{"jsonrpc":"2.0","result":{"chain":"regt")');
    expect(e?.message).toContain('cut off or malformed');
  });

  it('garbage with control characters is rpc.bad_reply with the characters blanked', () => {
    const e = rpcErrorFromReply(200, '{"data": [1, 2, "\u0000", {"x": }', 'getblockcount', BASE, { contentType: 'application/json' });
    expect(e?.code).toBe('rpc.bad_reply');
    expect([...e!.message].some((ch) => ch.charCodeAt(0) < 0x20)).toBe(false);
    const bin = rpcErrorFromReply(200, '\u0001\u0002\u00ff garbage \u0007', 'getblockcount', BASE, { contentType: 'application/octet-stream' });
    expect(bin?.code).toBe('rpc.bad_reply');
    expect(bin?.message).toContain('application/octet-stream: "ÿ garbage"');
  });

  it('JSON that is not JSON-RPC (another service) is rpc.bad_reply', () => {
    const e = rpcErrorFromReply(200, '{"data":{"block":1}}', 'getblockcount', BASE, { contentType: 'application/json' });
    expect(e?.code).toBe('rpc.bad_reply');
    expect(e?.message).toContain('JSON but not a JSON-RPC reply');
    const idx = rpcErrorFromReply(500, '{"error_code": 1, "message": "internal server error", "details": ""}', 'getblockcount', BASE, { contentType: 'application/json' });
    expect(idx?.code).toBe('rpc.bad_reply');
    const arr = rpcErrorFromReply(200, '[]', 'getblockcount', BASE, { contentType: 'application/json' });
    expect(arr?.code).toBe('rpc.bad_reply');
    const malformedError = rpcErrorFromReply(200, '{"result":null,"error":"boom","id":"x"}', 'getblockcount', BASE, { contentType: 'application/json' });
    expect(malformedError?.code).toBe('rpc.bad_reply');
  });

  it('an empty 200 or 204 is rpc.bad_reply', () => {
    expect(rpcErrorFromReply(200, '', 'getblockcount', BASE, { contentType: 'application/json' })?.message).toContain('HTTP 200, application/json, empty body');
    expect(rpcErrorFromReply(204, '', 'getblockcount', BASE)?.message).toContain('HTTP 204, no content type, empty body');
  });

  it('a reply with another id is rpc.bad_reply; an error with "id":null is still Core\'s error', () => {
    const other = rpcErrorFromReply(200, '{"jsonrpc":"2.0","result":5,"id":"spyglass-9"}', 'getblockcount', BASE, { contentType: 'application/json', id: 'spyglass-1' });
    expect(other?.code).toBe('rpc.bad_reply');
    expect(other?.message).toContain('id "spyglass-9" instead of "spyglass-1"');
    const missing = rpcErrorFromReply(200, '{"jsonrpc":"2.0","result":5}', 'getblockcount', BASE, { contentType: 'application/json', id: 'spyglass-1' });
    expect(missing?.code).toBe('rpc.bad_reply');
    const wrongErr = rpcErrorFromReply(200, '{"jsonrpc":"2.0","error":{"code":-8,"message":"x"},"id":"spyglass-2"}', 'm', BASE, { id: 'spyglass-1' });
    expect(wrongErr?.code).toBe('rpc.bad_reply');
    const nullId = rpcErrorFromReply(500, '{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}', 'm', BASE, { id: 'spyglass-1' });
    expect(nullId?.code).toBe('rpc.error');
  });

  it('5xx and other statuses in plain words are rpc.http with the status and a remedy', () => {
    const queue = rpcErrorFromReply(503, 'Work queue depth exceeded', 'getblockcount', BASE, { contentType: 'text/plain' });
    expect(queue?.code).toBe('rpc.http');
    expect(queue?.message).toBe(
      'The node at 127.0.0.1:18443 answered HTTP 503 ("Work queue depth exceeded") instead of a JSON-RPC reply. Too many requests are waiting at the node: try again shortly, or raise rpcworkqueue in bitcoin.conf.',
    );
    expect(queue?.detail).toMatchObject({ status: 503, method: 'getblockcount' });
    expect(rpcErrorFromReply(500, 'Internal Server Error', 'm', BASE, { contentType: 'text/plain' })?.code).toBe('rpc.http');
    expect(rpcErrorFromReply(502, '502: Bad Gateway', 'm', BASE, { contentType: 'text/plain; charset=utf-8' })?.message).toContain('A proxy in front of the node');
    const notFound = rpcErrorFromReply(404, '', 'm', `${BASE}/rpc`, { contentType: 'text/html; charset=ISO-8859-1' });
    expect(notFound?.code).toBe('rpc.http');
    expect(notFound?.message).toContain('HTTP 404 instead of a JSON-RPC reply');
  });

  it('403 is rpc.forbidden (body never parsed)', () => {
    const e = rpcErrorFromReply(403, '', 'getblockcount', BASE, { contentType: 'text/html; charset=ISO-8859-1' });
    expect(e?.code).toBe('rpc.forbidden');
    expect(e?.message).toBe('The node refused this computer (HTTP 403): its address is not allowed by rpcallowip in bitcoin.conf.');
    expect(rpcErrorFromReply(403, '{"result":1,"error":null,"id":"x"}', 'm', BASE)?.code).toBe('rpc.forbidden');
  });
});

describe('rpcErrorFromCore', () => {
  it('-28 is rpc.warming_up with Core\'s message', () => {
    const e = rpcErrorFromCore(-28, 'Loading block index…', 'getblockchaininfo', BASE);
    expect(e.code).toBe('rpc.warming_up');
    expect(e.message).toContain('"Loading block index…"');
    expect(e.detail).toMatchObject({ coreCode: -28, coreMessage: 'Loading block index…' });
  });

  it('-18 without a wallet in the URL keeps the placeholder; names are URL-decoded', () => {
    const none = rpcErrorFromCore(-18, 'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)', 'getaddressinfo', `${BASE}/`);
    expect(none.message).toBe(
      'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created). Load it with `bitcoin-cli loadwallet <name>` or pick one of the loaded wallets.',
    );
    expect(none.detail).toMatchObject({ wallet: null });
    const named = rpcErrorFromCore(-18, 'Requested wallet does not exist or is not loaded', 'm', `${BASE}/wallet/my%20savings`);
    expect(named.message).toContain('`bitcoin-cli loadwallet my savings`');
  });

  it('any other code is rpc.error with code and message exactly as Core wrote them', () => {
    const e = rpcErrorFromCore(-8, 'Block height out of range', 'getblockhash', BASE);
    expect(e.code).toBe('rpc.error');
    expect(e.message).toBe('Bitcoin Core error -8: Block height out of range');
    expect(e.detail).toEqual({ coreCode: -8, method: 'getblockhash', coreMessage: 'Block height out of range', host: '127.0.0.1:18443' });
  });
});

describe('snippet', () => {
  it('keeps visible text only and decodes the common entities', () => {
    expect(snippet('<p>a &amp; b &lt;c&gt; &quot;d&quot;</p><!-- hidden -->', true)).toBe('a & b <c> "d"');
    expect(snippet('  many\n\n  spaces\t', false)).toBe('many spaces');
  });
});
