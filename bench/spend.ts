/**
 * Coin selection over 10,000 UTXOs (goal ≤ 50 ms), Spyglass's selectCoins against two baselines
 * measured in the same run on the same wallet and payment:
 * - naive: coins sorted by value, largest first, accumulated until they pay; at each step the fee
 *   is recomputed from the size of the whole transaction (estimateTx over every input so far);
 * - @bitcoinerlab/coinselect 1.3.4 (`coinselect`: its avoidChange, then addUntilReach), on the
 *   same coins as `addr()` Output instances (built before timing, one per address).
 * Three payments: one a changeless set can pay (BnB finds it), one that needs change (round-value
 * coins: no subset lands within the cost of change), and the latter at 50 sat/vB (CoinGrinder on).
 * The notes compare what each one chose: inputs, fee, change.
 *
 * Run alone: npx tsx bench/spend.ts   (or as the `spend` group of npm run bench)
 */
import * as btc from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import * as ecc from '@bitcoinerlab/secp256k1';
import { DescriptorsFactory, type OutputInstance } from '@bitcoinerlab/descriptors';
import { coinselect } from '@bitcoinerlab/coinselect';
import { selectCoins, type CoinSelection, type SpendableCoin } from '../shared/bitcoin/spend/coins';
import { estimateTx, inputVsize, type InputKind } from '../shared/bitcoin/spend/size';
import { feeFor, formatSatPerVb } from '../shared/bitcoin/spend/feerate';
import { dustThreshold } from '../shared/bitcoin/spend/dust';
import { toHex } from '../shared/bitcoin/hex';
import { printTable, type Row } from './table';

const N = 10_000;
const RUNS = 7;
const WARMUPS = 2;

