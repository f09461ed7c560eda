/**
 * The wallet PSBT methods on the devnet's own chain, rebuilt the way the spend recordings' README
 * describes it (../shared/fixtures/core/bitcoin-core-spend.jsonl, Core 31.99): `hot` holds the keys,
 * `watch` follows its public descriptors, `vault` is a 2-of-3 wsh(sortedmulti) of c1..c3. Keys differ
 * from the recording, so the PSBTs are built here the way the recorded ones were (one coin of each
 * type, recipient and change as recorded) and must fill the same fields as Core filled them (decoded
 * side by side with the recorded replies), byte for byte what the offline updater makes from the
 * wallet's listdescriptors and previous transactions (the fill vectors hold that updater to Core).
 * Signing is checked by the node itself: what hot and the cosigners sign is accepted to the mempool.
 * psbtbumpfee reproduces the recorded fee numbers exactly for the recorded payment (four 1.5 BTC
 * coins, one of each type, 2 BTC paid, 0.0001 fee).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { fillPsbtBase64 } from '../../shared/bitcoin/psbt';
import { REGTEST } from '../../shared/bitcoin/networks';
import { coreFileGroup, type CoreRecording } from '../fixtures';
import { shapeOf, TestRpc } from '../support/rpc';

const FILE = 'bitcoin-core-spend.jsonl';
const rec = (group: string, name: string): CoreRecording => {
  const r = coreFileGroup(FILE, group).find((x) => x.name === name);
  if (!r) throw new Error(`no recording ${group} / ${name}`);
  return r;
};
type Body = { result: Record<string, unknown> | null; error: { code: number; message: string } | null };
const body = (r: CoreRecording): Body => r.response.body as Body;
const order = (v: unknown): string => JSON.stringify(v);
type Decoded = { inputs: Array<Record<string, unknown>>; outputs: Array<Record<string, unknown>>; fee?: number };
type Unspent = { txid: string; vout: number; address: string; amount: number };
type Processed = { psbt: string; complete: boolean; hex?: string };

describe('walletprocesspsbt, descriptorprocesspsbt and psbtbumpfee on the devnet wallets (as Core 31.99)', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  const s: Record<string, string> = {};
  const coin: Record<string, Unspent> = {};
  const call = <T>(method: string, p: unknown[] | Record<string, unknown> = [], wallet?: string): Promise<T> => rpc.call<T>(method, p, wallet);
  const decode = (psbt: string): Promise<Decoded> => call<Decoded>('decodepsbt', [psbt]);
  /** The fields of each input and output, as decodepsbt shows them (values left out, keys of key maps as "key"). */
  const fields = (d: Decoded): string => order({ inputs: d.inputs.map(shapeOf), outputs: d.outputs.map(shapeOf) }).replace(/"[0-9a-f]{64,66}":/g, '"key":');

  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', coreVersion: '31.99' });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
    await call('setmocktime', [1_795_558_000]);
    for (const w of ['fund', 'hot', 'c1', 'c2', 'c3']) await call('createwallet', [w]);
    await call('createwallet', ['watch', true, true]);
    await call('createwallet', { wallet_name: 'vault', disable_private_keys: true, blank: true });
    const fundAddr = await call<string>('getnewaddress', [], 'fund');
    await call('generatetoaddress', [110, fundAddr]);
    const hot = await call<{ descriptors: Array<{ desc: string; active: boolean; internal?: boolean }> }>('listdescriptors', [], 'hot');
    await call('importdescriptors', [hot.descriptors.map((d) => ({ desc: d.desc, active: d.active, internal: d.internal ?? false, range: [0, 60], timestamp: 0 }))], 'watch');
    for (const t of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) s[t] = await call<string>('getnewaddress', ['', t], 'watch');
    const xpubs: string[] = [];
    for (const c of ['c1', 'c2', 'c3']) {
      const d = (await call<{ descriptors: Array<{ desc: string; internal?: boolean }> }>('listdescriptors', [], c)).descriptors.find((x) => x.desc.startsWith('wpkh(') && !x.internal)!;
      xpubs.push(/^wpkh\((\[[^\]]+\][a-zA-Z0-9]+)\/0\/\*\)/.exec(d.desc)![1]!);
    }
    const vault = async (branch: number): Promise<string> => (await call<{ descriptor: string }>('getdescriptorinfo', [`wsh(sortedmulti(2,${xpubs.map((x) => `${x}/${branch}/*`).join(',')}))`])).descriptor;
    await call('importdescriptors', [[{ desc: await vault(0), active: true, internal: false, timestamp: 'now' }, { desc: await vault(1), active: true, internal: true, timestamp: 'now' }]], 'vault');
    s.vault = await call<string>('getnewaddress', ['cold vault'], 'vault');
    s.vaultChange = await call<string>('getrawchangeaddress', [], 'vault');
    for (const t of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) await call('sendtoaddress', [s[t], 1.5], 'fund');
    await call('sendtoaddress', [s.vault, 4], 'fund');
    await call('sendtoaddress', [s.vault, 0.7], 'fund');
    await call('generatetoaddress', [1, fundAddr]);
    for (const u of await call<Unspent[]>('listunspent', [], 'watch')) for (const t of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) if (u.address === s[t]) coin[t] = u;
    s.recipient = await call<string>('getnewaddress', [], 'fund');
    s.change = await call<string>('getrawchangeaddress', ['bech32'], 'hot');
  }, 300_000);
  afterAll(async () => {
    await devnet?.close();
  });

  const spend = (types: string[], version?: 0): Promise<string> => {
    const total = types.length * 1.5;
    const outs = types.length === 1 ? [{ [s.recipient!]: 0.2 }, { [s.change!]: 1.2999 }] : [{ [s.recipient!]: 2 }, { [s.change!]: +(total - 2 - 0.0001).toFixed(8) }];
    return call<string>('createpsbt', [types.map((t) => ({ txid: coin[t]!.txid, vout: coin[t]!.vout })), outs, 0, true, 2, ...(version === 0 ? [0] : [])]);
  };

  it('watch-only: each input type fills the fields Core filled, byte for byte the offline updater over listdescriptors', async () => {
    const descs = (await call<{ descriptors: unknown[] }>('listdescriptors', [], 'watch')).descriptors;
    const cases: Array<[string, string[], 0 | undefined]> = [];
    for (const [name, t] of [['one p2pkh input', 'legacy'], ['one p2sh-p2wpkh input', 'p2sh-segwit'], ['one p2wpkh input', 'bech32'], ['one p2tr input', 'bech32m']] as const) {
      cases.push([name, [t], undefined], [`${name}, psbt v0`, [t], 0]);
    }
    cases.push(['four input types, change to the wallet', ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'], undefined]);
    for (const [name, types, version] of cases) {
      const psbt = await spend(types, version);
      const got = await call<Processed>('walletprocesspsbt', [psbt, false, 'DEFAULT', true, false], 'watch');
      const want = body(rec('walletprocesspsbt', name)).result as unknown as Processed;
      expect(Object.keys(got), name).toEqual(Object.keys(want));
      expect(got.complete, name).toBe(false);
      expect(fields(await decode(got.psbt)), name).toBe(fields(await decode(want.psbt)));
      const prevtxs: Record<string, string> = {};
      for (const t of types) prevtxs[coin[t]!.txid] = (await call<{ hex: string }>('gettransaction', [coin[t]!.txid], 'watch')).hex;
      const offline = fillPsbtBase64({ psbt, descriptors: descs as never, prevtxs, network: REGTEST });
      expect(offline.ok && offline.psbt, name).toBe(got.psbt);
    }
  });

  it('bip32derivs false leaves the key origins out; sign on a watch-only wallet signs nothing', async () => {
    const psbt = await spend(['legacy', 'p2sh-segwit', 'bech32', 'bech32m']);
    const noDerivs = await call<Processed>('walletprocesspsbt', [psbt, false, 'DEFAULT', false, false], 'watch');
    expect(fields(await decode(noDerivs.psbt))).toBe(fields(await decode((body(rec('walletprocesspsbt', 'bip32derivs false')).result as unknown as Processed).psbt)));
    const signed = await call<Processed>('walletprocesspsbt', [psbt], 'watch');
    expect(signed).toEqual({ psbt: (await call<Processed>('walletprocesspsbt', [psbt, false, 'DEFAULT', true, false], 'watch')).psbt, complete: false });
  });

  it('refusals: an invalid PSBT as recorded, an unknown sighash name, a sighash type other than the PSBT’s', async () => {
    const r = rec('walletprocesspsbt', 'invalid psbt');
    expect(JSON.parse((await rpc.raw(r.request.path, r.request.body)).text)).toEqual(r.response.body);
    const psbt = await spend(['bech32']);
    await expect(call('walletprocesspsbt', [psbt, false, 'all'], 'watch')).rejects.toMatchObject({ code: -8, message: "'all' is not a valid sighash parameter." });
    const none = await call<Processed>('walletprocesspsbt', [psbt, false, 'NONE'], 'watch');
    await expect(call('walletprocesspsbt', [none.psbt, false, 'ALL'], 'watch')).rejects.toMatchObject({ code: -22, message: 'Specified sighash value does not match value stored in PSBT' });
    await expect(call('descriptorprocesspsbt', [psbt, [], 'SINGLE|ANYONE'])).rejects.toMatchObject({ code: -8 });
  });

  it('a wallet with keys signs and finalizes: complete, with the transaction the mempool accepts', async () => {
    const psbt = await spend(['legacy', 'p2sh-segwit', 'bech32', 'bech32m']);
    const got = await call<Processed>('walletprocesspsbt', [psbt], 'hot');
    expect(got.complete).toBe(true);
    const [accept] = await call<Array<{ allowed: boolean }>>('testmempoolaccept', [[got.hex]]);
    expect(accept!.allowed).toBe(true);
    // finalize false: signed, not finalized (so not complete, as in Core); finalizepsbt then extracts the same transaction
    const unfinal = await call<Processed>('walletprocesspsbt', [psbt, true, 'DEFAULT', true, false], 'hot');
    expect(unfinal.complete).toBe(false);
    expect((await call<{ hex: string }>('finalizepsbt', [unfinal.psbt])).hex).toBe(got.hex);
  });

  it('the vault: updated by the watch-only vault, signed by cosigner 1 (its wallet) and cosigner 2 (its private descriptor), accepted', async () => {
    const vaultCoins = await call<Unspent[]>('listunspent', [], 'vault');
    expect(vaultCoins).toHaveLength(2);
    const psbt = await call<string>('createpsbt', [vaultCoins.map((c) => ({ txid: c.txid, vout: c.vout })), [{ [s.recipient!]: 3 }, { [s.vaultChange!]: 1.6995 }]]);
    const updated = await call<Processed>('walletprocesspsbt', [psbt, false, 'DEFAULT', true, false], 'vault');
    expect(fields(await decode(updated.psbt))).toBe(fields(await decode((body(rec('walletprocesspsbt', 'vault 2-of-3 inputs, change to the vault')).result as unknown as Processed).psbt)));
    const one = await call<Processed>('walletprocesspsbt', [updated.psbt, true, 'ALL', true, false], 'c1');
    expect(one.complete).toBe(false);
    expect(fields(await decode(one.psbt))).toBe(fields(await decode((body(rec('walletprocesspsbt', 'cosigner 1 signs the vault spend')).result as unknown as Processed).psbt)));
    const c2 = (await call<{ descriptors: Array<{ desc: string; internal?: boolean }> }>('listdescriptors', [true], 'c2')).descriptors.find((d) => d.desc.startsWith('wpkh(') && !d.internal)!;
    const priv = /^wpkh\((tprv[a-zA-Z0-9]+)\/84h\/1h\/0h\/0\/\*\)/.exec(c2.desc)![1]!;
    const vaultDesc = (await call<{ descriptors: Array<{ desc: string; internal?: boolean }> }>('listdescriptors', [], 'vault')).descriptors.find((d) => !d.internal)!.desc;
    const fp = (await call<{ hdmasterfingerprint: string }>('getaddressinfo', [await call<string>('getnewaddress', [], 'c2')], 'c2')).hdmasterfingerprint;
    const withKey = vaultDesc.replace(/#.*$/, '').replace(new RegExp(`\\[${fp}/84h/1h/0h\\]tpub[a-zA-Z0-9]+`), `${priv}/84h/1h/0h`);
    const two = await call<Processed>('descriptorprocesspsbt', [one.psbt, [{ desc: withKey, range: [0, 30] }], 'ALL', true, true]);
    expect(two.complete).toBe(true);
    const [accept] = await call<Array<{ allowed: boolean }>>('testmempoolaccept', [[two.hex]]);
    expect(accept!.allowed).toBe(true);
  });

  it('psbtbumpfee on the watch-only wallet: the recorded payment’s fees exactly, a replacement hot can sign and the mempool takes', async () => {
    const psbt = await spend(['legacy', 'p2sh-segwit', 'bech32', 'bech32m']);
    const sent = await call<Processed>('walletprocesspsbt', [psbt], 'hot');
    const txid = await call<string>('sendrawtransaction', [sent.hex]);
    const low = rec('psbtbumpfee', 'fee_rate too low');
    await expect(call('psbtbumpfee', [txid, { fee_rate: 1 }], 'watch')).rejects.toMatchObject(body(low).error!);
    const r = rec('psbtbumpfee', 'watch-only outgoing, fee_rate 25');
    const got = await call<{ psbt: string; origfee: number; fee: number; errors: unknown[] }>('psbtbumpfee', [txid, { fee_rate: 25 }], 'watch');
    const want = body(r).result as { psbt: string; origfee: number; fee: number; errors: unknown[] };
    expect({ ...got, psbt: undefined }).toEqual({ ...want, psbt: undefined });
    expect(Object.keys(got)).toEqual(Object.keys(want));
    const [dg, dw] = [await decode(got.psbt), await decode(want.psbt)];
    expect(fields(dg)).toBe(fields(dw));
    expect(dg.fee).toBe(dw.fee);
    const signed = await call<Processed>('walletprocesspsbt', [got.psbt], 'hot');
    expect(signed.complete).toBe(true);
    const replacement = await call<string>('sendrawtransaction', [signed.hex]);
    expect(await call<string[]>('getrawmempool')).toContain(replacement);
    expect(await call<string[]>('getrawmempool')).not.toContain(txid);
    await expect(call('psbtbumpfee', ['00'.repeat(32)], 'watch')).rejects.toMatchObject({ code: -5, message: 'Invalid or non-wallet transaction id' });
  });
});
