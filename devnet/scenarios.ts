/**
 * Scenarios: `empty`, `demo` (a believable watch-only wallet over ~200 blocks) and `large:N`
 * (N watched addresses with 1–3 UTXOs each, for benchmarks). Everything is driven through the same
 * node operations a test would use over RPC, with a deterministic clock, so the same seed always
 * gives the same chain.
 */
import { addChecksum } from '../shared/bitcoin/descriptor-checksum';
import { parseDescriptor } from '../shared/bitcoin/descriptor';
import { decodeDestination } from '../shared/bitcoin/address';
import { DevnetNode } from './node/node';
import type { AddressType, Wallet } from './wallet/wallet';
import { bytesToHex } from './chain/encoding';
import { HDKey } from '@scure/bip32';

export type ScenarioName = 'empty' | 'demo' | `large:${number}`;

export function parseScenario(s: string): ScenarioName {
  if (s === 'empty' || s === 'demo') return s;
  const m = /^large:([1-9][0-9]*)$/.exec(s);
  if (m) return `large:${Number(m[1])}`;
  throw new Error(`unknown scenario '${s}' (use empty, demo or large:N)`);
}

/** Deterministic pseudo-random numbers (xorshift32) from the seed. */
export class Rng {
  private s: number;
  constructor(seed: string) {
    let h = 2166136261;
    for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    this.s = h >>> 0 || 1;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 0x100000000;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
}

/** First block time of scenario chains; each block is 10 minutes after the previous one. */
export const SCENARIO_BASE_TIME = 1_767_225_600; // 2026-01-01T00:00:00Z

export interface ScenarioInfo {
  /** Name of the watch-only wallet the app should use ('' for empty). */
  watchWallet: string;
  wallets: string[];
}

export const DEMO_LABELS = [
  'payroll', 'donations', 'rent', 'savings', 'exchange withdrawals', 'tips jar', 'invoice #1042', 'invoice #1043',
  'merch store', 'mining payouts', 'family', 'emergency fund', 'podcast sponsor', 'grant', 'refunds', 'consulting',
  'bounty', 'hardware sale', 'coffee shop', 'conference', '', '', '', '',
];

function mineTo(node: DevnetNode, w: Wallet, n: number, clockRef: { t: number }): void {
  const script = node.scriptFor(w.nextAddress('bech32', false));
  for (let i = 0; i < n; i++) {
    clockRef.t += 600;
    node.chain.mineBlock(script, { time: clockRef.t });
  }
}

function sendFrom(node: DevnetNode, from: Wallet, address: string, sats: bigint, feeRate = 2n): string {
  const d = decodeDestination(address, node.network);
  if (!d.ok) throw new Error(d.error);
  return from.broadcast(from.createTransaction([{ script: d.script, value: sats }], { feeRatePerKvB: feeRate * 1000n }));
}

/** Imports `src`'s public receive/change descriptors into a watch-only wallet (as in the capture). */
export function importPublicDescriptors(node: DevnetNode, watch: Wallet, src: Wallet, timestamp: number): void {
  for (const d of src.publicDescriptors()) {
    const desc = parseDescriptor(d.desc, node.network);
    const type = d.desc.startsWith('pkh(') ? 'legacy' : d.desc.startsWith('sh(') ? 'p2sh-segwit' : d.desc.startsWith('wpkh(') ? 'bech32' : 'bech32m';
    watch.addDescriptor(desc, { active: true, internal: d.internal, addressType: type, range: d.range ?? [0, watch.keypool - 1], timestamp });
  }
}

/** Builds a scenario on a fresh node. */
export function buildScenario(node: DevnetNode, name: ScenarioName, seed: string): ScenarioInfo {
  if (name === 'empty') return { watchWallet: '', wallets: [] };
  const clock = { t: SCENARIO_BASE_TIME };
  const savedClock = node.chain.clock;
  node.chain.clock = () => clock.t;
  try {
    return name === 'demo' ? buildDemo(node, seed, clock) : buildLarge(node, Number(name.slice(6)), seed, clock);
  } finally {
    node.chain.clock = savedClock;
  }
}

function buildDemo(node: DevnetNode, seed: string, clock: { t: number }): ScenarioInfo {
  const rng = new Rng(`${seed}/demo`);
  const miner = node.createWallet('miner');
  const hot = node.createWallet('hot');
  const other = node.createWallet('other');
  const watch = node.createWallet('watch', { disablePrivateKeys: true, blank: true });
  importPublicDescriptors(node, watch, hot, node.chain.blockAt(0)!.time);

  // A 2-of-3 vault: keys from three separate signers (hot, other, and a third seed).
  const cosigners = ['hot', 'other', 'vault-third'].map((n) => HDKey.fromMasterSeed(node.walletSeed(n), node.network.bip32));
  const vaultKeys = cosigners.map((k) => {
    const child = k.derive("m/48'/1'/0'/2'/0/0");
    return `[${k.fingerprint.toString(16).padStart(8, '0')}/48h/1h/0h/2h/0/0]${bytesToHex(child.publicKey!)}`;
  });
  const vaultDesc = addChecksum(`wsh(multi(2,${vaultKeys.join(',')}))`);
  watch.addDescriptor(parseDescriptor(vaultDesc, node.network), {
    active: false, internal: false, addressType: null, range: [0, 0], timestamp: SCENARIO_BASE_TIME, label: 'vault',
  });
  // An addr() import of a cold-storage address whose key lives elsewhere.
  const coldAddress = other.nextAddress('bech32', false);
  watch.addDescriptor(parseDescriptor(addChecksum(`addr(${coldAddress})`), node.network), {
    active: false, internal: false, addressType: null, range: [0, 0], timestamp: SCENARIO_BASE_TIME, label: 'cold storage',
  });
  const vaultScript = parseDescriptor(vaultDesc, node.network).expand(0)[0]!.script;

  mineTo(node, miner, 110, clock);

  // ~40 watched receive addresses of every type, with labels.
  const types: AddressType[] = ['bech32', 'bech32', 'bech32m', 'p2sh-segwit', 'legacy'];
  const watched: string[] = [];
  for (let i = 0; i < 40; i++) {
    const label = DEMO_LABELS[i % DEMO_LABELS.length]!;
    const addr = watch.nextAddress(types[i % types.length]!, false);
    watch.setAddressBook(addr, label, 'receive');
    // The hot wallet holds the keys of the same addresses; keep its receive index in step.
    hot.nextAddress(types[i % types.length]!, false);
    watched.push(addr);
  }
  // Fund them over the next ~70 blocks, a few payments per block; some addresses twice.
  for (let i = 0; i < watched.length; i++) {
    const sats = BigInt(rng.int(1, 400)) * 250_000n + BigInt(rng.int(0, 9999));
    sendFrom(node, miner, watched[i]!, sats, BigInt(rng.int(1, 12)));
    if (i % 3 === 2) mineTo(node, miner, rng.int(1, 3), clock);
  }
  for (let i = 0; i < 8; i++) {
    sendFrom(node, miner, rng.pick(watched), BigInt(rng.int(10, 900)) * 100_000n, 3n);
    mineTo(node, miner, 1, clock);
  }
  sendFrom(node, miner, coldAddress, 1_250_000_000n, 2n);
  const vaultTx = miner.createTransaction([{ script: vaultScript, value: 2_500_000_000n }], { feeRatePerKvB: 2000n });
  miner.broadcast(vaultTx);
  mineTo(node, miner, 3, clock);

  // The hot wallet spends some of the watched coins: spent outputs and change the watcher sees.
  const external = () => other.nextAddress('bech32', false);
  for (let i = 0; i < 10; i++) {
    sendFrom(node, hot, external(), BigInt(rng.int(1, 50)) * 100_000n, BigInt(rng.int(1, 6)));
    mineTo(node, miner, rng.int(1, 4), clock);
  }
  const target = 200;
  if (node.chain.tipHeight() < target) mineTo(node, miner, target - node.chain.tipHeight(), clock);

  // Unconfirmed activity at the tip.
  sendFrom(node, miner, watched[0]!, 50_000_000n, 5n);
  sendFrom(node, miner, watched[3]!, 12_345_678n, 3n);
  sendFrom(node, hot, external(), 1_000_000n, 2n);
  return { watchWallet: 'watch', wallets: ['miner', 'hot', 'other', 'watch'] };
}

function buildLarge(node: DevnetNode, n: number, seed: string, clock: { t: number }): ScenarioInfo {
  const rng = new Rng(`${seed}/large`);
  const miner = node.createWallet('miner');
  const watch = node.createWallet('watch', { disablePrivateKeys: true, blank: true });
  const source = HDKey.fromMasterSeed(node.walletSeed('large-source'), node.network.bip32);
  const fp = source.fingerprint.toString(16).padStart(8, '0');
  const account = source.derive("m/84'/1'/0'");
  const desc = `wpkh([${fp}/84h/1h/0h]${account.publicExtendedKey}/0/*)`;
  watch.addDescriptor(parseDescriptor(addChecksum(desc), node.network), {
    active: true, internal: false, addressType: 'bech32', range: [0, n - 1], timestamp: SCENARIO_BASE_TIME,
  });
  const addresses: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = watch.nextAddress('bech32', false);
    watch.setAddressBook(a, `addr ${i}`, 'receive');
    addresses.push(a);
  }
  // Each funding transaction spends a confirmed coin and its change is confirmed by the next block.
  const outputsWanted = addresses.map(() => rng.int(1, 3));
  mineTo(node, miner, 103, clock);

  const batch: Array<{ script: Uint8Array; value: bigint }> = [];
  const flush = (): void => {
    if (!batch.length) return;
    miner.broadcast(miner.createTransaction(batch.splice(0), { feeRatePerKvB: 1000n }));
    mineTo(node, miner, 1, clock);
  };
  for (let k = 0; k < 3; k++) {
    addresses.forEach((a, i) => {
      if (outputsWanted[i]! <= k) return;
      batch.push({ script: node.scriptFor(a), value: BigInt(rng.int(10_000, 190_000)) });
      if (batch.length >= 500) flush();
    });
    flush();
  }
  return { watchWallet: 'watch', wallets: ['miner', 'watch'] };
}
