/**
 * The chain phase, strict (nothing normalised): both nodes start from regtest genesis with the same
 * clock (setmocktime), mine to the same fixed addresses and accept the same raw transactions signed by
 * the test, so blocks, transactions, the mempool and the UTXO set must come out byte-identical.
 * Covers the clock, chain, block, mempool, UTXO and raw-transaction methods with their errors.
 */
import { FIXED, FIXED_ACCOUNT_TPUB, FIXED_PUB_HEX, FIXED_TPRV, FIXED_XONLY_HEX, MINER, OTHER_MINER, spendMiner, spendP2wpkh, withOutputValue, type Coin } from './keys';
import { strict, type Step, type Vars } from './run';

/** 2026-01-01T00:00:00Z: the clock of both nodes. */
export const T0 = 1_767_225_600;
export const COINBASE = 5_000_000_000n;
const HASH0 = '00'.repeat(32);

/** Keeps generatetoaddress's block hashes by height. */
const saveBlocks = (v: Vars, result: unknown): void => {
  v.blocks ??= ['0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206'];
  for (const h of result as string[]) v.blocks.push(h);
};
const coinbase = (v: Vars, height: number): Coin => ({ txid: v.cb[height], vout: 0, value: COINBASE });
const saveCoinbase = (height: number) => (v: Vars, result: unknown): void => {
  v.cb ??= {};
  v.cb[height] = (result as { tx: string[] }).tx[0];
};
const saveTx = (name: string) => (v: Vars, result: unknown): void => {
  if (typeof result !== 'string') throw new Error(`${name}: no txid`);
  v[name] = result;
};

