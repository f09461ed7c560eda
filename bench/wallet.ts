/**
 * Offline wallet derivation (goal: importing a 2-of-3 wallet and deriving 10,000 addresses of
 * each branch ≤ 2 s): importWallet on a Caravan 2-of-3 P2WSH file, then WalletAddresses for
 * receive 0…9,999 and change 0…9,999 (60,000 public derivations), in this process.
 *
 * Rows: the first run of the process (cold: JIT, and the 7.9 MB table of multiples of G built
 * once), then the best of 3 warm runs; a single-key wallet likewise. Naive baselines measured in
 * the same run on the first addresses of each branch and extrapolated linearly to 2 × 10,000:
 * - the project's Core port of descriptors (shared/bitcoin/descriptor.ts), deriveaddresses once
 *   per address (a full descriptor parse each time, as a client calling the RPC per address);
 * - the same with the range given (one parse; BigInt BIP32 derivation per key);
 * - @bitcoinerlab/descriptors (new Output({ descriptor, index }).getAddress() per address).
 * Every sampled baseline address is checked equal to ours.
 *
 * Run alone: npx tsx bench/wallet.ts   (or as the `wallet` group of npm run bench)
 */
import { fileURLToPath } from 'node:url';
import * as ecc from '@bitcoinerlab/secp256k1';
import { DescriptorsFactory } from '@bitcoinerlab/descriptors';
import { networks } from 'bitcoinjs-lib';
import { HDKey } from '@scure/bip32';
import { sha256 } from '@noble/hashes/sha2.js';
import { deriveAddresses } from '../shared/bitcoin/descriptor';
import { REGTEST } from '../shared/bitcoin/networks';
import { importWallet, WalletAddresses, type WalletDescription } from '../shared/wallet/index';
import { printTable, type Row } from './table';

const N = 10_000;

/** A Caravan 2-of-3 P2WSH file for regtest (keys from fixed test seeds; only xpubs leave here). */
function caravanFile(): string {
  const keys = [1, 2, 3].map((i) => {
    const m = HDKey.fromMasterSeed(sha256(new TextEncoder().encode(`spyglass bench cosigner ${i}`)), { public: 0x043587cf, private: 0x04358394 });
    return { name: `Signer ${i}`, xpub: m.derive("m/48'/1'/0'/2'").publicExtendedKey, bip32Path: "m/48'/1'/0'/2'", xfp: m.fingerprint.toString(16).padStart(8, '0') };
  });
  return JSON.stringify({ name: 'bench', addressType: 'P2WSH', network: 'regtest', quorum: { requiredSigners: 2, totalSigners: 3 }, extendedPublicKeys: keys });
}

function singleKey(): string {
  const m = HDKey.fromMasterSeed(sha256(new TextEncoder().encode('spyglass bench single')), { public: 0x043587cf, private: 0x04358394 });
  return `[${m.fingerprint.toString(16).padStart(8, '0')}/84h/1h/0h]${m.derive("m/84'/1'/0'").publicExtendedKey}`;
}

interface Run {
  ms: number;
  cpuMs: number;
  receive: string[];
  change: string[];
}

function importAndDerive(text: string, opts: { scriptType?: 'p2wpkh' } = {}): Run {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const w = importWallet(text, REGTEST, opts);
  const a = WalletAddresses.of(w);
  const receive = a.addresses('receive', 0, N);
  const change = a.addresses('change', 0, N);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, receive, change };
}

function best(runs: Run[]): Run {
  return runs.reduce((a, b) => (b.ms < a.ms ? b : a));
}

