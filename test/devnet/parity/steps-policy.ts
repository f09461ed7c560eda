/**
 * The mempool policy phase, strict (both nodes hold the same chain): a funding transaction gives
 * fixed keys coins of every standard kind; then testmempoolaccept and sendrawtransaction of valid
 * spends with each sighash type, spoiled signatures (an amount changed after signing, high S, an
 * undefined hash type, a bad Schnorr size or hash type, a wrong key), and the policy refusals:
 * dust, min relay fee, version, non-final, tx-size-small, max fee, missing inputs, double spends
 * and replacements, maxburnamount, packages; getmempoolinfo along the way.
 */
import { MINER, OTHER_MINER, spendMiner, withOutputValue, type Output } from './keys';
import { strict, type Step, type Vars } from './run';
import { KINDS, highS, replaceOnce, signKinds, type Kind, type KindCoin } from './sign';
import { COINBASE, T0 } from './steps-chain';

const BTC = 100_000_000n;
/** The funding transaction's outputs: kind and value, in order (vout = index). */
const FUNDING: Array<[Kind, bigint]> = [
  ['p2pkh', BTC], ['p2pkh', BTC], ['p2pkh', BTC],
  ['p2sh-p2wpkh', BTC], ['p2sh-p2wpkh', BTC],
  ['p2wpkh', BTC], ['p2wpkh', BTC], ['p2wpkh', BTC], ['p2wpkh', BTC], ['p2wpkh', BTC], ['p2wpkh', BTC],
  ['p2tr', BTC], ['p2tr', BTC], ['p2tr', BTC], ['p2tr', BTC],
  ['p2wsh-2of3', BTC], ['p2wsh-2of3', BTC],
  ['p2sh-2of3', BTC], ['p2sh-2of3', BTC],
];
const SPENT = FUNDING.reduce((s, [, v]) => s + v, 0n);

const funding = (v: Vars): { hex: string; txid: string } =>
  spendMiner([{ txid: v.cb[8], vout: 0, value: COINBASE }], [...FUNDING.map(([k, value]) => ({ address: KINDS[k].address!, value })), { address: MINER.address, value: COINBASE - SPENT - 100_000n }]);

/** The n-th funding output of a kind. */
function coin(v: Vars, kind: Kind, n: number, sighash?: number): KindCoin {
  const f = funding(v);
  let seen = 0;
  const vout = FUNDING.findIndex(([k]) => k === kind && seen++ === n);
  if (vout < 0) throw new Error(`no ${kind} #${n}`);
  return { txid: f.txid, vout, value: FUNDING[vout]![1], kind, prevHex: f.hex, sighash };
}

const to = (value: bigint): Output => ({ address: OTHER_MINER.address, value });
const ALL = 1;
const NONE = 2;
const SINGLE = 3;
const ACP = 0x80;

