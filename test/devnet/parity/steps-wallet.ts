/**
 * The wallet phase: Core's wallets draw random keys, so addresses, descriptors, scripts and the txids
 * and blocks they reach differ — matched one to one (compare.ts); everything else must be equal.
 * Funding comes from the test's own miner key, so no Core coin selection or change position is
 * involved; the one wallet send spends the wallet's only coin whole (subtractfeefromamount), with
 * the clock 9 hours past the tip, where Core's anti-fee-sniping leaves the locktime at 0.
 */
import { MINER, OTHER_MINER, spendMiner } from './keys';
import { call, type Step, type Vars } from './run';
import { COINBASE, T0 } from './steps-chain';

const TYPES = ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'] as const;
const at = (wallet: string) => ({ wallet });
const save = (key: string) => (v: Vars, result: unknown): void => {
  if (result === null) throw new Error(`${key}: no result`);
  v[key] = result;
};

/** A miner coinbase the chain phase left unspent and mature (heights 3 and up), one per funding. */
const coinbaseAt = (v: Vars, height: number) => ({ txid: v.cb[height] as string, vout: 0, value: COINBASE });

/** Orders Core does not fix between runs (compare.ts), and the rules it keeps within one run. */
const ORDERLESS: Record<string, Pick<Step, 'unordered' | 'check'>> = {
  listunspent: { unordered: ['body.result'] },
  listreceivedbyaddress: { unordered: ['body.result', 'body.result[].txids'] },
  listdescriptors: {
    unordered: ['body.result.descriptors'],
    check: (r) => {
      const descs = ((r as { descriptors?: Array<{ desc: string }> } | null)?.descriptors ?? []).map((d) => d.desc);
      return descs.every((d, i) => i === 0 || descs[i - 1]! < d) ? null : 'descriptors not sorted by their text';
    },
  },
};

