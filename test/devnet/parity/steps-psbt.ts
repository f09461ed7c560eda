/**
 * PSBT creation, strict (nothing depends on keys or the chain): createpsbt with its options and
 * errors (psbt_version is current Core's: v30 answers a sixth argument with its help), converttopsbt
 * of unsigned and signed transactions, joinpsbts' refusals and a join whose result cannot be
 * shuffled (one input from one PSBT, one output from the other).
 */
import { FIXED, FIXED_ACCOUNT_TPUB, FIXED_XONLY_HEX, MINER, spendMiner } from './keys';
import { strict, type Step, type Vars } from './run';
import { COINBASE } from './steps-chain';
import type { CoreVersion } from '../../../devnet/core-version';
import { coreFileGroup } from '../../fixtures';

const TXID = 'a9cee9cd010d50e6ef39b84e2008d052fe1f7a2a93844d62565f1dd489b3e205';
const TXID2 = 'a728a4e95b390544c2b0c2f3af67142c2dda337dea04b2a0ccf5edf1665b9bed';

export function psbtSteps(generation: CoreVersion): Step[] {
  const s: Step[] = [];
  // Version 0 PSBTs to join: v30 writes nothing else and takes no psbt_version.
  const v0 = (p: unknown[]): unknown[] => (generation === '30' ? p : [...p, 0]);
  const save = (key: string) => (v: Vars, r: unknown): void => void (v[key] = r);
  const ins = [{ txid: TXID, vout: 1 }, { txid: TXID2, vout: 0, sequence: 7 }];
  const outs = [{ [FIXED.p2wpkh.address]: 1.5 }, { data: 'cafe' }];
  for (const [what, p] of [
    ['defaults', [ins, outs]],
    ['locktime and not replaceable', [ins.slice(0, 1), outs, 150, false]],
    ['replaceable', [ins.slice(0, 1), outs, 0, true]],
    ['tx version 3', [ins.slice(0, 1), outs, 0, true, 3]],
    ['a time locktime', [ins, outs, 500000001]],
    ['dictionary outputs', [ins, { [FIXED.p2pkh.address]: 0.1, [FIXED.p2shP2wpkh.address]: 0.2 }]],
    ['no inputs', [[], outs]],
    ['no outputs', [ins, []]],
    ['duplicate address', [ins, [{ [FIXED.p2wpkh.address]: 1 }, { [FIXED.p2wpkh.address]: 2 }]]],
    ['invalid address', [ins, [{ nope: 1 }]]],
    ['sequence contradicts replaceable', [[{ txid: TXID, vout: 1, sequence: 0xffffffff }], outs, 0, true]],
    ['amount as words', [ins, [{ [FIXED.p2wpkh.address]: 'x' }]]],
    ['inputs not an array', [{}, outs]],
  ] as const) {
    s.push(strict(`createpsbt: ${what}`, 'createpsbt', [...p]));
  }
  for (const [what, v] of [['0', 0], ['2', 2], ['1', 1], ['3', 3], ['a string', '2']] as const) {
    s.push(strict(`createpsbt: psbt_version ${what}`, 'createpsbt', [ins, outs, 0, true, 2, v]));
  }
  s.push(strict('createpsbt: an input only, version 0 (to join)', 'createpsbt', v0([ins.slice(0, 1), [], 0, true, 2]), { save: save('joinA') }));
  s.push(strict('createpsbt: an output only, version 0 (to join)', 'createpsbt', v0([[], [{ [FIXED.p2wpkh.address]: 1 }], 5, true, 3]), { save: save('joinB') }));
  s.push(strict('createpsbt: the same input, version 0 (to join)', 'createpsbt', v0([ins.slice(0, 1), [{ [FIXED.p2pkh.address]: 1 }], 0, true, 2]), { save: save('joinC') }));
  s.push(strict('createpsbt: version 2 (to join)', 'createpsbt', [ins.slice(0, 1), outs], { save: save('joinV2') }));
  s.push(strict('joinpsbts: an input and an output', 'joinpsbts', (v) => [[v.joinA ?? 'x', v.joinB ?? 'x']]));
  s.push(strict('joinpsbts: the same input twice', 'joinpsbts', (v) => [[v.joinA ?? 'x', v.joinC ?? 'x']]));
  s.push(strict('joinpsbts: a version 2 PSBT', 'joinpsbts', (v) => [[v.joinA ?? 'x', v.joinV2 ?? 'x']]));
  s.push(strict('joinpsbts: one PSBT', 'joinpsbts', (v) => [[v.joinA ?? 'x']]));
  s.push(strict('joinpsbts: not base64', 'joinpsbts', [['%%', '%%']]));
  s.push(strict('joinpsbts: not a PSBT', 'joinpsbts', [['cHNidP8=', 'cHNidP8=']]));
  s.push(strict('joinpsbts: not an array', 'joinpsbts', ['x']));

  // converttopsbt: an unsigned transaction, and one the miner signed.
  const signed = (v: Vars): string => spendMiner([{ txid: v.cb[12] ?? TXID, vout: 0, value: COINBASE }], [{ address: MINER.address, value: COINBASE - 10_000n }]).hex;
  s.push(strict('getblock 12 (a coinbase to sign a spend of)', 'getblock', (v) => [v.blocks[12]], { save: (v, r) => void (v.cb[12] = (r as { tx: string[] }).tx[0]) }));
  s.push(strict('createrawtransaction to convert', 'createrawtransaction', [ins, outs], { save: save('unsignedHex') }));
  for (const [what, p] of [
    ['unsigned', (v: Vars) => [v.unsignedHex]],
    ['unsigned, version 0', (v: Vars) => [v.unsignedHex, false, false, 0]],
    ['unsigned, iswitness true', (v: Vars) => [v.unsignedHex, false, true]],
    ['signed', (v: Vars) => [signed(v)]],
    ['signed, permitsigdata', (v: Vars) => [signed(v), true]],
    ['signed, permitsigdata, iswitness false', (v: Vars) => [signed(v), true, false]],
    ['psbt_version 1', (v: Vars) => [v.unsignedHex, false, false, 1]],
    ['not hex', () => ['zz']],
    ['empty', () => ['']],
  ] as const) {
    s.push(strict(`converttopsbt: ${what}`, 'converttopsbt', p));
  }
  s.push(...psbtRoleSteps());
  s.push(...utxoUpdateSteps());
  return s;
}