export function policySteps(): Step[] {
  const s: Step[] = [];
  const test = (name: string, hexes: (v: Vars) => string[], extra: unknown[] = []): void => void s.push(strict(`testmempoolaccept: ${name}`, 'testmempoolaccept', (v) => [hexes(v), ...extra]));
  const send = (name: string, hex: (v: Vars) => string, extra: unknown[] = [], save?: string): void =>
    void s.push(strict(`sendrawtransaction: ${name}`, 'sendrawtransaction', (v) => [hex(v), ...extra], save ? { save: (vv, r) => void (vv[save] = r) } : {}));

  s.push(strict('getmempoolinfo before the policy phase', 'getmempoolinfo'));
  s.push(strict('getmempoolinfo: an argument', 'getmempoolinfo', [1]));
  s.push(strict('generatetoaddress 10 (coinbases 7–16 mature)', 'generatetoaddress', [10, OTHER_MINER.address], {
    save: (v, r) => void (v.blocks as string[]).push(...(r as string[])),
  }));
  s.push(strict('getblock 8 (the coinbase that funds the policy phase)', 'getblock', (v) => [v.blocks[8]], { save: (v, r) => void (v.cb[8] = (r as { tx: string[] }).tx[0]) }));
  send('the funding of every kind', (v) => funding(v).hex);
  s.push(strict('getmempoolinfo with the funding', 'getmempoolinfo'));
  s.push(strict('generatetoaddress 1 (confirms the funding)', 'generatetoaddress', [1, OTHER_MINER.address], { save: (v, r) => void (v.blocks as string[]).push(...(r as string[])) }));

  // Valid spends, each kind and sighash type (tested, not sent: the coins stay).
  const one = (kind: Kind, n: number, sighash?: number, outs = 1) => (v: Vars): string =>
    signKinds([coin(v, kind, n, sighash)], outs === 1 ? [to(BTC - 10_000n)] : [to(BTC / 2n), to(BTC / 2n - 10_000n)]).hex;
  for (const [kind, sighash, outs] of [
    ['p2pkh', ALL, 1], ['p2pkh', SINGLE | ACP, 2], ['p2pkh', NONE, 1],
    ['p2sh-p2wpkh', ALL, 1], ['p2sh-p2wpkh', SINGLE, 2],
    ['p2wpkh', ALL, 1], ['p2wpkh', NONE, 2], ['p2wpkh', SINGLE, 2], ['p2wpkh', ALL | ACP, 1], ['p2wpkh', NONE | ACP, 1],
    ['p2tr', undefined, 1], ['p2tr', ALL, 1], ['p2tr', NONE | ACP, 2], ['p2tr', SINGLE, 2], ['p2tr', SINGLE | ACP, 1],
    ['p2wsh-2of3', ALL, 1], ['p2wsh-2of3', NONE, 2], ['p2sh-2of3', ALL, 1], ['p2sh-2of3', SINGLE | ACP, 2],
  ] as Array<[Kind, number | undefined, number]>) {
    test(`${kind} sighash ${sighash ?? 'default'}, ${outs} output(s)`, (v) => [one(kind, 0, sighash, outs)(v)]);
  }
  const mixed = (v: Vars): string =>
    signKinds((['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr', 'p2wsh-2of3', 'p2sh-2of3'] as Kind[]).map((k) => coin(v, k, 1)), [to(3n * BTC), to(3n * BTC - 50_000n)]).hex;
  test('every kind in one transaction', (v) => [mixed(v)]);

  // Spoiled signatures.
  for (const kind of Object.keys(KINDS) as Kind[]) {
    test(`${kind}: an amount changed after signing`, (v) => [withOutputValue(one(kind, 2 % (kind.endsWith('2of3') || kind === 'p2sh-p2wpkh' ? 2 : 3), undefined)(v), BTC - 10_000n, BTC - 9_000n)]);
  }
  send('p2wpkh: an amount changed after signing', (v) => withOutputValue(one('p2wpkh', 2)(v), BTC - 10_000n, BTC - 9_000n));
  send('p2tr: an amount changed after signing', (v) => withOutputValue(one('p2tr', 2)(v), BTC - 10_000n, BTC - 9_000n));
  const spoil = (kind: Kind, f: (hex: string) => string) => (v: Vars): string[] => [f(one(kind, 3)(v))];
  test('p2wpkh: high S', spoil('p2wpkh', (h) => { const x = highS(h); return replaceOnce(h, x.sig, x.high); }));
  test('p2wpkh: undefined hash type', spoil('p2wpkh', (h) => { const x = highS(h); return replaceOnce(h, x.sig, `${x.sig.slice(0, -2)}04`); }));
  test('p2wpkh: not DER', spoil('p2wpkh', (h) => { const x = highS(h); return replaceOnce(h, x.sig, `${x.sig.slice(0, 2)}31${x.sig.slice(4)}`); }));
  test('p2wpkh: the key of another script', spoil('p2wpkh', (h) => h.replace(/21(02|03)([0-9a-f]{64})00000000$/, (_all, p: string, k: string) => `21${p === '02' ? '03' : '02'}${k}00000000`)));
  test('p2tr: hash type 0 written out', spoil('p2tr', (h) => h.replace(/0140([0-9a-f]{128})00000000$/, '0141$10000000000')));
  test('p2tr: 63-byte signature', spoil('p2tr', (h) => h.replace(/0140([0-9a-f]{126})[0-9a-f]{2}00000000$/, '013f$100000000')));
  test('p2tr: hash type 0x84', spoil('p2tr', (h) => h.replace(/0140([0-9a-f]{128})00000000$/, '0141$18400000000')));

  // Policy refusals.
  // A version the signer refuses is written over a version 2 transaction (standardness is checked before signatures).
  const p2wpkhSpend = (outs: Output[], opts: { version?: number; locktime?: number; n?: number } = {}) => (v: Vars): string => {
    const h = signKinds([coin(v, 'p2wpkh', opts.n ?? 4)], outs, { ...opts, version: opts.version === 4 ? 2 : opts.version }).hex;
    return opts.version === 4 ? `04${h.slice(2)}` : h;
  };
  test('a dust output, with a fee', (v) => [p2wpkhSpend([{ address: KINDS.p2wpkh.address!, value: 293n }, to(BTC - 10_000n)])(v)]);
  test('two dust outputs', (v) => [p2wpkhSpend([{ address: KINDS.p2wpkh.address!, value: 100n }, { address: KINDS.p2tr.address!, value: 100n }, to(BTC - 10_000n)])(v)]);
  test('the dust threshold itself (294 sat to p2wpkh)', (v) => [p2wpkhSpend([{ address: KINDS.p2wpkh.address!, value: 294n }, to(BTC - 10_000n)])(v)]);
  test('no fee', (v) => [p2wpkhSpend([to(BTC)])(v)]);
  test('a fee of 1 sat', (v) => [p2wpkhSpend([to(BTC - 1n)])(v)]);
  test('1 sat/vB', (v) => [p2wpkhSpend([to(BTC - 110n)])(v)]);
  test('version 4', (v) => [p2wpkhSpend([to(BTC - 10_000n)], { version: 4 })(v)]);
  test('version 3', (v) => [p2wpkhSpend([to(BTC - 10_000n)], { version: 3 })(v)]);
  test('locktime two blocks ahead', (v) => [p2wpkhSpend([to(BTC - 10_000n)], { locktime: (v.blocks as string[]).length + 1 })(v)]);
  test('locktime the next block', (v) => [p2wpkhSpend([to(BTC - 10_000n)], { locktime: (v.blocks as string[]).length })(v)]);
  test('under 65 bytes without witness', (v) => [signKinds([coin(v, 'p2tr', 3)], [{ data: 'aa' }]).hex]);
  test('fee above maxfeerate', (v) => [p2wpkhSpend([to(BTC / 2n)])(v)]);
  test('fee above maxfeerate, maxfeerate 0', (v) => [p2wpkhSpend([to(BTC / 2n)])(v)], [0]);
  test('fee under a given maxfeerate', (v) => [p2wpkhSpend([to(BTC - 10_000n)])(v)], [0.0001]);
  test('fee over a given maxfeerate', (v) => [p2wpkhSpend([to(BTC - 100_000n)])(v)], [0.001]);
  test('missing inputs', () => [signKinds([{ txid: 'ab'.repeat(32), vout: 0, value: BTC, kind: 'p2wpkh', prevHex: '' }], [to(BTC - 10_000n)]).hex]);
  for (const [what, p] of [['empty', [[]]], ['not hex', [['zz']]], ['26 transactions', [Array(26).fill('00')]], ['maxfeerate 1 BTC', [['00'], 1]], ['not an array', ['00']], ['nothing', []]] as const) {
    s.push(strict(`testmempoolaccept: ${what}`, 'testmempoolaccept', [...p]));
  }
  // Packages: a parent and its child; a failing first transaction leaves the next one unjudged.
  const parent = (v: Vars): { hex: string; txid: string } => signKinds([coin(v, 'p2wpkh', 5)], [{ address: KINDS.p2wpkh.address!, value: BTC - 10_000n }]);
  const child = (v: Vars): string => signKinds([{ txid: parent(v).txid, vout: 0, value: BTC - 10_000n, kind: 'p2wpkh', prevHex: parent(v).hex }], [to(BTC - 20_000n)]).hex;
  test('a parent and its child', (v) => [parent(v).hex, child(v)]);
  test('a failing transaction, then a valid one', (v) => [p2wpkhSpend([to(BTC)])(v), one('p2tr', 0)(v)]);
  test('a transaction over maxfeerate, then a valid one', (v) => [p2wpkhSpend([to(BTC / 2n)])(v), one('p2tr', 0)(v)]);

  // Broadcasts, conflicts and replacements.
  send('every kind in one transaction', mixed, [], 'mixed');
  send('the same again', mixed);
  test('the same, already in the mempool', (v) => [mixed(v)]);
  send('a conflict paying the same fee', (v) => signKinds([coin(v, 'p2tr', 1)], [to(BTC - 8_000n)]).hex);
  test('a conflict paying more in total', (v) => [signKinds([coin(v, 'p2tr', 1)], [to(BTC - 60_000n)]).hex]);
  s.push(strict('getmempoolinfo with the mixed spend', 'getmempoolinfo'));
  s.push(strict('getmempoolentry: the mixed spend', 'getmempoolentry', (v) => [v.mixed]));
  send('fee above maxfeerate', (v) => p2wpkhSpend([to(BTC / 2n)])(v));
  send('an OP_RETURN carrying value', (v) => signKinds([coin(v, 'p2tr', 2)], [{ data: 'cafe' }, to(BTC - 10_000n)]).hex.replace(/0000000000000000(04)6a02cafe/, '0100000000000000$16a02cafe'));
  send('missing inputs', () => signKinds([{ txid: 'ab'.repeat(32), vout: 0, value: BTC, kind: 'p2wpkh', prevHex: '' }], [to(BTC - 10_000n)]).hex);
  send('no fee', (v) => p2wpkhSpend([to(BTC)])(v));
  send('version 4', (v) => p2wpkhSpend([to(BTC - 10_000n)], { version: 4 })(v));
  send('a dust output, with a fee', (v) => p2wpkhSpend([{ address: KINDS.p2wpkh.address!, value: 293n }, to(BTC - 10_000n)])(v));
  send('a parent', (v) => parent(v).hex);
  send('its child', child);
  s.push(strict('getmempoolinfo with a package', 'getmempoolinfo'));
  // A chain growing one transaction at a time (clusters of 1 to 5 in the mempool's memory use).
  const link = (v: Vars, depth: number): { hex: string; txid: string } => {
    let prev = coin(v, 'p2wpkh', 2);
    let tx = signKinds([prev], [{ address: KINDS.p2wpkh.address!, value: BTC - 10_000n }]);
    for (let d = 1; d <= depth; d++) {
      prev = { txid: tx.txid, vout: 0, value: BTC - 10_000n * BigInt(d), kind: 'p2wpkh', prevHex: tx.hex };
      tx = signKinds([prev], [{ address: KINDS.p2wpkh.address!, value: BTC - 10_000n * BigInt(d + 1) }]);
    }
    return tx;
  };
  for (let d = 0; d < 5; d++) {
    send(`a chain, link ${d + 1}`, (v) => link(v, d).hex);
    s.push(strict(`getmempoolinfo with a chain of ${d + 1}`, 'getmempoolinfo'));
  }
  s.push(strict('getrawmempool verbose, the policy phase', 'getrawmempool', [true]));
  s.push(strict('setmocktime T0 + 1 h + 20 min', 'setmocktime', [T0 + 3600 + 1200]));
  s.push(strict('generatetoaddress 1 (mines the policy phase)', 'generatetoaddress', [1, OTHER_MINER.address], { save: (v, r) => void (v.blocks as string[]).push(...(r as string[])) }));
  s.push(strict('getmempoolinfo after the block', 'getmempoolinfo'));
  send('the mixed spend again, confirmed', mixed);
  test('the mixed spend again, confirmed', (v) => [mixed(v)]);
  return s;
}
