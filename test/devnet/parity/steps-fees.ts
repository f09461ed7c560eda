/**
 * The fee estimator phase, strict: estimatesmartfee before there is any history (Core's
 * "Insufficient data or no feerate found"), then a fee history both nodes see alike — a funding of
 * 60 taproot coins, then blocks each confirming six independent spends at 2 to 40 sat/vB, and some
 * spends left waiting a block or two — with estimatesmartfee asked at several targets in both modes
 * along the way, and its argument errors.
 */
import { OTHER_MINER, spendMiner } from './keys';
import { strict, type Step, type Vars } from './run';
import { KINDS, signKinds, type KindCoin } from './sign';
import { COINBASE } from './steps-chain';

const COINS = 60;
const VALUE = 50_000_000n;
const P2TR_VSIZE = 111n;
/** Six fee rates (sat/vB) per block, rotating so every block sees a spread. */
const RATES = [2n, 5n, 9n, 14n, 22n, 40n];

const funding = (v: Vars): { hex: string; txid: string } =>
  spendMiner([{ txid: v.cb[9], vout: 0, value: COINBASE }], [
    ...Array.from({ length: COINS }, () => ({ address: KINDS.p2tr.address!, value: VALUE })),
    { address: OTHER_MINER.address, value: COINBASE - BigInt(COINS) * VALUE - 200_000n },
  ]);

const spend = (v: Vars, n: number, rate: bigint): string => {
  const f = funding(v);
  const c: KindCoin = { txid: f.txid, vout: n, value: VALUE, kind: 'p2tr', prevHex: f.hex };
  return signKinds([c], [{ address: OTHER_MINER.address, value: VALUE - rate * P2TR_VSIZE }]).hex;
};

export function feeSteps(): Step[] {
  const s: Step[] = [];
  const estimates = (when: string, targets: number[]): void => {
    for (const t of targets) {
      for (const mode of ['economical', 'conservative']) s.push(strict(`estimatesmartfee ${t} ${mode}, ${when}`, 'estimatesmartfee', [t, mode]));
    }
  };
  const mine = (name: string): void =>
    void s.push(strict(name, 'generatetoaddress', [1, OTHER_MINER.address], { save: (v, r) => void (v.blocks as string[]).push(...(r as string[])) }));

  estimates('no history yet', [1, 2, 6]);
  s.push(strict('estimatesmartfee 2, no mode, no history yet', 'estimatesmartfee', [2]));
  for (const [what, p] of [['target 0', [0]], ['target 1009', [1009]], ['target -1', [-1]], ['target as a string', ['2']], ['unknown mode', [2, 'fast']], ['mode in capitals', [2, 'CONSERVATIVE']], ['mode unset', [3, 'unset']], ['no target', []]] as const) {
    s.push(strict(`estimatesmartfee: ${what}`, 'estimatesmartfee', [...p]));
  }
  s.push(strict('getblock 9 (the coinbase of the fee history)', 'getblock', (v) => [v.blocks[9]], { save: (v, r) => void (v.cb[9] = (r as { tx: string[] }).tx[0]) }));
  s.push(strict('sendrawtransaction: 60 coins for the fee history', 'sendrawtransaction', (v) => [funding(v).hex]));
  mine('generatetoaddress 1 (confirms the 60 coins)');
  let coin = 0;
  for (let block = 0; block < 8; block++) {
    for (let k = 0; k < RATES.length; k++) {
      const n = coin++;
      const rate = RATES[(k + block) % RATES.length]!;
      s.push(strict(`sendrawtransaction: fee history, block ${block}, ${rate} sat/vB`, 'sendrawtransaction', (v) => [spend(v, n, rate)]));
    }
    mine(`generatetoaddress 1 (fee history block ${block})`);
    if (block === 3) estimates('after four blocks', [1, 2, 3]);
  }
  // Two spends wait in the mempool while two blocks pass, one leaves by replacement.
  const waiting = coin++;
  s.push(strict('sendrawtransaction: 1 sat/vB, left waiting', 'sendrawtransaction', (v) => [spend(v, waiting, 1n)]));
  const replaced = coin++;
  s.push(strict('sendrawtransaction: 3 sat/vB, to be replaced', 'sendrawtransaction', (v) => [spend(v, replaced, 3n)]));
  s.push(strict('sendrawtransaction: its replacement at 30 sat/vB', 'sendrawtransaction', (v) => [spend(v, replaced, 30n)]));
  s.push(strict('getmempoolinfo during the fee history', 'getmempoolinfo'));
  estimates('after eight blocks', [1, 2, 3, 4, 6, 10, 12, 24, 25, 48, 144, 1008]);
  return s;
}
