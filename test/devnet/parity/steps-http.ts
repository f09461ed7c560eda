/**
 * The transport and envelope phase, strict, on both fresh nodes: every stateless request recorded
 * for this generation (../shared/fixtures/core: createrawtransaction, decodepsbt, the HTTP cases) as
 * recorded, then HTTP methods and paths, credentials, JSON-RPC 1.0 and 2.0 envelopes, notifications,
 * batches, named and positional parameters, type errors, and wallet selection with no wallet loaded.
 */
import type { CoreVersion } from '../../../devnet/core-version';
import { coreRecordings, type CoreRecording } from '../../fixtures';
import { strict, type Step, type Vars } from './run';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A raw HTTP request, the same bytes to both nodes (credentials aside). */
function raw(name: string, body: string, opts: { path?: string; httpMethod?: string; auth?: (v: Vars) => string | null; method?: string } = {}): Step {
  return {
    name,
    method: opts.method ?? '',
    strict: true,
    request: (v) => ({ path: opts.path ?? '/', body, httpMethod: opts.httpMethod, auth: opts.auth ? opts.auth(v) : undefined }),
  };
}

const rpc = (method: string, params: unknown, extra: Record<string, unknown> = {}): string => JSON.stringify({ jsonrpc: '1.0', id: 'h', method, params, ...extra });

/** The recorded requests whose replies depend on no wallet or chain state. */
function recorded(generation: CoreVersion): Step[] {
  const stateless = (r: CoreRecording): boolean =>
    r.group === 'createrawtransaction' || r.group === 'decodepsbt' || (r.group === 'http' && !/wallet|batch|named params|numeric id/.test(r.name));
  return coreRecordings(generation).filter(stateless).map((r) => {
    const auth = r.name === 'no credentials' ? () => null : r.name === 'wrong password' ? (v: Vars) => basic(v.user, 'wrong') : undefined;
    const method = r.group === 'http' ? '' : r.group;
    return raw(`recorded ${r.group}: ${r.name}`, r.request.body, { path: r.request.path, httpMethod: r.request.method, auth, method });
  });
}