export function chainSteps(): Step[] {
  const s: Step[] = [];
  // The clock, with its errors (the range is the generation's).
  s.push(strict('setmocktime', 'setmocktime', [T0]));
  for (const [what, p] of [['negative', [-1]], ['past 2^63 ns', [9_300_000_000]], ['fraction', [1.5]], ['string', ['1']], ['no argument', []]] as const) {
    s.push(strict(`setmocktime: ${what}`, 'setmocktime', [...p]));
  }
  // Genesis.
  for (const m of ['getblockchaininfo', 'getblockcount', 'getbestblockhash', 'getnetworkinfo']) s.push(strict(m, m));
  for (const m of ['getblockcount', 'getbestblockhash', 'getnetworkinfo', 'getblockchaininfo', 'listwallets', 'syncwithvalidationinterfacequeue']) s.push(strict(`${m}: an extra argument`, m, [1]));
  s.push(strict('getblockhash 0', 'getblockhash', [0]));
  for (const p of [[-1], [1], ['0'], [0.5], []]) s.push(strict(`getblockhash ${JSON.stringify(p)}`, 'getblockhash', p));
  const genesis = (v: Vars): string => v.blocks?.[0] ?? '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
  for (const verbosity of [undefined, 0, 1, 2, 3, true, false, null]) {
    s.push(strict(`getblock genesis verbosity ${verbosity}`, 'getblock', (v) => (verbosity === undefined ? [genesis(v)] : [genesis(v), verbosity])));
  }
  s.push(strict('getblockheader genesis', 'getblockheader', (v) => [genesis(v)]));
  s.push(strict('getblockheader genesis, hex', 'getblockheader', (v) => [genesis(v), false]));
  for (const [what, hash] of [['unknown', HASH0], ['short', 'abcd'], ['not hex', 'zz'.repeat(32)], ['number', 7]] as const) {
    s.push(strict(`getblock: ${what} hash`, 'getblock', [hash]));
    s.push(strict(`getblockheader: ${what} hash`, 'getblockheader', [hash]));
  }
  s.push(strict('getblock: verbosity string', 'getblock', (v) => [genesis(v), 'x']));
  s.push(strict('getrawmempool (empty)', 'getrawmempool'));
  s.push(strict('getrawmempool verbose (empty)', 'getrawmempool', [true]));
  s.push(strict('getrawmempool with sequence (empty)', 'getrawmempool', [false, true]));
  s.push(strict('getrawmempool verbose with sequence', 'getrawmempool', [true, true]));

  // Descriptors of fixed keys: getdescriptorinfo and deriveaddresses, with their errors.
  const ranged = `wpkh([d34db33f/84h/1h/0h]${FIXED_ACCOUNT_TPUB}/0/*)`;
  for (const desc of [
    `wpkh(${FIXED_PUB_HEX})`, `pkh(${FIXED_PUB_HEX})`, `sh(wpkh(${FIXED_PUB_HEX}))`, `tr(${FIXED_XONLY_HEX})`, `rawtr(${FIXED_XONLY_HEX})`,
    `combo(${FIXED_PUB_HEX})`, `wsh(multi(1,${FIXED_PUB_HEX}))`, `sh(sortedmulti(1,${FIXED_PUB_HEX}))`, `addr(${MINER.address})`, `raw(6a0401020304)`,
    ranged, `tr(${FIXED_TPRV}/86h/1h/0h/0/*)`, `wpkh(${FIXED_TPRV}/84h/1h/0h/<0;1>/*)`,
  ]) {
    s.push(strict(`getdescriptorinfo ${desc.slice(0, 40)}`, 'getdescriptorinfo', [desc], { save: (v, r) => void ((v.descs ??= {})[desc] = (r as { descriptor?: string } | null)?.descriptor) }));
  }
  for (const desc of [`wpkh(${FIXED_PUB_HEX})`, `addr(${MINER.address})`, `combo(${FIXED_PUB_HEX})`]) {
    s.push(strict(`deriveaddresses ${desc.slice(0, 40)}`, 'deriveaddresses', (v) => [v.descs[desc]]));
  }
  s.push(strict('deriveaddresses ranged 0–3', 'deriveaddresses', (v) => [v.descs[ranged], [0, 3]]));
  s.push(strict('deriveaddresses ranged, end only', 'deriveaddresses', (v) => [v.descs[ranged], 2]));
  for (const [what, p] of [
    ['no checksum', [`wpkh(${FIXED_PUB_HEX})`]],
    ['ranged without a range', [`${ranged}#`]],
    ['a range for an unranged one', [`addr(${MINER.address})`, 1]],
    ['range too large', [ranged, [0, 1_000_000]]],
    ['range backwards', [ranged, [3, 1]]],
    ['negative range', [ranged, [-1, 1]]],
    ['bad checksum', [`wpkh(${FIXED_PUB_HEX})#aaaaaaaa`]],
    ['not a descriptor', ['nonsense']],
    ['no descriptor', []],
  ] as const) {
    s.push(strict(`deriveaddresses: ${what}`, 'deriveaddresses', (v) => (what === 'ranged without a range' || what === 'range too large' || what === 'range backwards' || what === 'negative range' ? [v.descs[ranged], ...p.slice(1)] : [...p])));
  }
  for (const [what, p] of [
    ['bad checksum', [`wpkh(${FIXED_PUB_HEX})#aaaaaaaa`]],
    ['unknown function', ['foo(00)']],
    ['bad key', ['wpkh(02aa)']],
    ['hardened step from a tpub', [`wpkh(${FIXED_ACCOUNT_TPUB}/0h/*)`]],
    ['uncompressed key in wpkh', [`wpkh(04${'11'.repeat(64)})`]],
    ['no descriptor', []],
    ['a number', [5]],
  ] as const) {
    s.push(strict(`getdescriptorinfo: ${what}`, 'getdescriptorinfo', [...p]));
  }

  // Mining: 101 blocks to the miner, then one to each other fixed script kind.
  s.push(strict('generatetoaddress 101', 'generatetoaddress', [101, MINER.address], { save: saveBlocks }));
  for (const [kind, p] of Object.entries(FIXED)) s.push(strict(`generatetoaddress 1 to ${kind}`, 'generatetoaddress', [1, p.address], { save: saveBlocks }));
  for (const [what, p] of [
    ['0 blocks', [0, MINER.address]],
    ['-1 blocks', [-1, MINER.address]],
    ['invalid address', [1, 'bcrt1qinvalid']],
    ['mainnet address', [1, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq']],
    ['count as string', ['1', MINER.address]],
    ['no address', [1]],
  ] as const) {
    s.push(strict(`generatetoaddress: ${what}`, 'generatetoaddress', [...p]));
  }
  for (const h of [1, 2, 3, 4, 102, 103]) s.push(strict(`getblock ${h}`, 'getblock', (v) => [v.blocks[h]], { save: saveCoinbase(h) }));
  s.push(strict('getblockchaininfo at 104', 'getblockchaininfo'));
  s.push(strict('getblock 104 verbosity 2', 'getblock', (v) => [v.blocks[104], 2]));
  s.push(strict('getblock 104 verbosity 3', 'getblock', (v) => [v.blocks[104], 3]));
  s.push(strict('getblock 104 hex', 'getblock', (v) => [v.blocks[104], 0]));
  s.push(strict('getblockheader 50', 'getblockheader', (v) => [v.blocks[50]]));
  s.push(strict('getblockheader 104 (tip)', 'getblockheader', (v) => [v.blocks[104], true]));
  s.push(strict('getblockhash 104', 'getblockhash', [104]));
  s.push(strict('getblockhash 105 (beyond the tip)', 'getblockhash', [105]));
  s.push(strict('gettxout: a mature coinbase', 'gettxout', (v) => [v.cb[1], 0]));
  s.push(strict('gettxout: an immature coinbase, without mempool', 'gettxout', (v) => [v.cb[103], 0, false]));
  s.push(strict('gettxout: the witness commitment (unspendable)', 'gettxout', (v) => [v.cb[103], 1]));
  s.push(strict('gettxout: no such output', 'gettxout', (v) => [v.cb[1], 5]));
  for (const [what, p] of [['bad txid', ['xyz', 0]], ['negative n', [HASH0, -1]], ['n as string', [HASH0, '0']], ['no n', [HASH0]]] as const) {
    s.push(strict(`gettxout: ${what}`, 'gettxout', [...p]));
  }
  s.push(strict('getrawtransaction: a confirmed coinbase without -txindex', 'getrawtransaction', (v) => [v.cb[1]]));
  for (const verbosity of [0, 1, 2, true]) {
    s.push(strict(`getrawtransaction: coinbase with its block hash, verbosity ${verbosity}`, 'getrawtransaction', (v) => [v.cb[1], verbosity, v.blocks[1]]));
  }
  s.push(strict('getrawtransaction: with the wrong block hash', 'getrawtransaction', (v) => [v.cb[1], 1, v.blocks[2]]));
  s.push(strict('getrawtransaction: with an unknown block hash', 'getrawtransaction', (v) => [v.cb[1], 1, HASH0]));
  s.push(strict('getrawtransaction: bad txid', 'getrawtransaction', ['00']));

  // Transactions the test signs: T1 spends coinbase 1 to every fixed kind, OP_RETURN and change.
  const t1 = (v: Vars): { hex: string; txid: string } =>
    spendMiner([coinbase(v, 1)], [
      { address: FIXED.p2wpkh.address, value: 1_000_000_000n },
      { address: FIXED.p2pkh.address, value: 500_000_000n },
      { address: FIXED.p2shP2wpkh.address, value: 300_000_000n },
      { data: '737079676c617373' },
      { address: MINER.address, value: 3_199_990_000n },
    ]);
  s.push(strict('sendrawtransaction T1', 'sendrawtransaction', (v) => [t1(v).hex], { save: saveTx('t1') }));
  s.push(strict('sendrawtransaction T1 again (already in the mempool)', 'sendrawtransaction', (v) => [t1(v).hex]));
  s.push(strict('decoderawtransaction T1', 'decoderawtransaction', (v) => [t1(v).hex]));
  s.push(strict('decoderawtransaction T1, iswitness true', 'decoderawtransaction', (v) => [t1(v).hex, true]));
  s.push(strict('decoderawtransaction T1, iswitness false', 'decoderawtransaction', (v) => [t1(v).hex, false]));
  for (const [what, p] of [['not hex', ['zz']], ['empty', ['']], ['truncated', ['0200000001']], ['number', [12]]] as const) {
    s.push(strict(`decoderawtransaction: ${what}`, 'decoderawtransaction', [...p]));
  }
  // T2, a child of T1 (ECDSA, P2WPKH), for ancestors and descendants.
  const t2 = (v: Vars): { hex: string; txid: string } =>
    spendP2wpkh({ txid: v.t1, vout: 0, value: 1_000_000_000n }, [{ address: OTHER_MINER.address, value: 999_980_000n }]);
  s.push(strict('sendrawtransaction T2 (child of T1)', 'sendrawtransaction', (v) => [t2(v).hex], { save: saveTx('t2') }));
  for (const p of [[], [true], [false, true]]) s.push(strict(`getrawmempool ${JSON.stringify(p)}`, 'getrawmempool', p));
  s.push(strict('getmempoolentry T1', 'getmempoolentry', (v) => [v.t1]));
  s.push(strict('getmempoolentry T2', 'getmempoolentry', (v) => [v.t2]));
  s.push(strict('getmempoolentry: unknown', 'getmempoolentry', [HASH0]));
  s.push(strict('getmempoolentry: bad txid', 'getmempoolentry', ['t1']));
  for (const verbosity of [undefined, 0, 1, 2, false, true]) {
    s.push(strict(`getrawtransaction T1 (mempool) verbosity ${verbosity}`, 'getrawtransaction', (v) => (verbosity === undefined ? [v.t1] : [v.t1, verbosity])));
  }
  s.push(strict('gettxout: T1 output, mempool included', 'gettxout', (v) => [v.t1, 1]));
  s.push(strict('gettxout: T1 output, chain only', 'gettxout', (v) => [v.t1, 1, false]));
  s.push(strict('gettxout: T1 output spent by T2 in the mempool', 'gettxout', (v) => [v.t1, 0]));
  s.push(strict('gettxout: the coinbase T1 spends, mempool included', 'gettxout', (v) => [v.cb[1], 0, true]));
  s.push(strict('gettxout: the coinbase T1 spends, chain only', 'gettxout', (v) => [v.cb[1], 0, false]));

  // sendrawtransaction's refusals.
  // A conflict paying less than T1 (full RBF: it would replace T1 if it paid more).
  s.push(strict('sendrawtransaction: conflicts with T1, lower fee', 'sendrawtransaction', (v) => [spendMiner([coinbase(v, 1)], [{ address: MINER.address, value: 4_999_995_000n }]).hex]));
  s.push(strict('sendrawtransaction: immature coinbase', 'sendrawtransaction', (v) => [spendMiner([coinbase(v, 102 - 100 + 100)], [{ address: MINER.address, value: 4_999_000_000n }]).hex]));
  s.push(strict('sendrawtransaction: missing inputs', 'sendrawtransaction', () => [spendMiner([{ txid: 'ab'.repeat(32), vout: 0, value: COINBASE }], [{ address: MINER.address, value: 4_999_000_000n }]).hex]));
  s.push(strict('sendrawtransaction: outputs above inputs', 'sendrawtransaction', (v) => [withOutputValue(spendMiner([coinbase(v, 2)], [{ address: MINER.address, value: 4_999_000_000n }]).hex, 4_999_000_000n, 5_000_000_001n)]));
  const highFee = (v: Vars): string => spendMiner([coinbase(v, 2)], [{ address: MINER.address, value: 4_900_000_000n }]).hex;
  s.push(strict('sendrawtransaction: fee above maxfeerate', 'sendrawtransaction', (v) => [highFee(v)]));
  s.push(strict('sendrawtransaction: fee above a given maxfeerate', 'sendrawtransaction', (v) => [highFee(v), 0.5]));
  for (const [what, p] of [['not hex', ['zz']], ['no inputs', ['02000000000000000000']], ['maxfeerate string', ['00', 'x']], ['negative maxfeerate', ['00', -1]], ['number', [5]]] as const) {
    s.push(strict(`sendrawtransaction: ${what}`, 'sendrawtransaction', [...p]));
  }
  s.push(strict('sendrawtransaction: high fee with maxfeerate 0', 'sendrawtransaction', (v) => [highFee(v), 0], { save: saveTx('t3') }));
  s.push(strict('getrawmempool verbose, three entries', 'getrawmempool', [true]));

  // Mine them, later on the clock.
  s.push(strict('setmocktime T0 + 1 h', 'setmocktime', [T0 + 3600]));
  s.push(strict('generatetoaddress 1 (mines T1, T2, T3)', 'generatetoaddress', [1, OTHER_MINER.address], { save: saveBlocks }));
  for (const verbosity of [1, 2, 3, 0]) s.push(strict(`getblock 105 verbosity ${verbosity}`, 'getblock', (v) => [v.blocks[105], verbosity]));
  s.push(strict('getblockheader 105', 'getblockheader', (v) => [v.blocks[105]]));
  s.push(strict('getblockheader 104 (with next)', 'getblockheader', (v) => [v.blocks[104]]));
  s.push(strict('getblockchaininfo at 105', 'getblockchaininfo'));
  s.push(strict('getrawmempool after the block', 'getrawmempool', [false, true]));
  s.push(strict('getmempoolentry: T1 confirmed', 'getmempoolentry', (v) => [v.t1]));
  s.push(strict('getrawtransaction: T1 confirmed, no block hash', 'getrawtransaction', (v) => [v.t1, 1]));
  s.push(strict('getrawtransaction: T1 with its block hash, verbosity 2', 'getrawtransaction', (v) => [v.t1, 2, v.blocks[105]]));
  s.push(strict('gettxout: T1 change, confirmed', 'gettxout', (v) => [v.t1, 4]));
  s.push(strict('gettxout: T1 OP_RETURN', 'gettxout', (v) => [v.t1, 3]));
  s.push(strict('sendrawtransaction: T1 again, confirmed', 'sendrawtransaction', (v) => [t1(v).hex]));

  // Full RBF: R1 and its child, then R2 spending R1's coin with more fee replaces both.
  for (const h of [3, 4]) s.push(strict(`getblock ${h} (a coinbase to spend)`, 'getblock', (v) => [v.blocks[h]], { save: saveCoinbase(h) }));
  const r1 = (v: Vars): { hex: string; txid: string } => spendMiner([coinbase(v, 3)], [{ address: MINER.address, value: 4_999_990_000n }]);
  s.push(strict('sendrawtransaction R1', 'sendrawtransaction', (v) => [r1(v).hex], { save: saveTx('r1') }));
  s.push(strict('sendrawtransaction R1’s child', 'sendrawtransaction', (v) => [spendMiner([{ txid: v.r1, vout: 0, value: 4_999_990_000n }], [{ address: MINER.address, value: 4_999_980_000n }]).hex]));
  s.push(strict('getrawmempool before the replacement', 'getrawmempool', [false, true]));
  s.push(strict('sendrawtransaction R2 (replaces R1 and its child)', 'sendrawtransaction', (v) => [spendMiner([coinbase(v, 3)], [{ address: OTHER_MINER.address, value: 4_999_900_000n }]).hex]));
  s.push(strict('getrawmempool after the replacement', 'getrawmempool', [false, true]));
  s.push(strict('getrawmempool verbose after the replacement', 'getrawmempool', [true]));
  s.push(strict('getmempoolentry: R1, replaced', 'getmempoolentry', (v) => [v.r1]));
  s.push(strict('sendrawtransaction: R1 again, now paying less than R2', 'sendrawtransaction', (v) => [r1(v).hex]));
  return s;
}