function bestOf(n: number, warmups: number, f: () => void): number {
  for (let i = 0; i < warmups; i++) f();
  let best = Infinity;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    f();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

/** mulberry32 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Addr {
  kind: InputKind;
  script: Uint8Array;
  address: string;
}

/** 200 mainnet addresses of each single-sig type (the library takes addr() descriptors). */
function addresses(): Addr[] {
  const out: Addr[] = [];
  for (let i = 0; i < 200; i++) {
    const pub = secp256k1.getPublicKey(sha256(utf8ToBytes(`spend bench key ${i}`)), true);
    const pays: [InputKind, { script: Uint8Array; address?: string }][] = [
      [{ type: 'p2wpkh' }, btc.p2wpkh(pub)],
      [{ type: 'p2tr' }, btc.p2tr(pub.subarray(1))],
      [{ type: 'p2sh-p2wpkh' }, btc.p2sh(btc.p2wpkh(pub))],
      [{ type: 'p2pkh' }, btc.p2pkh(pub)],
    ];
    for (const [kind, p] of pays) out.push({ kind, script: p.script, address: p.address! });
  }
  return out;
}

/** A wallet of N coins: half p2wpkh, a quarter p2tr, 15 % p2sh-p2wpkh, 10 % p2pkh. */
function wallet(addrs: Addr[], value: (r: () => number) => bigint, seed: number): { coins: SpendableCoin[]; addrOf: Addr[] } {
  const r = prng(seed);
  const coins: SpendableCoin[] = [];
  const addrOf: Addr[] = [];
  for (let i = 0; i < N; i++) {
    const x = r();
    const t = x < 0.5 ? 0 : x < 0.75 ? 1 : x < 0.9 ? 2 : 3;
    const a = addrs[Math.floor(r() * 200) * 4 + t]!;
    coins.push({ txid: toHex(sha256(utf8ToBytes(`bench coin ${seed} ${i}`))), vout: i % 3, value: value(r), kind: a.kind, confirmations: 1 + Math.floor(r() * 1000) });
    addrOf.push(a);
  }
  return { coins, addrOf };
}

interface Picked {
  inputs: InputKind[];
  fee: bigint;
  change: bigint | null;
  /** Excess given to the fee without change (0 with change). */
  excess: bigint;
}

/** Naive: largest first, the whole transaction's fee recomputed at every step. */
function naive(coins: readonly SpendableCoin[], dest: Uint8Array, amount: bigint, change: Uint8Array, rate: bigint): Picked {
  const sorted = [...coins].sort((a, b) => (a.value > b.value ? -1 : a.value < b.value ? 1 : 0));
  const kinds: InputKind[] = [];
  let total = 0n;
  for (const c of sorted) {
    kinds.push(c.kind);
    total += c.value;
    const withChange = feeFor(rate, estimateTx(kinds, [dest, change]).vsize);
    if (total - amount - withChange >= dustThreshold(change)) return { inputs: kinds, fee: withChange, change: total - amount - withChange, excess: 0n };
    const without = feeFor(rate, estimateTx(kinds, [dest]).vsize);
    if (total - amount >= without) return { inputs: kinds, fee: total - amount, change: null, excess: total - amount - without };
  }
  throw new Error('naive: insufficient funds');
}

/**
 * Core's waste metric of a selection at `rate` (long-term rate and discard rate 10 sat/vB, p2wpkh
 * change): Σ(input fee now − input fee at the long-term rate) + (cost of change, or the excess).
 */
function waste(p: Picked, rate: bigint): bigint {
  let w = 0n;
  for (const k of p.inputs) w += feeFor(rate, inputVsize(k)) - feeFor(10_000n, inputVsize(k));
  return w + (p.change === null ? p.excess : feeFor(10_000n, inputVsize({ type: 'p2wpkh' })) + feeFor(rate, 31));
}

function describe(p: Picked, rate: bigint): string {
  const n = p.inputs.length;
  return `${n} input${n === 1 ? '' : 's'}, fee ${p.fee} sat, ${p.change === null ? 'no change' : `change ${p.change} sat`}, waste ${waste(p, rate)} sat`;
}

function fromSelection(s: CoinSelection): Picked {
  return { inputs: s.inputs.map((c) => c.kind), fee: s.fee, change: s.change?.value ?? null, excess: s.droppedToFee };
}

export async function benchSpend(): Promise<Row[]> {
  const { Output } = DescriptorsFactory(ecc);
  const addrs = addresses();
  const outputs = new Map<string, OutputInstance>();
  const outputOf = (a: { address: string }): OutputInstance => {
    let o = outputs.get(a.address);
    if (!o) outputs.set(a.address, (o = new Output({ descriptor: `addr(${a.address})` })));
    return o;
  };
  const dest = addrs[0]!;
  const changeAddr = addrs[4]!; // p2wpkh
  const change = { script: changeAddr.script, kind: changeAddr.kind };

  // log-uniform 5,000 sat … 5,000,000 sat: dense, changeless sets abound
  const dense = wallet(addrs, (r) => BigInt(Math.floor(5000 * 10 ** (r() * 3))), 1);
  // round values, multiples of 100,000 sat: no subset lands within the cost of change of x,234,567
  const round = wallet(addrs, (r) => BigInt(1 + Math.floor(r() * 100)) * 100_000n, 2);

  const cases = [
    { label: 'changeless target (BnB)', w: dense, amount: 5_000_000n, rate: 10_000n, expectChange: false },
    { label: 'change needed', w: round, amount: 12_345_678n, rate: 10_000n, expectChange: true },
    { label: 'change needed, CoinGrinder on', w: round, amount: 12_345_678n, rate: 50_000n, expectChange: true },
  ];
  const rows: Row[] = [];
  for (const c of cases) {
    const request = { coins: c.w.coins, recipients: [{ script: dest.script, value: c.amount }], feeRate: c.rate, change };
    let ours: CoinSelection | undefined;
    const oursMs = bestOf(RUNS, WARMUPS, () => {
      ours = selectCoins(request);
    });
    if ((ours!.change !== null) !== c.expectChange) throw new Error(`bench ${c.label}: expected ${c.expectChange ? 'change' : 'no change'}, got ${ours!.algorithm}`);
    let naivePick: Picked | undefined;
    const naiveMs = bestOf(RUNS, WARMUPS, () => {
      naivePick = naive(c.w.coins, dest.script, c.amount, change.script, c.rate);
    });
    const utxos = c.w.coins.map((coin, i) => ({ output: outputOf(c.w.addrOf[i]!), value: Number(coin.value) }));
    const index = new Map(utxos.map((u, i) => [u, i]));
    const targets = [{ output: outputOf(dest), value: Number(c.amount) }];
    const remainder = outputOf(changeAddr);
    let lib: Picked | undefined;
    const libMs = bestOf(RUNS, 1, () => {
      const r = coinselect({ utxos, targets, remainder, feeRate: Number(c.rate) / 1000 });
      if (!r) throw new Error('coinselect found nothing');
      const kinds = r.utxos.map((u) => c.w.addrOf[index.get(u)!]!.kind);
      const hasChange = r.targets.length > 1;
      const inSum = r.utxos.reduce((a, u) => a + BigInt(u.value), 0n);
      lib = { inputs: kinds, fee: BigInt(r.fee), change: hasChange ? BigInt(r.targets[1]!.value) : null, excess: hasChange ? 0n : inSum - c.amount - feeFor(c.rate, estimateTx(kinds, [dest.script]).vsize) };
    });
    const name = `coin selection, 10,000 UTXOs, ${c.label}, ${formatSatPerVb(c.rate)}`;
    const unit = `ms (best of ${RUNS})`;
    const oursNote = `ours: ${ours!.algorithm}, ${describe(fromSelection(ours!), c.rate)}`;
    rows.push(
      { name, unit, ours: oursMs, baseline: naiveMs, lowerIsBetter: true, note: `naive largest-first, fee recomputed each step (${describe(naivePick!, c.rate)}); ${oursNote}` },
      { name, unit, ours: oursMs, baseline: libMs, lowerIsBetter: true, note: `@bitcoinerlab/coinselect 1.3.4 (${describe(lib!, c.rate)})` },
    );
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  void benchSpend().then((rows) => printTable('spend', rows));
}