export function walletSteps(): Step[] {
  const s: Step[] = [];
  /** Core tells its wallets about new transactions and blocks asynchronously: wait for them (also asked of the devnet). */
  const synced = (after: string): void => void s.push(call(`syncwithvalidationinterfacequeue after ${after}`, 'syncwithvalidationinterfacequeue'));
  const w = (name: string, method: string, wallet: string, params: unknown[] | ((v: Vars) => unknown[]) = [], opts: { save?: Step['save'] } = {}): void => {
    s.push(call(name, method, params, { ...at(wallet), ...ORDERLESS[method], ...opts }));
  };
  // Coinbases to fund from: remember them now (the chain phase mined to MINER up to height 101).
  for (const h of [5, 6]) s.push(call(`getblock ${h} (a coinbase to fund from)`, 'getblock', (v) => [v.blocks[h]], { strict: true, save: (v, r) => void (v.cb[h] = (r as { tx: string[] }).tx[0]) }));

  // Creating wallets.
  s.push(call('createwallet hot', 'createwallet', ['hot']));
  s.push(call('createwallet watch (no private keys, blank)', 'createwallet', ['watch', true, true]));
  s.push(call('createwallet blank (keys, blank)', 'createwallet', { wallet_name: 'blank', blank: true }));
  s.push(call('createwallet other, load_on_startup false', 'createwallet', { wallet_name: 'other', load_on_startup: false }));
  s.push(call('createwallet: the name exists', 'createwallet', ['hot']));
  s.push(call('createwallet: legacy', 'createwallet', ['legacy', false, false, '', false, false]));
  s.push(call('createwallet: no name', 'createwallet', []));
  s.push(call('createwallet: name as a number', 'createwallet', [5]));
  s.push(call('listwallets', 'listwallets'));
  for (const name of ['hot', 'watch', 'blank', 'other']) w(`getwalletinfo ${name}`, 'getwalletinfo', name);
  s.push(call('getwalletinfo: several wallets loaded, none named', 'getwalletinfo'));
  s.push(call('getwalletinfo: an argument', 'getwalletinfo', [1], at('hot')));

  // Descriptors and addresses.
  w('listdescriptors hot', 'listdescriptors', 'hot', [], { save: save('hotDescriptors') });
  w('listdescriptors hot, private', 'listdescriptors', 'hot', [true]);
  w('listdescriptors watch (empty)', 'listdescriptors', 'watch');
  w('listdescriptors watch, private', 'listdescriptors', 'watch', [true]);
  w('listdescriptors blank', 'listdescriptors', 'blank');
  w('getnewaddress hot (default)', 'getnewaddress', 'hot', [], { save: save('hotDefault') });
  for (const t of TYPES) w(`getnewaddress hot ${t}, labelled`, 'getnewaddress', 'hot', [`${t} label`, t], { save: save(`hot_${t}`) });
  w('getnewaddress hot, label only', 'getnewaddress', 'hot', ['only a label']);
  w('getnewaddress: unknown type', 'getnewaddress', 'hot', ['', 'p2pk']);
  w('getnewaddress: label *', 'getnewaddress', 'hot', ['*']);
  w('getnewaddress: label as a number', 'getnewaddress', 'hot', [5]);
  w('getnewaddress: no keys (watch)', 'getnewaddress', 'watch');
  w('getnewaddress: blank wallet', 'getnewaddress', 'blank');
  for (const t of TYPES) w(`getrawchangeaddress hot ${t}`, 'getrawchangeaddress', 'hot', [t], { save: save(`change_${t}`) });
  w('getrawchangeaddress hot (default)', 'getrawchangeaddress', 'hot');
  w('getrawchangeaddress: unknown type', 'getrawchangeaddress', 'hot', ['x']);
  w('getrawchangeaddress: no keys (watch)', 'getrawchangeaddress', 'watch');
  for (const t of TYPES) w(`getaddressinfo hot ${t}`, 'getaddressinfo', 'hot', (v) => [v[`hot_${t}`]]);
  w('getaddressinfo hot change', 'getaddressinfo', 'hot', (v) => [v.change_bech32]);
  w('getaddressinfo: the miner (not the wallet’s)', 'getaddressinfo', 'hot', [MINER.address]);
  w('getaddressinfo: hot’s address on watch, before the import', 'getaddressinfo', 'watch', (v) => [v.hot_bech32]);
  for (const [what, p] of [['invalid', ['nope']], ['mainnet', ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq']], ['no address', []], ['a number', [5]]] as const) {
    w(`getaddressinfo: ${what}`, 'getaddressinfo', 'hot', [...p]);
  }

  // The watch-only wallet imports hot's public descriptors (timestamp 0: rescan), and an addr().
  const hotDescs = (v: Vars): Array<Record<string, unknown>> => (v.hotDescriptors as { descriptors: Array<{ desc: string; active: boolean; internal: boolean; range: [number, number] }> }).descriptors.map((d) => ({ desc: d.desc, active: d.active, internal: d.internal, range: d.range, timestamp: 0 }));
  w('importdescriptors watch ← hot’s descriptors', 'importdescriptors', 'watch', (v) => [hotDescs(v)]);
  w('getdescriptorinfo addr(miner)', 'getdescriptorinfo', 'watch', [`addr(${MINER.address})`], { save: save('minerDesc') });
  w('importdescriptors watch ← addr(miner), labelled', 'importdescriptors', 'watch', (v) => [[{ desc: (v.minerDesc as { descriptor: string }).descriptor, timestamp: 'now', label: 'miner' }]]);
  const bad: Array<[string, (v: Vars) => unknown]> = [
    ['no timestamp', (v) => ({ desc: (v.minerDesc as { descriptor: string }).descriptor })],
    ['no checksum', () => ({ desc: `addr(${MINER.address})`, timestamp: 0 })],
    ['bad checksum', () => ({ desc: `addr(${MINER.address})#aaaaaaaa`, timestamp: 0 })],
    ['range on an unranged one', (v) => ({ desc: (v.minerDesc as { descriptor: string }).descriptor, timestamp: 0, range: 5 })],
    ['active unranged', (v) => ({ desc: (v.minerDesc as { descriptor: string }).descriptor, timestamp: 0, active: true })],
    ['label on a ranged one', (v) => ({ ...hotDescs(v)[0], label: 'x' })],
    ['range backwards', (v) => ({ ...hotDescs(v)[0], range: [5, 1] })],
    ['negative range', (v) => ({ ...hotDescs(v)[0], range: -1 })],
    ['timestamp as a string', (v) => ({ desc: (v.minerDesc as { descriptor: string }).descriptor, timestamp: 'yesterday' })],
    ['not an object', () => 5],
  ];
  for (const [what, d] of bad) w(`importdescriptors: ${what}`, 'importdescriptors', 'watch', (v) => [[d(v)]]);
  w('importdescriptors: not an array', 'importdescriptors', 'watch', [{}]);
  w('importdescriptors: public keys into a wallet with keys', 'importdescriptors', 'blank', (v) => [hotDescs(v).slice(0, 1)]);
  w('listdescriptors watch, after the import', 'listdescriptors', 'watch');
  w('getwalletinfo watch, after the import', 'getwalletinfo', 'watch');
  for (const t of TYPES) w(`getaddressinfo watch: hot’s ${t}`, 'getaddressinfo', 'watch', (v) => [v[`hot_${t}`]]);
  w('getaddressinfo watch: the addr() import', 'getaddressinfo', 'watch', [MINER.address]);
  w('deriveaddresses hot’s bech32m descriptor 0–2', 'deriveaddresses', 'hot', (v) => [hotDescs(v).find((d) => String(d.desc).startsWith('tr('))!.desc, [0, 2]]);
  w('getdescriptorinfo hot’s wpkh descriptor', 'getdescriptorinfo', 'hot', (v) => [hotDescs(v).find((d) => String(d.desc).startsWith('wpkh('))!.desc]);

  // Labels.
  w('setlabel hot: its own address', 'setlabel', 'hot', (v) => [v.hot_bech32, 'renamed']);
  w('setlabel hot: a foreign address', 'setlabel', 'hot', [OTHER_MINER.address, 'someone else']);
  w('setlabel: label *', 'setlabel', 'hot', (v) => [v.hot_bech32, '*']);
  w('setlabel: invalid address', 'setlabel', 'hot', ['nope', 'x']);
  w('setlabel: no label', 'setlabel', 'hot', (v) => [v.hot_bech32]);
  w('getaddressinfo hot: relabelled', 'getaddressinfo', 'hot', (v) => [v.hot_bech32]);

  // Funding hot with one taproot coin (signed by the test; same size on both nodes), then a block.
  s.push(call('sendrawtransaction: 1.25 BTC to hot’s bech32m', 'sendrawtransaction', (v) => [spendMiner([coinbaseAt(v, 5)], [{ address: v.hot_bech32m, value: 125_000_000n }, { address: MINER.address, value: 4_874_990_000n }]).hex], { save: save('fund1') }));
  synced('sendrawtransaction: 1.25 BTC to hot’s bech32m');
  w('listunspent hot, unconfirmed', 'listunspent', 'hot', [0]);
  w('listreceivedbyaddress hot, minconf 0', 'listreceivedbyaddress', 'hot', [0]);
  w('getwalletinfo hot, a transaction in the mempool', 'getwalletinfo', 'hot');
  s.push(call('getmempoolentry: the funding', 'getmempoolentry', (v) => [v.fund1]));
  s.push(call('generatetoaddress 1 (confirms the funding)', 'generatetoaddress', [1, OTHER_MINER.address], { save: save('fundBlock') }));
  synced('generatetoaddress 1 (confirms the funding)');
  for (const [name, p] of [['defaults', []], ['minconf 0 maxconf 0', [0, 0]], ['by address', (v: Vars) => [1, 9999999, [v.hot_bech32m]]], ['unknown address', (v: Vars) => [1, 9999999, [v.hot_bech32]]]] as const) {
    w(`listunspent hot: ${name}`, 'listunspent', 'hot', p as unknown[] | ((v: Vars) => unknown[]));
  }
  w('listunspent watch', 'listunspent', 'watch');
  w('listunspent: invalid address', 'listunspent', 'hot', [1, 9999999, ['nope']]);
  w('listunspent: an address twice', 'listunspent', 'hot', (v) => [1, 9999999, [v.hot_bech32m, v.hot_bech32m]]);
  w('listunspent: minconf as a string', 'listunspent', 'hot', ['1']);
  for (const [name, p] of [['defaults', []], ['include_empty', [1, true]], ['filtered', (v: Vars) => [0, true, true, v.hot_bech32m]], ['filter not the wallet’s', [0, true, true, MINER.address]]] as const) {
    w(`listreceivedbyaddress hot: ${name}`, 'listreceivedbyaddress', 'hot', p as unknown[] | ((v: Vars) => unknown[]));
  }
  w('listreceivedbyaddress watch, include_empty', 'listreceivedbyaddress', 'watch', [0, true]);
  w('listreceivedbyaddress: invalid filter', 'listreceivedbyaddress', 'hot', [0, true, true, 'nope']);
  w('listreceivedbyaddress: minconf as a string', 'listreceivedbyaddress', 'hot', ['0']);
  w('getwalletinfo hot, funded', 'getwalletinfo', 'hot');
  w('getwalletinfo watch, funded', 'getwalletinfo', 'watch');

  // Sending: hot's only coin, whole, to a fixed address.
  s.push(call('setmocktime 9 h after the tip', 'setmocktime', [T0 + 3600 + 9 * 3600]));
  w('sendtoaddress hot: the whole coin, fee from the amount', 'sendtoaddress', 'hot', [OTHER_MINER.address, 1.25, '', '', true], { save: save('send1') });
  synced('the send');
  w('sendtoaddress: insufficient funds', 'sendtoaddress', 'hot', [OTHER_MINER.address, 1]);
  w('sendtoaddress: watch-only wallet', 'sendtoaddress', 'watch', [OTHER_MINER.address, 0.1]);
  for (const [what, p] of [['amount 0', [OTHER_MINER.address, 0]], ['negative amount', [OTHER_MINER.address, -1]], ['amount as words', [OTHER_MINER.address, 'one']], ['invalid address', ['nope', 0.1]], ['no amount', [OTHER_MINER.address]], ['too many decimals', [OTHER_MINER.address, 0.000000001]]] as const) {
    w(`sendtoaddress: ${what}`, 'sendtoaddress', 'hot', [...p]);
  }
  s.push(call('getrawtransaction: the send', 'getrawtransaction', (v) => [v.send1, 1]));
  s.push(call('getmempoolentry: the send', 'getmempoolentry', (v) => [v.send1]));
  w('listunspent hot after the send', 'listunspent', 'hot', [0]);
  w('getwalletinfo hot after the send', 'getwalletinfo', 'hot');
  s.push(call('generatetoaddress 1 (confirms the send)', 'generatetoaddress', [1, OTHER_MINER.address], { save: save('sendBlock') }));
  synced('generatetoaddress 1 (confirms the send)');
  s.push(call('getblock: the send’s block, verbosity 2', 'getblock', (v) => [(v.sendBlock as string[])[0], 2]));
  s.push(call('getblockchaininfo after the wallet blocks', 'getblockchaininfo'));

  // More coins of every kind, and a coinbase to the wallet.
  s.push(call('sendrawtransaction: every address kind to hot', 'sendrawtransaction', (v) => [spendMiner([coinbaseAt(v, 6)], [...TYPES.map((t, i) => ({ address: v[`hot_${t}`] as string, value: 10_000_000n * BigInt(i + 1) })), { address: v.change_bech32 as string, value: 5_000_000n }, { address: MINER.address, value: 4_894_990_000n }]).hex]));
  synced('sendrawtransaction: every address kind to hot');
  s.push(call('generatetoaddress 1 to hot', 'generatetoaddress', (v) => [1, v.hotDefault]));
  synced('generatetoaddress 1 to hot');
  w('listunspent hot, every kind', 'listunspent', 'hot', [0]);
  w('listunspent watch, every kind', 'listunspent', 'watch', [0]);
  for (const p of [[0], [0, true], [1, false, true, null, true]]) w(`listreceivedbyaddress hot ${JSON.stringify(p)}`, 'listreceivedbyaddress', 'hot', p);
  w('listreceivedbyaddress watch', 'listreceivedbyaddress', 'watch', [0, true]);
  w('getwalletinfo hot, with an immature coinbase', 'getwalletinfo', 'hot');

  // Loading and unloading.
  s.push(call('unloadwallet blank', 'unloadwallet', ['blank']));
  s.push(call('listwallets without blank', 'listwallets'));
  s.push(call('unloadwallet: not loaded', 'unloadwallet', ['blank']));
  s.push(call('loadwallet blank', 'loadwallet', ['blank']));
  s.push(call('loadwallet: already loaded', 'loadwallet', ['blank']));
  s.push(call('loadwallet: no such wallet', 'loadwallet', ['nope']));
  s.push(call('unloadwallet: by its path', 'unloadwallet', [], at('other')));
  s.push(call('unloadwallet: path and name disagree', 'unloadwallet', ['hot'], at('watch')));
  s.push(call('unloadwallet: several loaded, none named', 'unloadwallet'));
  s.push(call('listwallets at the end', 'listwallets'));
  // The wallets directory: loaded and unloaded wallets alike, in directory order (not compared).
  s.push(call('listwalletdir', 'listwalletdir', [], { unordered: ['body.result.wallets'] }));
  s.push(call('listwalletdir: an argument', 'listwalletdir', [1]));
  return s;
}
