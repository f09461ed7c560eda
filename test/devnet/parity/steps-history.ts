/**
 * The wallet history phase, after the wallet phase (steps-wallet.ts) left `hot` with a received
 * taproot coin it then sent whole, coins of every kind, change, and an immature coinbase, and
 * `watch` following the same descriptors: the transaction and balance methods (gettransaction,
 * listtransactions, listsinceblock, getbalances, getbalance, getreceivedbyaddress,
 * getreceivedbylabel, listlabels), then rescans (rescanblockchain, abortrescan, importdescriptors
 * with a past timestamp into a new watch-only wallet). Keys differ between the nodes: tokens are
 * matched one to one (compare.ts).
 */
import { addChecksum } from '../../../shared/bitcoin/descriptor-checksum';
import { FIXED_TPRV, MINER, OTHER_MINER, spendMiner } from './keys';
import { COINBASE } from './steps-chain';
import { call, type Step, type Vars } from './run';

const HASH0 = '00'.repeat(32);
/** listsinceblock walks mapWallet, a salted hash map: its order differs between two runs of Core itself. */
const UNORDERED: Record<string, Pick<Step, 'unordered'>> = {
  listsinceblock: { unordered: ['body.result.transactions'] },
  listreceivedbyaddress: { unordered: ['body.result', 'body.result[].txids'] },
  listunspent: { unordered: ['body.result'] },
};
const save = (key: string) => (v: Vars, result: unknown): void => {
  if (result === null) throw new Error(`${key}: no result`);
  v[key] = result;
};

