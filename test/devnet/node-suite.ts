/**
 * Node-level tests against a Bitcoin Core–compatible regtest node answering as one generation: the
 * devnet in each mode (node-replay.test.ts). Every line of that generation's recordings is replayed
 * (../shared/fixtures/core/bitcoin-core-v30.jsonl in mode 30, bitcoin-core-v31.99-stateless.jsonl in
 * mode 31.99):
 * - stateless groups (createrawtransaction, decodepsbt, http without wallet state): same status,
 *   content type and body (parsed, key order included; `id` echoed), amounts as 8-decimal tokens;
 * - wallet groups: the same request on this node's own equivalent wallet (set up over RPC the way the
 *   recording's node was), with the same keys, order, types and value formats.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { coreGroup as recordedGroup, coreMeta, coreRecordings, type CoreRecording, type RecordedGeneration } from '../fixtures';
import { amountTokens, shapeOf, TestRpc } from '../support/rpc';

export interface NodeTarget {
  rpc: TestRpc;
  /** Suffix for wallet names ('' on a fresh devnet; unique on a shared real node). */
  suffix: string;
}

/** Addresses of the recording's node, by role. */
const REC = {
  legacy: 'msPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqE',
  p2sh: '2N9YZhZvwKiwzEd6DiisrwF3qKUAdxcfTmS',
  bech32: 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef',
  bech32m: 'bcrt1pggux3e2nflwsdcr8kwajclk4wuhu82rsyqlxzuwz0t5jgzrs7kzq6kfkfk',
  change: 'bcrt1qwqle5hlhu9zjeu4g8nn6wnq75mqsec900e56jr',
  cold: 'bcrt1qwzycpzzkr5gpz4qfulhhe9e57rd9fv0decm5s5',
  vault: 'bcrt1qwqkz8nmfs55sw8ugv5ewarccgrgjtmlh6unfrsky24cy3v6segqqvnyfv6',
  notMine: 'bcrt1px3wvuhjectwm5uewkvu7kn2nq4wew7934cz94zx5uv4qrergys4qmljwmx',
  miner: 'bcrt1q0wtnej8rz5vund3xnjkckm7tyy8lzmazqaxv6v',
} as const;
type Role = keyof typeof REC;

interface Setup {
  wallets: { hot: string; watch: string; other: string };
  /** txid of the 0.5 BTC payment left in the mempool. */
  unconfirmed: string;
  addr: Record<Role, string>;
}

