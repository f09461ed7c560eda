/**
 * Robustness: thousands of random and mutated requests never crash either server, and each gets a
 * reply in the real server's own error vocabulary (Core's JSON-RPC envelope / the index's error body).
 * Deterministic (seeded), bounded in count, loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { coreRecordings } from '../fixtures';
import { Rng } from '../../devnet/scenarios';

let devnet: Devnet;
let auth: string;

beforeAll(async () => {
  devnet = await startDevnet({ scenario: 'empty', rpcUser: 'u', rpcPassword: 'p' });
  auth = `Basic ${Buffer.from('u:p').toString('base64')}`;
  const miner = devnet.node.createWallet('miner');
  devnet.node.mine(5, devnet.node.scriptFor(miner.nextAddress('bech32', false)));
}, 60_000);
afterAll(async () => {
  await devnet?.close();
});

const TOKENS = ['null', 'true', '[]', '{}', '"x"', '-1', '1e999', '0.000000001', '"\\u0000"', '{"a":', ']', '"bcrt1q"', '4294967296', '""', '[[]]'];

function mutate(rng: Rng, s: string): string {
  const kind = rng.int(0, 6);
  const pos = rng.int(0, Math.max(0, s.length - 1));
  switch (kind) {
    case 0: return s.slice(0, pos); // truncation
    case 1: return s.slice(0, pos) + String.fromCharCode(rng.int(0, 255)) + s.slice(pos + 1); // byte flip
    case 2: return s.slice(0, pos) + rng.pick(TOKENS) + s.slice(pos); // token insertion
    case 3: return s.replace(/"params":\[/, `"params":[${rng.pick(TOKENS)},`); // extra/odd argument
    case 4: return s.replace(/"method":"[a-z]+"/, `"method":${rng.pick(['"getblockcount"', '1', 'null', '"getaddressinfo"', '"decodepsbt"', '"listreceivedbyaddress"', '"createwallet"', '"sendrawtransaction"', '"getrawtransaction"'])}`);
    case 5: return `[${s},${s.slice(0, pos)}]`; // batch with a broken element
    default: return s.replace(/"(jsonrpc|id)":"[^"]*"/, `"$1":${rng.pick(TOKENS)}`);
  }
}

async function pool<T>(items: T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) await fn(items[i++]!);
  }));
}

describe('robustness under random and mutated input', () => {
  it('the node answers every mutated JSON-RPC body with a Core-shaped reply', async () => {
    const rng = new Rng('rpc-fuzz');
    const seeds = coreRecordings().filter((r) => r.request.method === 'POST').map((r) => r.request.body);
    const bodies = Array.from({ length: 2500 }, () => {
      let b = rng.pick(seeds);
      for (let k = rng.int(1, 3); k > 0; k--) b = mutate(rng, b);
      return b;
    });
    const statuses = new Map<number, number>();
    await pool(bodies, 8, async (body) => {
      const path = rng.pick(['/', '/wallet/miner', '/wallet/nope', '/wallet/%zz']);
      const res = await fetch(devnet.rpcUrl + path, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'text/plain' }, body });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect([200, 204, 400, 404, 500], body).toContain(res.status);
      if (res.status === 204) return;
      expect(res.headers.get('content-type'), body).toBe('application/json');
      const reply = JSON.parse(text) as unknown;
      const check = (r: unknown): void => {
        expect(typeof r).toBe('object');
        const o = r as Record<string, unknown>;
        if (o.error !== null && o.error !== undefined) {
          const e = o.error as Record<string, unknown>;
          expect(Object.keys(e), body).toEqual(['code', 'message']);
          expect(typeof e.code).toBe('number');
          expect(typeof e.message).toBe('string');
          expect(e.message, body).not.toMatch(/devnet internal|TypeError|undefined is not|Cannot read/);
        } else {
          expect('result' in o, body).toBe(true);
        }
      };
      if (Array.isArray(reply)) reply.forEach(check);
      else check(reply);
    });
    expect(statuses.get(200)).toBeGreaterThan(20); // some mutations stay valid requests
    expect((statuses.get(500) ?? 0) + (statuses.get(400) ?? 0)).toBeGreaterThan(100);
    expect(await fetch(devnet.rpcUrl, { method: 'POST', headers: { Authorization: auth }, body: '{"id":1,"method":"getblockcount"}' }).then((r) => r.json())).toEqual({ result: 5, error: null, id: 1 });
  });

  it('the index answers every random path with its own envelope or error body', async () => {
    const rng = new Rng('index-fuzz');
    const tip = devnet.node.chain.tip();
    const pieces = ['block', 'transaction', 'address/utxo', 'blocks', 'address', ''];
    const args = ['0', '5', '-1', '99999999999', 'last', tip.hash, tip.hash.slice(1), tip.txs[0]!.txid, `${tip.height}:0`, '1:999', 'zz', '%00', '..', 'bcrt1qxyz', 'mxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', ' 1', '1e3', '0x1f', 'ü'];
    const paths = Array.from({ length: 2000 }, () => {
      let p = `/v1/blockchain/${rng.pick(pieces)}/${rng.pick(args)}`;
      if (rng.next() < 0.2) p += `?page=${rng.pick(args)}&limit=${rng.pick(args)}&order=${rng.pick(['asc', 'desc', 'x'])}`;
      if (rng.next() < 0.1) p = p.slice(0, rng.int(1, p.length));
      return encodeURI(p).replace(/%25/g, '%');
    });
    await pool(paths, 8, async (path) => {
      const method = rng.next() < 0.05 ? 'POST' : 'GET';
      const res = await fetch(devnet.indexUrl + path, { method });
      const text = await res.text();
      expect([200, 400, 404, 405], `${method} ${path}`).toContain(res.status);
      if (res.status === 405) return;
      const body = JSON.parse(text) as Record<string, unknown>;
      const keys = Object.keys(body);
      const ok =
        (res.status === 200 && keys.join() === 'data,time') ||
        keys.join() === 'error_code,message,details' ||
        (res.status === 404 && keys.join() === 'about,error');
      expect(ok, `${path} → ${res.status} ${text.slice(0, 120)}`).toBe(true);
    });
    expect((await fetch(`${devnet.indexUrl}/v1/blockchain/block/0`)).status).toBe(200);
  });
});