export function historySteps(): Step[] {
  const s: Step[] = [];
  const w = (name: string, method: string, wallet: string, params: unknown[] | ((v: Vars) => unknown[]) = [], opts: { save?: Step['save'] } = {}): void => {
    s.push(call(name, method, params, { wallet, ...UNORDERED[method], ...opts }));
  };
  w('listtransactions hot, all (remembers the coinbase)', 'listtransactions', 'hot', ['*', 100], {
    save: (v, r) => void (v.hotCoinbase = ((r as Array<{ category: string; txid: string }>) ?? []).find((e) => e.category === 'immature')?.txid),
  });
  // gettransaction: a receive, a send, several outputs of ours, an immature coinbase.
  for (const wallet of ['hot', 'watch']) {
    w(`gettransaction ${wallet}: the funding (received)`, 'gettransaction', wallet, (v) => [v.fund1]);
    w(`gettransaction ${wallet}: the send (all of it)`, 'gettransaction', wallet, (v) => [v.send1]);
    w(`gettransaction ${wallet}: the send, verbose`, 'gettransaction', wallet, (v) => [v.send1, true, true]);
  }
  w('gettransaction hot: the immature coinbase', 'gettransaction', 'hot', (v) => [v.hotCoinbase]);
  w('gettransaction watch: the coinbase (watch has hot’s descriptors)', 'gettransaction', 'watch', (v) => [v.hotCoinbase]);
  for (const [what, p] of [['not a wallet transaction', [HASH0]], ['bad txid', ['xyz']], ['no txid', []], ['txid as a number', [5]]] as const) {
    w(`gettransaction: ${what}`, 'gettransaction', 'hot', [...p]);
  }
  w('gettransaction: the send, in a wallet without it (blank)', 'gettransaction', 'blank', (v) => [v.send1]);

  // listtransactions: windows, labels, errors.
  for (const [what, p] of [
    ['defaults', []],
    ['count 3', ['*', 3]],
    ['count 2 skip 1', ['*', 2, 1]],
    ['skip past the end', ['*', 10, 100]],
    ['count 0', ['*', 0]],
    ['a label', ['bech32m label']],
    ['a label without transactions', ['only a label']],
    ['an unknown label', ['nobody']],
    ['negative count', ['*', -1]],
    ['negative skip', ['*', 1, -1]],
    ['empty label', ['']],
    ['count as a string', ['*', '3']],
  ] as const) {
    w(`listtransactions hot: ${what}`, 'listtransactions', 'hot', [...p]);
  }
  w('listtransactions watch', 'listtransactions', 'watch', ['*', 100]);
  w('listtransactions blank (none)', 'listtransactions', 'blank');

  // listsinceblock.
  for (const [what, p] of [
    ['everything', []],
    ['since the funding block', (v: Vars) => [(v.fundBlock as string[])[0]]],
    ['since the send’s block, target 3', (v: Vars) => [(v.sendBlock as string[])[0], 3]],
    ['empty block hash, change included', ['', 1, false, true, true]],
    ['without removed', (v: Vars) => [(v.fundBlock as string[])[0], 1, false, false]],
    ['a label', ['', 1, false, true, false, 'bech32m label']],
    ['target beyond the chain', ['', 100000]],
    ['unknown block', [HASH0]],
    ['bad hash', ['xyz']],
    ['target 0', ['', 0]],
    ['label *', ['', 1, false, true, false, '*']],
  ] as const) {
    w(`listsinceblock hot: ${what}`, 'listsinceblock', 'hot', p as unknown[] | ((v: Vars) => unknown[]));
  }
  w('listsinceblock watch', 'listsinceblock', 'watch');

  // Balances.
  for (const wallet of ['hot', 'watch', 'blank']) w(`getbalances ${wallet}`, 'getbalances', wallet);
  w('getbalances: an argument', 'getbalances', 'hot', [1]);
  for (const [what, p] of [['defaults', []], ['*', ['*']], ['minconf 1', ['*', 1]], ['minconf 5', ['*', 5]], ['dummy not *', ['x']], ['minconf as a string', ['*', '1']]] as const) {
    w(`getbalance hot: ${what}`, 'getbalance', 'hot', [...p]);
  }
  w('getbalance watch', 'getbalance', 'watch');

  // Received by address and label.
  for (const t of ['bech32m', 'bech32', 'legacy', 'p2sh-segwit'] as const) {
    w(`getreceivedbyaddress hot ${t}`, 'getreceivedbyaddress', 'hot', (v) => [v[`hot_${t}`]]);
  }
  w('getreceivedbyaddress hot: the default address (coinbase), immature included', 'getreceivedbyaddress', 'hot', (v) => [v.hotDefault, 1, true]);
  w('getreceivedbyaddress hot: the default address (coinbase), immature excluded', 'getreceivedbyaddress', 'hot', (v) => [v.hotDefault]);
  w('getreceivedbyaddress hot: minconf 3', 'getreceivedbyaddress', 'hot', (v) => [v.hot_bech32m, 3]);
  w('getreceivedbyaddress watch: hot’s address', 'getreceivedbyaddress', 'watch', (v) => [v.hot_bech32m, 0]);
  w('getreceivedbyaddress: not the wallet’s', 'getreceivedbyaddress', 'hot', [MINER.address]);
  w('getreceivedbyaddress: invalid', 'getreceivedbyaddress', 'hot', ['nope']);
  w('getreceivedbyaddress: no address', 'getreceivedbyaddress', 'hot', []);
  for (const [what, p] of [['a label', ['legacy label']], ['minconf 0', ['bech32m label', 0]], ['an unknown label', ['nobody']], ['*', ['*']], ['no label', []]] as const) {
    w(`getreceivedbylabel hot: ${what}`, 'getreceivedbylabel', 'hot', [...p]);
  }
  for (const [what, p] of [['all', []], ['receive', ['receive']], ['send', ['send']], ['empty purpose', ['']], ['unknown purpose', ['gift']]] as const) {
    w(`listlabels hot: ${what}`, 'listlabels', 'hot', [...p]);
  }
  w('listlabels watch', 'listlabels', 'watch');

  // Rescans: a new watch-only wallet imports hot's bech32m descriptor with a past timestamp.
  s.push(call('createwallet late (watch-only, blank)', 'createwallet', ['late', true, true]));
  w('importdescriptors late ← hot’s bech32m receive descriptor, timestamp 0 (rescans)', 'importdescriptors', 'late', (v) => {
    const d = (v.hotDescriptors as { descriptors: Array<{ desc: string; internal: boolean }> }).descriptors.find((x) => x.desc.startsWith('tr(') && !x.internal)!;
    return [[{ desc: d.desc, timestamp: 0, active: true, range: [0, 10] }]];
  });
  w('listtransactions late after the rescan', 'listtransactions', 'late', ['*', 100]);
  w('gettransaction late: the funding', 'gettransaction', 'late', (v) => [v.fund1]);
  w('getbalances late', 'getbalances', 'late');
  w('listreceivedbyaddress late, include_empty', 'listreceivedbyaddress', 'late', [0, true]);
  w('getnewaddress late (after the highest used index)', 'getnewaddress', 'late', ['', 'bech32m']);
  w('getwalletinfo late', 'getwalletinfo', 'late');
  for (const [what, p] of [['from 100', [100]], ['from 100 to 102', [100, 102]], ['everything', []]] as const) w(`rescanblockchain late ${what}`, 'rescanblockchain', 'late', [...p]);
  for (const [what, p] of [['start beyond the tip', [100000]], ['negative start', [-1]], ['stop beyond the tip', [0, 100000]], ['stop before start', [5, 2]], ['start as a string', ['1']]] as const) {
    w(`rescanblockchain: ${what}`, 'rescanblockchain', 'late', [...p]);
  }
  w('abortrescan (nothing to abort)', 'abortrescan', 'late');
  w('abortrescan: an argument', 'abortrescan', 'late', [1]);
  s.push(call('abortrescan: several wallets loaded, none named', 'abortrescan'));
  w('getwalletinfo late after the rescans', 'getwalletinfo', 'late');

  // Payments to a ranged descriptor beyond the addresses handed out: the gap enters the address book.
  w('deriveaddresses hot’s bech32 receive descriptor, index 12', 'deriveaddresses', 'hot', (v) => {
    const d = (v.hotDescriptors as { descriptors: Array<{ desc: string; internal: boolean }> }).descriptors.find((x) => x.desc.startsWith('wpkh(') && !x.internal)!;
    return [d.desc, [12, 12]];
  }, { save: (v, r) => void (v.far = (r as string[])[0]) });
  // Paid by the test's miner (a wallet's own send would put its change at a random position).
  s.push(call('getblock 7 (a coinbase to pay from)', 'getblock', (v) => [v.blocks[7]], { strict: true, save: (v, r) => void (v.cb[7] = (r as { tx: string[] }).tx[0]) }));
  s.push(call('sendrawtransaction: 0.001 BTC to hot’s index 12 (not handed out yet)', 'sendrawtransaction', (v) => [spendMiner([{ txid: v.cb[7], vout: 0, value: COINBASE }], [{ address: v.far, value: 100_000n }, { address: MINER.address, value: 4_999_890_000n }]).hex], { save: save('farTx') }));
  s.push(call('syncwithvalidationinterfacequeue after the payment to index 12', 'syncwithvalidationinterfacequeue'));
  w('listreceivedbyaddress hot, minconf 0, include_empty', 'listreceivedbyaddress', 'hot', [0, true]);
  w('listunspent hot, minconf 0, index 12', 'listunspent', 'hot', (v) => [0, 9999999, [v.far]]);
  w('getnewaddress hot bech32 (continues after index 12)', 'getnewaddress', 'hot', ['', 'bech32']);
  // The watch-only wallet imported the same descriptors, active: the gap shows there too.
  w('listreceivedbyaddress watch, minconf 0, include_empty (imported descriptor paid at index 12)', 'listreceivedbyaddress', 'watch', [0, true]);
  w('listunspent watch, minconf 0, index 12', 'listunspent', 'watch', (v) => [0, 9999999, [v.far]]);
  w('getaddressinfo watch: index 12', 'getaddressinfo', 'watch', (v) => [v.far]);
  w('getnewaddress watch bech32 (continues after index 12)', 'getnewaddress', 'watch', ['', 'bech32']);
  w('getwalletinfo watch after the gap', 'getwalletinfo', 'watch');
  w('gettransaction hot: the payment to itself', 'gettransaction', 'hot', (v) => [v.farTx]);
  w('listtransactions hot, the last 3', 'listtransactions', 'hot', ['*', 3]);
  w('getbalances hot, a payment to itself pending', 'getbalances', 'hot');
  s.push(call('generatetoaddress 1 (confirms it)', 'generatetoaddress', [1, OTHER_MINER.address]));
  s.push(call('syncwithvalidationinterfacequeue after the block', 'syncwithvalidationinterfacequeue'));
  w('getbalances hot after the block', 'getbalances', 'hot');
  w('listsinceblock hot after the block, target 2', 'listsinceblock', 'hot', ['', 2]);

  // Fee bumping, on a wallet with a single coin and a fixed private key: its payment is built with the
  // change position given (Core's sendtoaddress draws it at random) and signed as Core signs (RFC 6979,
  // ground to a low R), so both nodes hold the same bytes. With Core's random keys a 70-byte signature
  // now and then made the original one vbyte smaller, and the default bump rate (from the original's
  // fee rate) a few sats apart.
  s.push(call('createwallet bumper (keys, blank)', 'createwallet', { wallet_name: 'bumper', blank: true }));
  s.push(call('importdescriptors bumper ← a fixed private key', 'importdescriptors', [[false, true].map((internal) => ({ desc: addChecksum(`wpkh(${FIXED_TPRV}/84h/1h/7h/${internal ? 1 : 0}/*)`), active: true, internal, range: [0, 5], timestamp: 'now' }))], { wallet: 'bumper' }));
  w('getnewaddress bumper', 'getnewaddress', 'bumper', [], { save: save('bumperAddr') });
  s.push(call('getblock 10 (a coinbase for the bumper)', 'getblock', (v) => [v.blocks[10]], { strict: true, save: (v, r) => void (v.cb[10] = (r as { tx: string[] }).tx[0]) }));
  s.push(call('sendrawtransaction: 1 BTC to the bumper', 'sendrawtransaction', (v) => [spendMiner([{ txid: v.cb[10], vout: 0, value: COINBASE }], [{ address: v.bumperAddr, value: 100_000_000n }, { address: MINER.address, value: 4_899_990_000n }]).hex], { save: save('bumperCoin') }));
  s.push(call('generatetoaddress 1 (confirms the bumper’s coin)', 'generatetoaddress', [1, OTHER_MINER.address]));
  s.push(call('syncwithvalidationinterfacequeue after the bumper’s coin', 'syncwithvalidationinterfacequeue'));
  for (const mode of ['economical', 'conservative']) s.push(call(`estimatesmartfee 6 ${mode} before the bumper's send`, 'estimatesmartfee', [6, mode]));
  w('walletcreatefundedpsbt bumper: 0.4 BTC, change second', 'walletcreatefundedpsbt', 'bumper', (v) => [[{ txid: v.bumperCoin, vout: 0 }], [{ [OTHER_MINER.address]: 0.4 }], 0, { add_inputs: false, changePosition: 1, fee_rate: 12 }], {
    save: save('bumperPsbt'),
  });
  w('walletprocesspsbt bumper: signed', 'walletprocesspsbt', 'bumper', (v) => [(v.bumperPsbt as { psbt: string }).psbt], { save: save('bumperSigned') });
  s.push(call('sendrawtransaction: the bumper’s payment', 'sendrawtransaction', (v) => [(v.bumperSigned as { hex: string }).hex], { save: save('toBump') }));
  s.push(call('syncwithvalidationinterfacequeue after the bumper’s payment', 'syncwithvalidationinterfacequeue'));
  w('bumpfee: a confirmed transaction', 'bumpfee', 'hot', (v) => [v.fund1]);
  w('bumpfee: not a wallet transaction', 'bumpfee', 'bumper', [HASH0]);
  w('bumpfee: bad txid', 'bumpfee', 'bumper', ['xyz']);
  w('bumpfee: inputs of another wallet', 'bumpfee', 'hot', (v) => [v.farTx]);
  w('bumpfee: fee_rate and conf_target', 'bumpfee', 'bumper', (v) => [v.toBump, { fee_rate: 10, conf_target: 2 }]);
  w('bumpfee: fee_rate and estimate_mode', 'bumpfee', 'bumper', (v) => [v.toBump, { fee_rate: 10, estimate_mode: 'economical' }]);
  w('bumpfee: an unknown option', 'bumpfee', 'bumper', (v) => [v.toBump, { speed: 1 }]);
  w('bumpfee: fee_rate too low', 'bumpfee', 'bumper', (v) => [v.toBump, { fee_rate: 1 }]);
  w('bumpfee: fee_rate below the minimum relay fee', 'bumpfee', 'bumper', (v) => [v.toBump, { fee_rate: 0.05 }]);
  w('bumpfee: watch-only wallet', 'bumpfee', 'watch', (v) => [v.toBump]);
  w('bumpfee: watch-only wallet, bad txid', 'bumpfee', 'watch', ['xyz']);
  w('bumpfee bumper (default fee)', 'bumpfee', 'bumper', (v) => [v.toBump], { save: (v, r) => void (v.bumped = (r as { txid: string }).txid) });
  w('bumpfee: already bumped', 'bumpfee', 'bumper', (v) => [v.toBump]);
  w('bumpfee bumper again, fee_rate 30', 'bumpfee', 'bumper', (v) => [v.bumped, { fee_rate: 30 }]);
  s.push(call('getmempoolinfo with the bumps', 'getmempoolinfo'));
  w('getbalances bumper after the bumps', 'getbalances', 'bumper');
  return s;
}