export function httpSteps(generation: CoreVersion): Step[] {
  const s: Step[] = recorded(generation);
  const ok = rpc('getblockcount', []);
  // HTTP methods, paths, credentials.
  for (const m of ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']) s.push(raw(`HTTP ${m}`, ok, { httpMethod: m }));
  for (const path of ['/foo', '/wallet', '/rest/chaininfo.json', '/?x=1', '//']) s.push(raw(`path ${path}`, ok, { path }));
  s.push(raw('no credentials on an unknown path', ok, { path: '/foo', auth: () => null }));
  s.push(raw('credentials of another user', ok, { auth: () => basic('nobody', 'x') }));
  s.push(raw('a Bearer token', ok, { auth: () => 'Bearer abc' }));
  s.push(raw('Basic without a colon', ok, { auth: () => `Basic ${Buffer.from('nocolon').toString('base64')}` }));
  // Envelopes.
  s.push(raw('JSON-RPC 2.0 result', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getblockcount' })));
  s.push(raw('JSON-RPC 2.0 error', JSON.stringify({ jsonrpc: '2.0', id: 'e', method: 'getblockhash', params: [9] })));
  s.push(raw('JSON-RPC 2.0 notification', JSON.stringify({ jsonrpc: '2.0', method: 'getblockcount' })));
  s.push(raw('JSON-RPC 2.0 notification that fails', JSON.stringify({ jsonrpc: '2.0', method: 'nosuchmethod' })));
  s.push(raw('JSON-RPC 1.0 without id', JSON.stringify({ method: 'getblockcount', params: [] })));
  for (const id of [null, 0, -1.5, [1], { a: 1 }, 'x'.repeat(40)]) s.push(raw(`id ${JSON.stringify(id).slice(0, 20)}`, JSON.stringify({ id, method: 'getblockcount' })));
  s.push(raw('jsonrpc 3.0', JSON.stringify({ jsonrpc: '3.0', id: 1, method: 'getblockcount' })));
  s.push(raw('jsonrpc as a number', JSON.stringify({ jsonrpc: 2, id: 1, method: 'getblockcount' })));
  s.push(raw('no method', JSON.stringify({ id: 1, params: [] })));
  s.push(raw('method as a number', JSON.stringify({ id: 1, method: 5 })));
  s.push(raw('params as a string', JSON.stringify({ id: 1, method: 'getblockcount', params: 'x' })));
  s.push(raw('params null', JSON.stringify({ id: 1, method: 'getblockcount', params: null })));
  s.push(raw('method in another case', rpc('GetBlockCount', [])));
  s.push(raw('unknown method, 2.0', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'nosuchmethod' })));
  s.push(raw('top-level number', '5'));
  s.push(raw('top-level string', '"getblockcount"'));
  s.push(raw('empty body', ''));
  s.push(raw('trailing garbage', `${ok} x`));
  s.push(raw('two objects', `${ok}${ok}`));
  s.push(raw('not UTF-8 JSON', '{"id":1,"method":"getblockcount","params":["\udcff"]}'));
  // Batches.
  s.push(raw('empty batch', '[]'));
  s.push(raw('batch: result, error, notification, not an object', `[${ok},${rpc('nosuchmethod', [])},${JSON.stringify({ jsonrpc: '2.0', method: 'getblockcount' })},5,${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'getblockhash', params: [0] })}]`));
  s.push(raw('batch of notifications', `[${JSON.stringify({ jsonrpc: '2.0', method: 'getblockcount' })}]`));
  s.push(raw('nested batch', `[[${ok}]]`));
  // Named and positional parameters, and the argument checks.
  s.push(raw('named parameter', rpc('getblockhash', { height: 0 })));
  s.push(raw('named: an alias (verbose for verbosity)', rpc('getblock', { blockhash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206', verbose: 0 })));
  s.push(raw('named: unknown parameter', rpc('getblockhash', { height: 0, foo: 1 })));
  s.push(raw('named: twice', '{"id":1,"method":"getblockhash","params":{"height":0,"height":1}}'));
  s.push(raw('named: args with a named one after', rpc('getblock', { args: ['0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206'], verbosity: 0 })));
  s.push(raw('named: args and the same one named', rpc('getblockhash', { args: [0], height: 0 })));
  s.push(raw('named: empty object', rpc('getblockhash', {})));
  s.push(raw('several wrong types at once', rpc('getblockheader', [1, 'x']), { method: 'getblockheader' }));
  s.push(raw('too many arguments', rpc('getblockhash', [0, 1, 2])));
  s.push(raw('null for a required argument', rpc('getblockhash', [null])));
  s.push(raw('null for an optional argument', rpc('getblock', ['0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206', null])));
  // Wallets: none loaded yet.
  s.push(raw('wallet method, no wallet loaded', rpc('getwalletinfo', []), { method: 'getwalletinfo' }));
  s.push(raw('wallet method on an unknown wallet path', rpc('getwalletinfo', []), { path: '/wallet/nope', method: 'getwalletinfo' }));
  s.push(raw('wallet path, percent-encoded name', rpc('getwalletinfo', []), { path: '/wallet/a%20b%2Fc' }));
  s.push(raw('node method on a wallet path', ok, { path: '/wallet/nope' }));
  s.push(raw('empty wallet name in the path', rpc('getwalletinfo', []), { path: '/wallet/' }));
  s.push(strict('listwallets, none loaded', 'listwallets'));
  s.push(strict('getnewaddress, no wallet loaded', 'getnewaddress'));
  s.push(strict('unloadwallet, no wallet loaded', 'unloadwallet'));
  s.push(strict('loadwallet of a wallet that does not exist', 'loadwallet', ['nope']));
  return s;
}
