/**
 * The wallet PSBT phase, strict: both nodes get the same keys — a blank wallet `pk` importing private
 * descriptors of the fixed BIP32 key (keys.ts), and a watch-only `pw` importing pk's public ones —
 * and the same coins (a miner coinbase paid to pk's four address kinds), so every reply must be
 * byte-identical: walletprocesspsbt filling (pw) and signing (pk: ECDSA ground to a low R, Schnorr
 * with aux zero), descriptorprocesspsbt with public and private descriptors, utxoupdatepsbt with the
 * wallet's descriptors, walletcreatefundedpsbt with coin control (the change position given, or no
 * change), psbtbumpfee of a payment to pk's own change (one output: Core's random change position
 * plays no part), and the refusals of each.
 */
import { addChecksum } from '../../../shared/bitcoin/descriptor-checksum';
import type { CoreVersion } from '../../../devnet/core-version';
import { FIXED_TPRV, MINER, OTHER_MINER, spendMiner } from './keys';
import { call, strict, type Step, type Vars } from './run';
import { COINBASE } from './steps-chain';

const TYPES = ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'] as const;
const WRAP: Record<(typeof TYPES)[number], [number, (k: string) => string]> = {
  legacy: [44, (k) => `pkh(${k})`],
  'p2sh-segwit': [49, (k) => `sh(wpkh(${k}))`],
  bech32: [84, (k) => `wpkh(${k})`],
  bech32m: [86, (k) => `tr(${k})`],
};
const HASH0 = '00'.repeat(32);

/** pk's descriptors with the private key (receive and change of each kind). */
function privateDescriptors(): Array<{ desc: string; active: boolean; internal: boolean; range: [number, number]; timestamp: 'now' }> {
  return TYPES.flatMap((t) =>
    [false, true].map((internal) => {
      const [purpose, wrap] = WRAP[t];
      return { desc: addChecksum(wrap(`${FIXED_TPRV}/${purpose}h/1h/0h/${internal ? 1 : 0}/*`)), active: true, internal, range: [0, 20] as [number, number], timestamp: 'now' as const };
    }),
  );
}