/** Times `per(branch, i)` on the first `sample` indices of both branches; returns ms extrapolated to 2 × N. */
function baseline(w: WalletDescription, ours: Run, sample: number, per: (desc: string, i: number) => string): number {
  const t0 = performance.now();
  for (const [desc, want] of [[w.external, ours.receive], [w.internal!, ours.change]] as const) {
    for (let i = 0; i < sample; i++) {
      const got = per(desc, i);
      if (got !== want[i]) throw new Error(`baseline disagrees at ${i}: ${got} vs ${want[i]}`);
    }
  }
  return ((performance.now() - t0) / (2 * sample)) * 2 * N;
}

function rangeBaseline(w: WalletDescription, ours: Run, sample: number): number {
  const t0 = performance.now();
  for (const [desc, want] of [[w.external, ours.receive], [w.internal!, ours.change]] as const) {
    const got = deriveAddresses(desc, REGTEST, [0, sample - 1]) as string[];
    if (got.join() !== want.slice(0, sample).join()) throw new Error('range baseline disagrees');
  }
  return ((performance.now() - t0) / (2 * sample)) * 2 * N;
}

export async function benchWallet(): Promise<Row[]> {
  const { Output } = DescriptorsFactory(ecc);
  const file = caravanFile();
  const cold = importAndDerive(file);
  const warm = best([importAndDerive(file), importAndDerive(file), importAndDerive(file)]);
  const w = importWallet(file, REGTEST);
  const perAddress = baseline(w, warm, 150, (d, i) => (deriveAddresses(d, REGTEST, [i, i]) as string[])[0]!);
  const ranged = rangeBaseline(w, warm, 250);
  const lab = baseline(w, warm, 60, (d, i) => new Output({ descriptor: d, index: i, network: networks.regtest }).getAddress());
  const single = singleKey();
  const sWarm = best([importAndDerive(single, { scriptType: 'p2wpkh' }), importAndDerive(single, { scriptType: 'p2wpkh' })]);
  const sw = importWallet(single, REGTEST, { scriptType: 'p2wpkh' });
  const sRanged = rangeBaseline(sw, sWarm, 500);
  const s = (ms: number): number => ms / 1000;
  const goal = (ms: number): string => (ms <= 2000 ? 'goal ≤ 2 s: met' : 'goal ≤ 2 s: NOT MET');
  return [
    {
      name: 'import Caravan 2-of-3 P2WSH + derive 10,000 receive + 10,000 change, first run of the process',
      unit: 's',
      ours: s(cold.ms),
      baseline: s(perAddress),
      lowerIsBetter: true,
      note: `${goal(cold.ms)}; CPU ${s(cold.cpuMs).toFixed(2)} s; includes building the table of multiples of G; baseline: Core port deriveaddresses per address (full parse), 150/branch extrapolated`,
    },
    {
      name: 'the same, warm (best of 3)',
      unit: 's',
      ours: s(warm.ms),
      baseline: s(perAddress),
      lowerIsBetter: true,
      note: `${goal(warm.ms)}; CPU ${s(warm.cpuMs).toFixed(2)} s; baseline as above`,
    },
    {
      name: 'the same, warm, against one ranged deriveaddresses of the Core port',
      unit: 's',
      ours: s(warm.ms),
      baseline: s(ranged),
      lowerIsBetter: true,
      note: 'baseline: parse once, BigInt BIP32 derivation per key; 250/branch extrapolated',
    },
    {
      name: 'the same, warm, against @bitcoinerlab/descriptors',
      unit: 's',
      ours: s(warm.ms),
      baseline: s(lab),
      lowerIsBetter: true,
      note: 'baseline: new Output({ descriptor, index }).getAddress() per address; 60/branch extrapolated',
    },
    {
      name: 'single key (P2WPKH): import + 2 × 10,000 addresses, warm (best of 2)',
      unit: 's',
      ours: s(sWarm.ms),
      baseline: s(sRanged),
      lowerIsBetter: true,
      note: `CPU ${s(sWarm.cpuMs).toFixed(2)} s; baseline: Core port ranged deriveaddresses, 500/branch extrapolated`,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  void benchWallet().then((rows) => printTable('wallet', rows));
}