/** Builds on `rpc` what the recording's node had (see ../shared/fixtures/core/README.md). */
export async function setupLikeRecording(t: NodeTarget): Promise<Setup> {
  const { rpc, suffix } = t;
  const wallets = { hot: `hot${suffix}`, watch: `watch${suffix}`, other: `other${suffix}` };
  await rpc.call('createwallet', [wallets.hot]);
  await rpc.call('createwallet', [wallets.other]);
  await rpc.call('createwallet', [wallets.watch, true, true]);
  const listed = await rpc.call<{ descriptors: Array<{ desc: string; active: boolean; internal?: boolean; range?: [number, number] }> }>(
    'listdescriptors',
    [],
    wallets.hot,
  );
  const imported = await rpc.call<Array<{ success: boolean }>>(
    'importdescriptors',
    [listed.descriptors.map((d) => ({ desc: d.desc, active: d.active, internal: d.internal ?? false, range: d.range, timestamp: 0 }))],
    wallets.watch,
  );
  expect(imported.every((r) => r.success)).toBe(true);

  // The hot wallet's first bech32 address is the watcher's 'payroll' address (same descriptors):
  // mine to its second one, as the recording's node did.
  await rpc.call<string>('getnewaddress', ['', 'bech32'], wallets.hot);
  const miner = await rpc.call<string>('getnewaddress', ['', 'bech32'], wallets.hot);
  await rpc.call('generatetoaddress', [101, miner]);
  const legacy = await rpc.call<string>('getnewaddress', ['donations', 'legacy'], wallets.watch);
  const p2sh = await rpc.call<string>('getnewaddress', ['', 'p2sh-segwit'], wallets.watch);
  const bech32 = await rpc.call<string>('getnewaddress', ['payroll', 'bech32'], wallets.watch);
  const bech32m = await rpc.call<string>('getnewaddress', ['', 'bech32m'], wallets.watch);
  const change = await rpc.call<string>('getrawchangeaddress', ['bech32'], wallets.watch);
  await rpc.call('setlabel', [miner, ''], wallets.watch);

  const cold = await rpc.call<string>('getnewaddress', [], wallets.other);
  const coldDesc = await rpc.call<{ descriptor: string }>('getdescriptorinfo', [`addr(${cold})`]);
  const pubkeys: string[] = [];
  for (let i = 0; i < 3; i++) {
    const a = await rpc.call<string>('getnewaddress', [], wallets.other);
    pubkeys.push((await rpc.call<{ pubkey: string }>('getaddressinfo', [a], wallets.other)).pubkey);
  }
  const vaultDesc = await rpc.call<{ descriptor: string }>('getdescriptorinfo', [`wsh(multi(2,${pubkeys.join(',')}))`]);
  const res = await rpc.call<Array<{ success: boolean }>>(
    'importdescriptors',
    [[
      { desc: coldDesc.descriptor, timestamp: 0, label: 'cold storage' },
      { desc: vaultDesc.descriptor, timestamp: 0, label: 'vault' },
    ]],
    wallets.watch,
  );
  expect(res.every((r) => r.success)).toBe(true);
  const [vault] = await rpc.call<string[]>('deriveaddresses', [vaultDesc.descriptor]);
  for (const a of [legacy, p2sh, vault!, cold, bech32m]) await rpc.call('sendtoaddress', [a, 1.25], wallets.hot);
  await rpc.call('sendtoaddress', [bech32, 1.25], wallets.hot);
  await rpc.call('sendtoaddress', [bech32, '0.0003'], wallets.hot);
  await rpc.call('generatetoaddress', [3, miner]);
  const unconfirmed = await rpc.call<string>('sendtoaddress', [bech32m, 0.5], wallets.hot);
  const notMine = await rpc.call<string>('getnewaddress', ['', 'bech32m'], wallets.other);
  return {
    wallets,
    unconfirmed,
    addr: { legacy, p2sh, bech32, bech32m, change, cold, vault: vault!, notMine, miner },
  };
}

/** Rewrites a recorded request for this node: its addresses and wallet names. */
function rewrite(rec: CoreRecording, s: Setup): { path: string; body: string } {
  let body = rec.request.body;
  for (const role of Object.keys(REC) as Role[]) body = body.split(REC[role]).join(s.addr[role]);
  const path = rec.request.path
    .replace(/^\/wallet\/watch$/, `/wallet/${encodeURIComponent(s.wallets.watch)}`)
    .replace(/^\/wallet\/hot$/, `/wallet/${encodeURIComponent(s.wallets.hot)}`);
  return { path, body };
}

const AMOUNT_KEYS = ['amount', 'value', 'fee'];
const order = (v: unknown): string => JSON.stringify(v);

/** Same status, content type and parsed body (key order included); amounts as 8-decimal tokens. */
async function expectIdentical(rpc: TestRpc, rec: CoreRecording, path = rec.request.path, body = rec.request.body, auth?: string | null): Promise<void> {
  const reply = await rpc.raw(path, body, { method: rec.request.method, auth });
  expect(reply.status, rec.name).toBe(rec.response.status);
  expect(reply.contentType, rec.name).toBe(rec.response.contentType);
  if (typeof rec.response.body === 'string') {
    expect(reply.text).toBe(rec.response.body);
    return;
  }
  expect(reply.text.endsWith('\n'), 'Core ends JSON replies with a newline').toBe(true);
  expect(order(JSON.parse(reply.text)), rec.name).toBe(order(rec.response.body));
  for (const tok of amountTokens(reply.text, AMOUNT_KEYS)) expect(tok, `${rec.name}: amount token`).toMatch(/^-?[0-9]+\.[0-9]{8}$/);
}