export function walletPsbtSteps(generation: CoreVersion): Step[] {
  const s: Step[] = [];
  const save = (key: string) => (v: Vars, r: unknown): void => void (v[key] = r);
  const at = (wallet: string) => ({ wallet });
  const synced = (after: string): void => void s.push(call(`syncwithvalidationinterfacequeue after ${after}`, 'syncwithvalidationinterfacequeue'));
  const current = generation !== '30';

  for (const h of [14, 15]) s.push(strict(`getblock ${h} (a coinbase for pk)`, 'getblock', (v) => [v.blocks[h]], { save: (v, r) => void (v.cb[h] = (r as { tx: string[] }).tx[0]) }));
  s.push(call('createwallet pk (keys, blank)', 'createwallet', { wallet_name: 'pk', blank: true }));
  s.push(call('createwallet pw (watch-only, blank)', 'createwallet', ['pw', true, true]));
  s.push(strict('importdescriptors pk ← the fixed key’s private descriptors', 'importdescriptors', [privateDescriptors()], at('pk')));
  s.push(strict('listdescriptors pk', 'listdescriptors', [], { ...at('pk'), save: save('pkDescs') }));
  const publicDescs = (v: Vars): Array<Record<string, unknown>> =>
    ((v.pkDescs as { descriptors?: Array<{ desc: string; internal: boolean; range: [number, number] }> } | null)?.descriptors ?? []).map((d) => ({ desc: d.desc, active: true, internal: d.internal, range: d.range, timestamp: 'now' }));
  s.push(strict('importdescriptors pw ← pk’s public descriptors', 'importdescriptors', (v) => [publicDescs(v)], at('pw')));
  for (const t of TYPES) s.push(strict(`getnewaddress pk ${t}`, 'getnewaddress', ['', t], { ...at('pk'), save: save(`pk_${t}`) }));
  s.push(strict('getrawchangeaddress pk bech32', 'getrawchangeaddress', ['bech32'], { ...at('pk'), save: save('pkChange') }));
  s.push(
    strict('sendrawtransaction: 0.5 BTC to each of pk’s kinds, 0.3 to its change', 'sendrawtransaction', (v) => [
      spendMiner([{ txid: v.cb[14], vout: 0, value: COINBASE }], [...TYPES.map((t) => ({ address: String(v[`pk_${t}`]), value: 50_000_000n })), { address: String(v.pkChange), value: 30_000_000n }, { address: MINER.address, value: COINBASE - 230_010_000n }]).hex,
    ], { save: save('pkFund') }),
  );
  s.push(call('generatetoaddress 1 (confirms pk’s coins)', 'generatetoaddress', [1, OTHER_MINER.address]));
  synced('pk’s coins');

  // walletprocesspsbt: each kind alone, filled by pw and signed by pk; then all four.
  const v0 = (p: unknown[]): unknown[] => (current ? [...p, 0] : p);
  TYPES.forEach((t, i) => {
    s.push(strict(`createpsbt spending pk’s ${t} coin`, 'createpsbt', (v) => [[{ txid: v.pkFund, vout: i }], [{ [OTHER_MINER.address]: 0.2 }, { [String(v.pkChange)]: 0.2999 }]], { save: save(`psbt_${t}`) }));
    s.push(strict(`walletprocesspsbt pw: ${t}, fill only`, 'walletprocesspsbt', (v) => [v[`psbt_${t}`], false, 'DEFAULT', true, false], at('pw')));
    s.push(strict(`walletprocesspsbt pk: ${t}, signed and finalized`, 'walletprocesspsbt', (v) => [v[`psbt_${t}`]], at('pk')));
  });
  const ins = (v: Vars): Array<{ txid: string; vout: number }> => TYPES.map((_, i) => ({ txid: String(v.pkFund), vout: i }));
  s.push(strict('createpsbt spending pk’s four coins', 'createpsbt', (v) => [ins(v), [{ [OTHER_MINER.address]: 1 }, { [String(v.pkChange)]: 0.9999 }]], { save: save('psbt4') }));
  s.push(strict('createpsbt spending pk’s four coins, version 0', 'createpsbt', (v) => v0([ins(v), [{ [OTHER_MINER.address]: 1 }, { [String(v.pkChange)]: 0.9999 }], 0, true, 2]), { save: save('psbt4v0') }));
  for (const [what, p] of [
    ['defaults (sign on a watch-only wallet)', (v: Vars) => [v.psbt4]],
    ['fill only', (v: Vars) => [v.psbt4, false, 'DEFAULT', true, false]],
    ['version 0', (v: Vars) => [v.psbt4v0, false]],
    ['bip32derivs false', (v: Vars) => [v.psbt4, false, 'DEFAULT', false]],
    ['sighash ALL|ANYONECANPAY', (v: Vars) => [v.psbt4, false, 'ALL|ANYONECANPAY']],
    ['an unknown sighash name', (v: Vars) => [v.psbt4, false, 'all']],
    ['invalid PSBT', () => ['cHNidP8=']],
    ['not base64', () => ['%%']],
    ['sign not a boolean', (v: Vars) => [v.psbt4, 'yes']],
  ] as const) {
    s.push(strict(`walletprocesspsbt pw: ${what}`, 'walletprocesspsbt', p, at('pw')));
  }
  s.push(strict('walletprocesspsbt pw: sighash NONE (kept in the PSBT)', 'walletprocesspsbt', (v) => [v.psbt4, false, 'NONE'], { ...at('pw'), save: (v, r) => void (v.psbtNone = (r as { psbt?: string } | null)?.psbt ?? 'x') }));
  s.push(strict('walletprocesspsbt pw: sighash ALL on a PSBT that asks NONE', 'walletprocesspsbt', (v) => [v.psbtNone, false, 'ALL'], at('pw')));
  s.push(strict('walletprocesspsbt pk: signed, not finalized', 'walletprocesspsbt', (v) => [v.psbt4, true, 'DEFAULT', true, false], { ...at('pk'), save: (v, r) => void (v.psbt4Signed = (r as { psbt?: string } | null)?.psbt ?? 'x') }));
  s.push(strict('walletprocesspsbt pk: signed and finalized', 'walletprocesspsbt', (v) => [v.psbt4], at('pk')));
  s.push(strict('finalizepsbt of pk’s signatures', 'finalizepsbt', (v) => [v.psbt4Signed]));
  s.push(strict('walletprocesspsbt pk: version 0, sighash ALL', 'walletprocesspsbt', (v) => [v.psbt4v0, true, 'ALL'], at('pk')));
  s.push(strict('walletprocesspsbt: several wallets, none named', 'walletprocesspsbt', (v) => [v.psbt4]));

  // descriptorprocesspsbt and utxoupdatepsbt with pk's descriptors.
  const privs = privateDescriptors().map((d) => ({ desc: d.desc, range: d.range }));
  const pubs = (v: Vars): Array<{ desc: string; range: [number, number] }> => publicDescs(v).map((d) => ({ desc: String(d.desc), range: d.range as [number, number] }));
  for (const [what, p] of [
    ['public descriptors', (v: Vars) => [v.psbt4, pubs(v)]],
    ['public descriptors, bip32derivs false', (v: Vars) => [v.psbt4, pubs(v), 'DEFAULT', false]],
    ['private descriptors (signed, finalized)', (v: Vars) => [v.psbt4, privs]],
    ['private descriptors, finalize false', (v: Vars) => [v.psbt4, privs, 'ALL', true, false]],
    ['private descriptors, version 0', (v: Vars) => [v.psbt4v0, privs]],
    ['a private descriptor as a string, default range', (v: Vars) => [v.psbt4, [privs[4]!.desc]]],
    ['no descriptors', (v: Vars) => [v.psbt4, []]],
    ['an invalid descriptor', (v: Vars) => [v.psbt4, ['wpkh(nope)']]],
    ['an unknown sighash name', (v: Vars) => [v.psbt4, [], 'none']],
    ['sighash ALL on a PSBT that asks NONE', (v: Vars) => [v.psbtNone, pubs(v), 'ALL']],
    ['not base64', () => ['%%', []]],
    ['no descriptors argument', (v: Vars) => [v.psbt4]],
  ] as const) {
    s.push(strict(`descriptorprocesspsbt: ${what}`, 'descriptorprocesspsbt', p));
  }
  s.push(strict('utxoupdatepsbt with pk’s public descriptors', 'utxoupdatepsbt', (v) => [v.psbt4, pubs(v)]));
  s.push(strict('utxoupdatepsbt with pk’s private descriptors', 'utxoupdatepsbt', (v) => [v.psbt4, privs]));

  // walletcreatefundedpsbt with coin control (Core's automatic selection and change position are
  // random: the change position is given, or there is no change).
  const coinAt = (v: Vars, i: number): { txid: string; vout: number } => ({ txid: String(v.pkFund), vout: i });
  const pay = (amount: number): Array<Record<string, number>> => [{ [OTHER_MINER.address]: amount }];
  for (const [what, p] of [
    ['two coins, change address at 1', (v: Vars) => [[coinAt(v, 0), coinAt(v, 1)], pay(0.6), 0, { add_inputs: false, changeAddress: v.pkChange, changePosition: 1, fee_rate: 3 }]],
    ['two coins, psbt_version 0', (v: Vars) => v0([[coinAt(v, 0), coinAt(v, 1)], pay(0.6), 0, { add_inputs: false, changeAddress: v.pkChange, changePosition: 1, fee_rate: 3 }, true, 2])],
    ['the wallet’s own change (bech32m for a taproot payee)', (v: Vars) => [[coinAt(v, 0)], pay(0.1), 0, { add_inputs: false, changePosition: 1, fee_rate: 1 }]],
    ['change_type bech32, bip32derivs false', (v: Vars) => [[coinAt(v, 2)], pay(0.1), 0, { add_inputs: false, changePosition: 0, change_type: 'bech32', fee_rate: 2 }, false]],
    ['all of a taproot coin, fee from the amount', (v: Vars) => [[coinAt(v, 3)], pay(0.5), 0, { add_inputs: false, subtractFeeFromOutputs: [0], fee_rate: 2 }]],
    ['fee from the amount, change at 0', (v: Vars) => [[coinAt(v, 1)], pay(0.2), 0, { add_inputs: false, subtractFeeFromOutputs: [0], changePosition: 0, fee_rate: 4 }]],
    ['a data output, locktime, not replaceable', (v: Vars) => [[coinAt(v, 0)], [...pay(0.1), { data: 'cafe' }], 160, { add_inputs: false, changePosition: 2, fee_rate: 6, replaceable: false }]],
    ['a fee rate below the relay minimum', (v: Vars) => [[coinAt(v, 2)], pay(0.1), 0, { add_inputs: false, changePosition: 1, fee_rate: 0.01 }]],
    ['insufficient funds', () => [[], pay(500), 0, {}]],
    ['the preset coins do not pay', (v: Vars) => [[coinAt(v, 0)], pay(2), 0, { fee_rate: 1 }]],
    ['an unknown option', () => [[], pay(0.1), 0, { speed: 1 }]],
    ['fee_rate and conf_target', () => [[], pay(0.1), 0, { fee_rate: 1, conf_target: 2 }]],
    ['an invalid change address', () => [[], pay(0.1), 0, { changeAddress: 'nope' }]],
    ['change address and change type', (v: Vars) => [[], pay(0.1), 0, { changeAddress: v.pkChange, change_type: 'bech32' }]],
    ['an unknown change type', () => [[], pay(0.1), 0, { change_type: 'p2pk' }]],
    ['changePosition out of bounds', (v: Vars) => [[coinAt(v, 0)], pay(0.1), 0, { add_inputs: false, changePosition: 5 }]],
    ['a position twice in subtractFeeFromOutputs', (v: Vars) => [[coinAt(v, 0)], pay(0.1), 0, { add_inputs: false, subtractFeeFromOutputs: [0, 0] }]],
    ['a position past the outputs', (v: Vars) => [[coinAt(v, 0)], pay(0.1), 0, { add_inputs: false, subtractFeeFromOutputs: [3] }]],
    ['an invalid payee', () => [[], [{ nope: 1 }]]],
    ['no outputs argument', () => [[]]],
  ] as const) {
    s.push(strict(`walletcreatefundedpsbt pw: ${what}`, 'walletcreatefundedpsbt', p, at('pw')));
  }
  if (current) s.push(strict('walletcreatefundedpsbt pw: psbt_version 1', 'walletcreatefundedpsbt', (v) => [[coinAt(v, 0)], pay(0.1), 0, { add_inputs: false }, true, 2, 1], at('pw')));
  s.push(strict('walletcreatefundedpsbt pk: two coins (71-byte signatures)', 'walletcreatefundedpsbt', (v) => [[coinAt(v, 0), coinAt(v, 1)], pay(0.6), 0, { add_inputs: false, changeAddress: v.pkChange, changePosition: 1, fee_rate: 3 }], at('pk')));
  s.push(strict('walletcreatefundedpsbt: several wallets, none named', 'walletcreatefundedpsbt', [[], pay(0.1)]));
  // A funding keeps the change address it reserved — two when there is no change (Core's second, avoid-partial-spends attempt).
  for (const t of ['bech32m', 'bech32']) s.push(strict(`getrawchangeaddress pw ${t} after the fundings`, 'getrawchangeaddress', [t], at('pw')));

  // psbtbumpfee: pk pays its own change (one output, fee 500 sat), bumped by pw and by pk — with the
  // clock 9 hours past the tip, where anti-fee-sniping leaves the locktime at 0 (Core moves it back
  // at random one time in ten otherwise).
  s.push(call('getblockchaininfo (the tip’s time)', 'getblockchaininfo', [], { save: (v, r) => void (v.tipTime = (r as { time?: number } | null)?.time ?? 0) }));
  s.push(call('setmocktime 9 h after the tip', 'setmocktime', (v) => [Number(v.tipTime) + 9 * 3600]));
  s.push(strict('createpsbt: pk’s bech32 coin to its change', 'createpsbt', (v) => [[{ txid: v.pkFund, vout: 2 }], [{ [String(v.pkChange)]: 0.499995 }]], { save: save('selfPsbt') }));
  s.push(strict('walletprocesspsbt pk: the payment to itself', 'walletprocesspsbt', (v) => [v.selfPsbt], { ...at('pk'), save: (v, r) => void (v.selfHex = (r as { hex?: string } | null)?.hex ?? 'x') }));
  s.push(strict('sendrawtransaction: the payment to itself', 'sendrawtransaction', (v) => [v.selfHex], { save: save('selfTx') }));
  synced('the payment to itself');
  for (const [what, wallet, p] of [
    ['pw, fee_rate 5', 'pw', (v: Vars) => [v.selfTx, { fee_rate: 5 }]],
    ['pw, the default fee', 'pw', (v: Vars) => [v.selfTx]],
    ['pw, not replaceable', 'pw', (v: Vars) => [v.selfTx, { fee_rate: 7, replaceable: false }]],
    ['pk, fee_rate 5', 'pk', (v: Vars) => [v.selfTx, { fee_rate: 5 }]],
    ['pw, original_change_index 0', 'pw', (v: Vars) => [v.selfTx, { fee_rate: 6, original_change_index: 0 }]],
    ['pw, psbt_version 0', 'pw', (v: Vars) => [v.selfTx, { fee_rate: 5, psbt_version: 0 }]],
    ['pw, psbt_version 1', 'pw', (v: Vars) => [v.selfTx, { fee_rate: 5, psbt_version: 1 }]],
    ['fee_rate too low', 'pw', (v: Vars) => [v.selfTx, { fee_rate: 0.2 }]],
    ['original_change_index out of range', 'pw', (v: Vars) => [v.selfTx, { fee_rate: 5, original_change_index: 3 }]],
    ['outputs and original_change_index', 'pw', (v: Vars) => [v.selfTx, { outputs: [{ [OTHER_MINER.address]: 0.1 }], original_change_index: 0 }]],
    ['an empty outputs array', 'pw', (v: Vars) => [v.selfTx, { outputs: [] }]],
    ['an unknown option', 'pw', (v: Vars) => [v.selfTx, { speed: 1 }]],
    ['fee_rate and conf_target', 'pw', (v: Vars) => [v.selfTx, { fee_rate: 5, conf_target: 2 }]],
    ['a confirmed transaction', 'pw', (v: Vars) => [v.pkFund]],
    ['not a wallet transaction', 'pw', () => [HASH0]],
    ['bad txid', 'pw', () => ['xyz']],
  ] as const) {
    s.push(strict(`psbtbumpfee ${what}`, 'psbtbumpfee', p, at(wallet)));
  }
  s.push(strict('psbtbumpfee: several wallets, none named', 'psbtbumpfee', (v) => [v.selfTx]));
  s.push(call('generatetoaddress 1 (confirms the payment to itself)', 'generatetoaddress', [1, OTHER_MINER.address]));
  synced('the last block');
  return s;
}
