/**
 * Makes test/bitcoin/fixtures/psbt-roles-node.jsonl from a private regtest Bitcoin Core node (run
 * by hand; the tests only read the file):
 *
 *   bin=$(../shared/core/unpack.sh 31.99)
 *   npx tsx test/bitcoin/psbt-roles-node.gen.ts "$bin"
 *
 * A watch-only wallet imports public descriptors of many kinds (pkh, sh(wpkh), wpkh, tr, wsh(multi)
 * 2-of-3, sh(multi) 1-of-2, sh(wsh(sortedmulti)) 3-of-5, bare multi, pk() and tr() of hex keys,
 * rawtr, a key without origin, addr(), combo(), tr() script trees with pk/pkh/multi_a/sortedmulti_a
 * leaves, ranges not starting at 0); signer wallets hold the private halves (one key each for the
 * multisigs; the script-tree spend is filled and analyzed only). Coins of every kind are spent in PSBTs (v2 and v0) with
 * change back to the wallet; Core's answers are recorded: walletprocesspsbt without signing on the
 * watch-only wallet (fill vectors), signing by each signer, combinepsbt, finalizepsbt (with and
 * without extract), analyzepsbt at every stage. The node is stopped and its directory removed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HDKey } from '@scure/bip32';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { parseDescriptor } from '../../shared/bitcoin/descriptor';
import { REGTEST } from '../../shared/bitcoin/networks';
import { serializeTx } from '../../shared/bitcoin/tx';

const bin = process.argv[2];
if (!bin) throw new Error('usage: tsx test/bitcoin/psbt-roles-node.gen.ts <bitcoin bin dir>');
const OUT = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'psbt-roles-node.jsonl');
const PORT = 18600 + Math.floor(Math.random() * 300);
const datadir = mkdtempSync(join(tmpdir(), 'spyglass-roles-node-'));
const TPRV = { private: 0x04358394, public: 0x043587cf };

const started = spawnSync(join(bin, 'bitcoind'), ['-regtest', `-datadir=${datadir}`, `-rpcport=${PORT}`, '-listen=0', '-rpcbind=127.0.0.1', '-rpcallowip=127.0.0.1', '-fallbackfee=0.0002', '-daemonwait'], { encoding: 'utf8' });
if (started.status !== 0) throw new Error(`bitcoind: ${started.stderr}`);
const cookie = readFileSync(join(datadir, 'regtest', '.cookie'), 'utf8').trim();
let nextId = 0;

async function rpc<T = unknown>(method: string, params: unknown[] = [], wallet?: string): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${PORT}/${wallet ? `wallet/${wallet}` : ''}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(cookie).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '1.0', id: ++nextId, method, params }),
  });
  const body = (await res.json()) as { result: T; error: { message: string } | null };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const lines: string[] = [];
const record = (o: Record<string, unknown>): void => {
  lines.push(JSON.stringify(o));
};

/** A deterministic test key (never a real one): its tprv, fingerprint and account xpub at `path`. */
function testKey(seedByte: number, path: string): { fp: string; acct: string; acctPrv: string; root: HDKey; origin: string } {
  const root = HDKey.fromMasterSeed(new Uint8Array(32).fill(seedByte), TPRV);
  const fp = Buffer.from(ripemd160(sha256(root.publicKey!)).slice(0, 4)).toString('hex');
  const acct = root.derive(`m/${path}`);
  return { fp, acct: acct.publicExtendedKey, acctPrv: acct.privateExtendedKey, root, origin: `[${fp}/${path.replace(/'/g, 'h')}]` };
}

async function withChecksum(desc: string): Promise<string> {
  return desc + '#' + (await rpc<{ checksum: string }>('getdescriptorinfo', [desc])).checksum;
}