const STATELESS_HTTP = new Set(['method not found 1.0', 'method not found 2.0', 'invalid json', 'GET request', 'wrong password', 'no credentials']);

export function defineNodeSuite(getTarget: () => NodeTarget, generation: RecordedGeneration): void {
  const coreGroup = (group: string): CoreRecording[] => recordedGroup(group, generation);
  describe('stateless replies are identical to the recording', () => {
    for (const group of ['createrawtransaction', 'decodepsbt']) {
      it(`${group}: every recorded case`, async () => {
        const { rpc } = getTarget();
        for (const rec of coreGroup(group)) await expectIdentical(rpc, rec);
      });
    }
    it('http: auth failures, method not found (1.0 and 2.0), parse error, GET', async () => {
      const { rpc } = getTarget();
      for (const rec of coreGroup('http').filter((r) => STATELESS_HTTP.has(r.name))) {
        const auth = rec.name === 'no credentials' ? null : rec.name === 'wrong password' ? `Basic ${Buffer.from('spy:wrong').toString('base64')}` : undefined;
        await expectIdentical(rpc, rec, '/', rec.request.body, auth);
      }
    });
  });

  // The 31.99 file holds the stateless requests only.
  const walletGroups = coreGroup('getaddressinfo').length > 0;
  describe.runIf(walletGroups)('wallet replies match the recording on an equivalent wallet', () => {
    let s: Setup;
    beforeAll(async () => {
      s = await setupLikeRecording(getTarget());
    }, 300_000);

    it('getaddressinfo: same keys, order, types and semantics for every address kind', async () => {
      const { rpc } = getTarget();
      for (const rec of coreGroup('getaddressinfo')) {
        const { path, body } = rewrite(rec, s);
        const reply = await rpc.raw(path, body);
        const got = JSON.parse(reply.text) as { result: Record<string, unknown> | null; error: unknown };
        const want = rec.response.body as { result: Record<string, unknown> | null; error: unknown };
        expect(reply.status, rec.name).toBe(rec.response.status);
        if (want.error) {
          if (rec.name === 'bad checksum') {
            expect(got.error, rec.name).toEqual(want.error);
          } else {
            expect(order(got), rec.name).toBe(order(want));
          }
          continue;
        }
        expect(order(shapeOf(got)), rec.name).toBe(order(shapeOf(want)));
        for (const k of ['ismine', 'solvable', 'iswatchonly', 'isscript', 'iswitness', 'ischange', 'labels', 'witness_version', 'script', 'sigsrequired', 'iscompressed', 'hdseedid']) {
          expect(got.result![k], `${rec.name}: ${k}`).toEqual(want.result![k]);
        }
      }
    });

    it('listreceivedbyaddress: same row shape, ordering rules and totals', async () => {
      const { rpc } = getTarget();
      for (const rec of coreGroup('listreceivedbyaddress')) {
        const { path, body } = rewrite(rec, s);
        const reply = await rpc.raw(path, body);
        expect(reply.status, rec.name).toBe(rec.response.status);
        const got = JSON.parse(reply.text) as { result: Array<Record<string, unknown>> | null; error: unknown };
        const want = rec.response.body as { result: Array<Record<string, unknown>> | null; error: unknown };
        if (want.error) {
          expect(order(got), rec.name).toBe(order(want));
          continue;
        }
        for (const tok of amountTokens(reply.text, ['amount'])) expect(tok).toMatch(/^[0-9]+\.[0-9]{8}$/);
        // Same keys, order and types; txids a list of strings (empty for an address that received nothing).
        const rowShape = (row: Record<string, unknown>): string => order(shapeOf({ ...row, txids: [] }));
        const wantShape = want.result!.length ? rowShape(want.result![0]!) : null;
        for (const row of got.result!) {
          if (wantShape) expect(rowShape(row), rec.name).toBe(wantShape);
          expect((row.txids as unknown[]).every((t) => typeof t === 'string'), rec.name).toBe(true);
        }
        // Rows of our watched addresses carry the recorded amounts and labels.
        const byRole = new Map(Object.entries(s.addr).map(([role, a]) => [a, role as Role]));
        for (const row of got.result!) {
          const role = byRole.get(row.address as string);
          if (!role || role === 'miner') continue;
          const recorded = want.result!.find((r) => r.address === REC[role]);
          expect(recorded, `${rec.name}: ${role} row should exist`).toBeDefined();
          expect({ amount: row.amount, label: row.label, n: (row.txids as unknown[]).length }, `${rec.name}: ${role}`).toEqual({
            amount: recorded!.amount,
            label: recorded!.label,
            n: (recorded!.txids as unknown[]).length,
          });
        }
        // Core orders rows by destination type (P2PKH, P2SH, P2WSH, P2WPKH, P2TR), then by bytes.
        const rank = (a: string): number => (/^[mn]/.test(a) ? 0 : a.startsWith('2') ? 1 : a.startsWith('bcrt1q') ? (a.length > 50 ? 2 : 3) : 4);
        const ranks = got.result!.map((r) => rank(r.address as string));
        expect(ranks, `${rec.name}: row order`).toEqual([...ranks].sort((a, b) => a - b));
        const wantRoles = want.result!.map((r) => (Object.keys(REC) as Role[]).find((k) => REC[k] === r.address)).filter((r) => r && r !== 'miner' && !(rec.name.startsWith('hot') ));
        const gotAddrs = new Set(got.result!.map((r) => r.address));
        if (!rec.name.startsWith('hot')) for (const role of wantRoles) expect(gotAddrs.has(s.addr[role!]), `${rec.name}: row for ${role}`).toBe(true);
      }
    });

    it('getrawtransaction and decoderawtransaction agree on a mempool transaction', async () => {
      const { rpc } = getTarget();
      const hex = await rpc.call<string>('getrawtransaction', [s.unconfirmed]);
      const verbose = await rpc.call<Record<string, unknown>>('getrawtransaction', [s.unconfirmed, 1]);
      const decoded = await rpc.call<Record<string, unknown>>('decoderawtransaction', [hex]);
      const { hex: rawHex, ...rest } = verbose;
      expect(rawHex).toBe(hex);
      expect(order(rest)).toBe(order(decoded));
      expect(decoded.txid).toBe(s.unconfirmed);
      expect(Object.keys(decoded)).toEqual(['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout']);
      await expect(rpc.call('getrawtransaction', ['00'.repeat(32)])).rejects.toMatchObject({ code: -5 });
    });

    it('http: wallet selection errors, batch, named params and numeric ids', async () => {
      const { rpc } = getTarget();
      for (const rec of coreGroup('http').filter((r) => !STATELESS_HTTP.has(r.name))) {
        const { path, body } = rewrite(rec, s);
        const reply = await rpc.raw(path, body);
        expect(reply.status, rec.name).toBe(rec.response.status);
        expect(reply.contentType, rec.name).toBe(rec.response.contentType);
        const got = JSON.parse(reply.text) as unknown;
        if (rec.name.startsWith('wallet method without wallet') || rec.name === 'unknown wallet') {
          expect(order(got), rec.name).toBe(order(rec.response.body));
        } else {
          expect(order(shapeOf(got)), rec.name).toBe(order(shapeOf(rec.response.body)));
        }
      }
    });
  });

  it('getnetworkinfo names the generation the recordings come from', async () => {
    const info = await getTarget().rpc.call<{ version: number; subversion: string }>('getnetworkinfo');
    expect({ version: info.version, subversion: info.subversion }).toEqual(coreMeta(generation));
  });

  it('the recording file was read whole', () => {
    expect(coreRecordings(generation).length).toBe(generation === '30' ? 139 : 109);
  });
}