/**
 * utxoupdatepsbt on the same chain: a coinbase output (taproot, so witness_utxo), an unknown coin,
 * the miner's key as tr() and as rawtr() descriptors (string and object, a range for a descriptor that
 * is not ranged), a ranged descriptor with the default range, and the refusals.
 */
function utxoUpdateSteps(): Step[] {
  const s: Step[] = [];
  const save = (key: string) => (v: Vars, r: unknown): void => void (v[key] = r);
  s.push(strict('createpsbt spending the coinbase of block 12 (to update)', 'createpsbt', (v) => [[{ txid: v.cb[12] ?? TXID, vout: 0 }, { txid: TXID2, vout: 3 }], [{ [FIXED.p2wpkh.address]: 1 }]], { save: save('updA') }));
  const psbt = (v: Vars): string => String(v.updA ?? 'x');
  for (const [what, p] of [
    ['no descriptors', (v: Vars) => [psbt(v)]],
    ['the miner key as tr()', (v: Vars) => [psbt(v), [`tr(${FIXED_XONLY_HEX})`]]],
    ['rawtr() as an object with a range', (v: Vars) => [psbt(v), [{ desc: `rawtr(${FIXED_XONLY_HEX})`, range: 5 }]]],
    ['a ranged descriptor, default range', (v: Vars) => [psbt(v), [`wpkh(${FIXED_ACCOUNT_TPUB}/0/*)`]]],
    ['a ranged descriptor, range [2,4]', (v: Vars) => [psbt(v), [{ desc: `wpkh(${FIXED_ACCOUNT_TPUB}/0/*)`, range: [2, 4] }]]],
    ['an invalid descriptor', (v: Vars) => [psbt(v), ['wpkh(nope)']]],
    ['a bad checksum', (v: Vars) => [psbt(v), [`tr(${FIXED_XONLY_HEX})#aaaaaaaa`]]],
    ['a number as scan object', (v: Vars) => [psbt(v), [5]]],
    ['an object without desc', (v: Vars) => [psbt(v), [{ range: 1 }]]],
    ['a range begin after end', (v: Vars) => [psbt(v), [{ desc: `wpkh(${FIXED_ACCOUNT_TPUB}/0/*)`, range: [4, 2] }]]],
    ['descriptors not an array', (v: Vars) => [psbt(v), 'x']],
    ['not base64', () => ['%%']],
  ] as const) {
    s.push(strict(`utxoupdatepsbt: ${what}`, 'utxoupdatepsbt', p));
  }
  return s;
}

/**
 * combinepsbt, finalizepsbt and analyzepsbt (stateless, strict) on the PSBTs of the spend recordings
 * (version 0 and 2: a v30 node refuses the v2 ones with its decode text) and on bad input.
 */
function psbtRoleSteps(): Step[] {
  const s: Step[] = [];
  const params = (group: string, name: string): unknown[] => {
    const rec = coreFileGroup('bitcoin-core-spend.jsonl', group).find((r) => r.name === name);
    if (!rec) throw new Error(`no recording ${group} / ${name}`);
    return (JSON.parse(rec.request.body) as { params: unknown[] }).params;
  };
  const cosigners = params('combinepsbt', 'two cosigners') as [string[]];
  const cosignersV0 = params('combinepsbt', 'two cosigners, psbt v0') as [string[]];
  for (const [what, p] of [
    ['two cosigners', cosigners],
    ['two cosigners, version 0', cosignersV0],
    ['version 0 and version 2 of one transaction', [[cosignersV0[0]![0], cosigners[0]![0]]]],
    ['different transactions', params('combinepsbt', 'different transactions')],
    ['one PSBT', [[cosigners[0]![0]]]],
    ['an empty list', [[]]],
    ['not base64', [['%%']]],
    ['a number in the list', [[1]]],
  ] as const) {
    s.push(strict(`combinepsbt: ${what}`, 'combinepsbt', [...p]));
  }
  const combined = params('finalizepsbt', 'combined, extract')[0] as string;
  const combinedV0 = params('finalizepsbt', 'combined v0, extract')[0] as string;
  const half = params('finalizepsbt', 'one of two signatures (incomplete)')[0] as string;
  for (const [what, p] of [
    ['combined (extract by default)', [combined]],
    ['combined, no extract', [combined, false]],
    ['combined version 0', [combinedV0]],
    ['one of two signatures', [half]],
    ['not a PSBT', ['cHNidP8=']],
    ['extract not a boolean', [combined, 'yes']],
  ] as const) {
    s.push(strict(`finalizepsbt: ${what}`, 'finalizepsbt', [...p]));
  }
  for (const [what, p] of [
    ['unsigned vault', params('analyzepsbt', 'unsigned vault')],
    ['one of two signatures', [half]],
    ['ready to finalize', [combined]],
    ['version 0, ready to finalize', [cosignersV0[0]![0]]],
    ['no UTXO data', params('analyzepsbt', 'no utxo data')],
    ['not base64', ['%%']],
  ] as const) {
    s.push(strict(`analyzepsbt: ${what}`, 'analyzepsbt', [...p]));
  }
  return s;
}