async function main(): Promise<void> {
  await rpc('createwallet', ['fund']);
  await rpc('generatetoaddress', [110, await rpc('getnewaddress', [], 'fund')]);
  await rpc('createwallet', ['watch', true, true]);
  for (const s of ['sA', 'sB', 'sC']) await rpc('createwallet', [s, false, true]);

  const A = testKey(1, "84'/1'/0'");
  const B = testKey(2, "84'/1'/0'");
  const C = testKey(3, "84'/1'/0'");
  const D = testKey(4, "48'/1'/0'/2'");
  const E = testKey(5, "48'/1'/0'/2'");
  const single = (k: ReturnType<typeof testKey>, branch: number, priv: boolean): string => `${k.origin}${priv ? k.acctPrv : k.acct}/${branch}/*`;
  const hexKey = Buffer.from(secp256k1.getPublicKey(new Uint8Array(32).fill(9), true)).toString('hex');
  const hexPriv = new Uint8Array(32).fill(9);
  const xonlyPriv = new Uint8Array(32).fill(10);
  const xonly = Buffer.from(secp256k1.getPublicKey(xonlyPriv, true)).toString('hex').slice(2);
  const noOrigin = testKey(6, "84'/1'/0'");
  const xonly2 = Buffer.from(secp256k1.getPublicKey(new Uint8Array(32).fill(11), true)).toString('hex').slice(2);
  const foreign = await rpc<string>('getnewaddress', ['', 'bech32'], 'fund');

  // name, descriptor template (priv: which keys are private in which signer), range, internal
  type Kind = { name: string; make: (who: string | null) => string; range?: [number, number]; internal?: boolean; watchOnly?: boolean };
  const multi3 = (who: string | null, sorted: boolean, branch: number): string =>
    `${sorted ? 'sortedmulti' : 'multi'}(2,${single(A, branch, who === 'sA')},${single(B, branch, who === 'sB')},${single(C, branch, who === 'sC')})`;
  const wif = (priv: Uint8Array): string => {
    // regtest WIF, compressed
    const payload = Buffer.concat([Buffer.from([0xef]), Buffer.from(priv), Buffer.from([1])]);
    const check = sha256(sha256(payload)).slice(0, 4);
    const all = Buffer.concat([payload, Buffer.from(check)]);
    const ALPHA = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
    let n = BigInt('0x' + all.toString('hex'));
    let s = '';
    while (n > 0n) {
      s = ALPHA[Number(n % 58n)]! + s;
      n /= 58n;
    }
    for (const b of all) {
      if (b !== 0) break;
      s = '1' + s;
    }
    return s;
  };
  const kinds: Kind[] = [
    { name: 'pkh', make: (w) => `pkh(${single(A, 0, w === 'sA')})`, range: [0, 40] },
    { name: 'sh-wpkh', make: (w) => `sh(wpkh(${single(A, 2, w === 'sA')}))`, range: [3, 40] },
    { name: 'wpkh', make: (w) => `wpkh(${single(A, 4, w === 'sA')})`, range: [0, 40] },
    { name: 'wpkh change', make: (w) => `wpkh(${single(A, 1, w === 'sA')})`, range: [0, 40], internal: true },
    { name: 'tr', make: (w) => `tr(${single(A, 5, w === 'sA')})`, range: [0, 40] },
    { name: 'wsh multi 2-of-3', make: (w) => `wsh(${multi3(w, false, 6)})`, range: [0, 25] },
    { name: 'sh multi 1-of-2', make: (w) => `sh(multi(1,${single(B, 7, w === 'sB')},${single(C, 7, w === 'sC')}))`, range: [0, 25] },
    {
      name: 'sh-wsh sortedmulti 3-of-5',
      make: (w) => `sh(wsh(sortedmulti(3,${single(A, 8, w === 'sA')},${single(B, 8, w === 'sB')},${single(C, 8, w === 'sC')},${D.origin}${w === 'sA' ? D.acctPrv : D.acct}/0/*,${E.origin}${w === 'sB' ? E.acctPrv : E.acct}/0/*)))`,
      range: [0, 12],
    },
    { name: 'wsh sortedmulti change', make: (w) => `wsh(${multi3(w, true, 9)})`, range: [0, 25], internal: true },
    { name: 'bare multi', make: (w) => `multi(1,${single(B, 10, w === 'sB')},${single(C, 10, w === 'sC')})`, range: [0, 5] },
    { name: 'pk hex', make: (w) => `pk(${w === 'sA' ? wif(hexPriv) : hexKey})` },
    { name: 'tr hex', make: (w) => `tr(${w === 'sA' ? wif(xonlyPriv) : xonly})` },
    { name: 'rawtr', make: (w) => `rawtr(${single(A, 11, w === 'sA')})`, range: [0, 10] },
    { name: 'wpkh no origin', make: (w) => `wpkh(${w === 'sA' ? noOrigin.acctPrv : noOrigin.acct}/0/*)`, range: [0, 10] },
    { name: 'addr', make: () => `addr(${foreign})` },
    { name: 'combo', make: (w) => `combo(${single(C, 17, w === 'sC')})`, range: [0, 6] },
    // Script trees (the watch-only wallet only: finalizing script path spends is not ported).
    {
      name: 'tr tree',
      make: () => `tr(${single(A, 13, false)},{pk(${single(B, 13, false)}),{multi_a(2,${single(A, 14, false)},${single(C, 13, false)}),sortedmulti_a(1,${single(B, 14, false)},${single(C, 14, false)})}})`,
      range: [0, 15],
      watchOnly: true,
    },
    { name: 'tr tree pkh and hex', make: () => `tr(${xonly2},{pkh(${single(C, 15, false)}),pk(${xonly})})`, range: [0, 8], watchOnly: true },
    { name: 'tr tree change', make: () => `tr(${single(A, 16, false)},pk(${single(B, 16, false)}))`, range: [0, 10], internal: true, watchOnly: true },
  ];

  const importInto = async (wallet: string, who: string | null): Promise<void> => {
    const reqs = [];
    const mine = kinds.filter((k) => !who || (!k.watchOnly && k.make(who) !== k.make(null)));
    for (const k of mine) {
      reqs.push({ desc: await withChecksum(k.make(who)), timestamp: 'now', ...(k.range ? { range: k.range } : {}), ...(k.internal ? { internal: true } : {}) });
    }
    const res = await rpc<Array<{ success: boolean; error?: { message: string } }>>('importdescriptors', [reqs], wallet);
    res.forEach((r, i) => {
      if (!r.success) throw new Error(`${wallet} import ${mine[i]?.name}: ${r.error?.message}`);
    });
  };
  await importInto('watch', null);
  for (const s of ['sA', 'sB', 'sC']) await importInto(s, s);

  const listed = (await rpc<{ descriptors: Array<Record<string, unknown>> }>('listdescriptors', [], 'watch')).descriptors;
  const descOf = (name: string): Record<string, unknown> => {
    const k = kinds.find((x) => x.name === name)!;
    const body = k.make(null).replace(/'/g, 'h');
    const d = listed.find((x) => (x.desc as string).replace(/#.*/, '') === body);
    if (!d) throw new Error(`listdescriptors has no ${body}`);
    return d;
  };
  const addressAt = async (name: string, index: number, pick = 0): Promise<string> => {
    const d = descOf(name);
    const r = await rpc<string[]>('deriveaddresses', [d.desc, d.range ? [index, index] : undefined].filter((x) => x !== undefined));
    return r[pick]!;
  };

  // Fund one coin of each spendable kind (index chosen inside the range), plus the addr() one.
  const coins: Record<string, { txid: string; vout: number; amount: number; address: string }> = {};
  const pay = async (name: string, index: number, amount: number, pick = 0, as = name): Promise<void> => {
    if (name === 'pk hex' || name === 'bare multi') return payScript(name, index, amount);
    const address = name === 'addr' ? foreign : await addressAt(name, index, pick);
    const txid = await rpc<string>('sendtoaddress', [address, amount], 'fund');
    const tx = await rpc<{ details: Array<{ address: string; vout: number }> }>('gettransaction', [txid], 'fund');
    const vout = tx.details.find((d) => d.address === address)!.vout;
    coins[as] = { txid, vout, amount, address };
  };
  /** Outputs without an address (P2PK, bare multisig): a transaction built here, signed by the funding wallet. */
  async function payScript(name: string, index: number, amount: number): Promise<void> {
    const script = parseDescriptor(descOf(name).desc as string, REGTEST).expand(index)[0]!.script;
    const utxo = (await rpc<Array<{ txid: string; vout: number; amount: number }>>('listunspent', [100], 'fund')).find((u) => u.amount >= 25)!;
    const back = await rpc<{ scriptPubKey: string }>('getaddressinfo', [await rpc('getnewaddress', [], 'fund')], 'fund');
    const value = BigInt(Math.round(amount * 1e8));
    const tx = {
      version: 2,
      locktime: 0,
      vin: [{ prevTxid: utxo.txid, vout: utxo.vout, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
      vout: [
        { value, script },
        { value: BigInt(Math.round(utxo.amount * 1e8)) - value - 10_000n, script: Buffer.from(back.scriptPubKey, 'hex') },
      ],
    };
    const signedTx = await rpc<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [Buffer.from(serializeTx(tx, { witness: false })).toString('hex')], 'fund');
    if (!signedTx.complete) throw new Error('funding ' + name);
    const txid = await rpc<string>('sendrawtransaction', [signedTx.hex]);
    coins[name] = { txid, vout: 0, amount, address: '' };
    await rpc('generatetoaddress', [1, await rpc('getnewaddress', [], 'fund')]);
  }
  await pay('pkh', 3, 1.1);
  await pay('sh-wpkh', 7, 1.2);
  await pay('wpkh', 0, 1.3);
  await pay('tr', 2, 1.4);
  await pay('wsh multi 2-of-3', 4, 1.5);
  await pay('sh multi 1-of-2', 1, 1.6);
  await pay('sh-wsh sortedmulti 3-of-5', 2, 1.7);
  await pay('bare multi', 0, 1.8);
  await pay('pk hex', 0, 1.9);
  await pay('tr hex', 0, 2.0);
  await pay('rawtr', 5, 2.1);
  await pay('wpkh no origin', 9, 2.2);
  await pay('addr', 0, 0.5);
  await pay('combo', 1, 2.5, 0, 'combo p2pkh');
  await pay('combo', 2, 2.6, 1, 'combo p2wpkh');
  await pay('combo', 3, 2.7, 2, 'combo p2sh-p2wpkh');
  await pay('tr tree', 1, 2.3);
  await pay('tr tree pkh and hex', 2, 2.4);
  await rpc('generatetoaddress', [1, await rpc('getnewaddress', [], 'fund')]);

  const prevtxs: Record<string, string> = {};
  for (const c of Object.values(coins)) prevtxs[c.txid] = (await rpc<{ hex: string }>('gettransaction', [c.txid], 'watch')).hex;
  // A coin of the funding wallet's change in one of those transactions: in the watch wallet's transactions, not its.
  const fundTx = await rpc<{ vout: Array<{ n: number; value: number; scriptPubKey: { address?: string } }> }>('decoderawtransaction', [prevtxs[coins.wpkh!.txid]]);
  const fundChange = fundTx.vout.find((o) => o.n !== coins.wpkh!.vout)!;

  const ext = await rpc<string>('getnewaddress', ['', 'bech32'], 'fund');
  const changeWpkh = await addressAt('wpkh change', 2);
  const changeVault = await addressAt('wsh sortedmulti change', 3);
  const changeTr = await addressAt('tr', 30);
  const changeTree = await addressAt('tr tree change', 4);

  type Spend = { name: string; coins: Array<{ txid: string; vout: number; amount: number; sequence?: number }>; change: string; locktime?: number; fillOnly?: boolean };
  const c = (n: string): Spend['coins'][number] => ({ txid: coins[n]!.txid, vout: coins[n]!.vout, amount: coins[n]!.amount });
  const spends: Spend[] = [
    { name: 'legacy and wrapped single-sig', coins: [c('pkh'), c('sh-wpkh'), c('wpkh no origin')], change: changeWpkh },
    { name: 'native single-sig and taproot', coins: [c('wpkh'), c('tr'), c('rawtr')], change: changeTr },
    { name: 'taproot only', coins: [c('tr'), c('tr hex')], change: changeTr },
    { name: 'multisig kinds', coins: [c('wsh multi 2-of-3'), c('sh multi 1-of-2'), c('sh-wsh sortedmulti 3-of-5'), c('bare multi')], change: changeVault },
    { name: 'hex keys, addr() and a foreign input', coins: [c('pk hex'), c('addr'), { txid: coins.wpkh!.txid, vout: fundChange.n, amount: fundChange.value }], change: changeWpkh, locktime: 120 },
    { name: 'combo coins', coins: [c('combo p2pkh'), c('combo p2wpkh'), c('combo p2sh-p2wpkh')], change: changeWpkh },
    { name: 'taproot script trees', coins: [c('tr tree'), c('tr tree pkh and hex'), c('wpkh')], change: changeTree, fillOnly: true },
  ];

  for (const s of spends) {
    const total = s.coins.reduce((a, x) => a + x.amount, 0);
    const outputs = [{ [ext]: 0.25 }, { [s.change]: Math.round((total - 0.25 - 0.001) * 1e8) / 1e8 }];
    for (const version of [2, 0]) {
      const tag = `${s.name}${version === 0 ? ', psbt v0' : ''}`;
      const inputs = s.coins.map((x) => ({ txid: x.txid, vout: x.vout, ...(x.sequence ? { sequence: x.sequence } : {}) }));
      const psbt = await rpc<string>('createpsbt', [inputs, outputs, s.locktime ?? 0, true, 2, version]);
      const filled = await rpc<{ psbt: string }>('walletprocesspsbt', [psbt, false, 'DEFAULT', true, false], 'watch');
      record({ group: 'fill-vector', name: tag, network: 'regtest', psbt, descriptors: listed, prevtxs, expected: filled.psbt });
      const noDerivs = await rpc<{ psbt: string }>('walletprocesspsbt', [psbt, false, 'DEFAULT', false, false], 'watch');
      record({ group: 'fill-vector', name: `${tag}, bip32derivs false`, network: 'regtest', psbt, descriptors: listed, prevtxs, bip32derivs: false, expected: noDerivs.psbt });
      const call = async (group: string, name: string, method: string, params: unknown[], wallet?: string): Promise<unknown> => {
        let result: unknown = null;
        let error: unknown = null;
        try {
          result = await rpc(method, params, wallet);
        } catch (e) {
          error = { message: (e as Error).message.replace(`${method}: `, '') };
        }
        record({ group, name: `${tag}: ${name}`, params, result, error });
        return result;
      };
      await call('analyzepsbt', 'filled', 'analyzepsbt', [filled.psbt]);
      if (s.fillOnly) continue;
      const signed: string[] = [];
      for (const w of ['sA', 'sB', 'sC']) {
        const r = (await call('walletprocesspsbt', `signed by ${w}`, 'walletprocesspsbt', [filled.psbt, true, 'ALL', true, false], w)) as { psbt: string };
        signed.push(r.psbt);
        await call('analyzepsbt', `signed by ${w}`, 'analyzepsbt', [r.psbt]);
        await call('finalizepsbt', `signed by ${w} alone, no extract`, 'finalizepsbt', [r.psbt, false]);
      }
      const combined = (await call('combinepsbt', 'sA + sB', 'combinepsbt', [[signed[0], signed[1]]])) as string;
      await call('analyzepsbt', 'sA + sB', 'analyzepsbt', [combined]);
      await call('finalizepsbt', 'sA + sB, no extract', 'finalizepsbt', [combined, false]);
      await call('finalizepsbt', 'sA + sB, extract', 'finalizepsbt', [combined]);
      const all = (await call('combinepsbt', 'sA + sB + sC', 'combinepsbt', [[signed[2], signed[0], signed[1]]])) as string;
      await call('finalizepsbt', 'sA + sB + sC, extract', 'finalizepsbt', [all]);
      await call('analyzepsbt', 'sA + sB + sC', 'analyzepsbt', [all]);
      // Another sighash type, asked of the first signer.
      const acp = (await call('walletprocesspsbt', 'signed by sA with ALL|ANYONECANPAY', 'walletprocesspsbt', [filled.psbt, true, 'ALL|ANYONECANPAY', true, false], 'sA')) as { psbt: string };
      await call('finalizepsbt', 'sA with ALL|ANYONECANPAY, no extract', 'finalizepsbt', [acp.psbt, false]);
      await call('analyzepsbt', 'sA with ALL|ANYONECANPAY', 'analyzepsbt', [acp.psbt]);
    }
  }
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, lines.join('\n') + '\n');
  console.log(`${lines.length} lines -> ${OUT}`);
}

main()
  .finally(async () => {
    try {
      await rpc('stop');
    } catch {
      /* already down */
    }
    await new Promise((r) => setTimeout(r, 1500));
    rmSync(datadir, { recursive: true, force: true });
  })
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
