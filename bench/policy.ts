/**
 * Policy wallet addresses (issue #32; goal ≤ 100 µs an address for a typical policy): a policy
 * wallet imported with importWallet, then WalletAddresses derives receive addresses through the
 * compiled template (shared/wallet/policy-template.ts, policy-derive.ts: keys derived in batches,
 * slots filled, tr() output keys tweaked in one batch). Per policy: the best of 3 warm runs of
 * 1,000 addresses, against the old path measured in the same run — the descriptor port's expansion
 * per index (descriptor → miniscript → script → address, BigInt BIP32), which WalletAddresses used
 * before — on the first 60 addresses, each checked equal to ours. The fixed 2-of-3 wsh(sortedmulti)
 * (the batched derivation the fixed shapes use) is printed beside them as the floor per key.
 *
 * Run alone: npx tsx bench/policy.ts   (or as the `policy` group of npm run bench)
 */
import { fileURLToPath } from 'node:url';
import { encodeDestination, extractDestination } from '../shared/bitcoin/address';
import { parseDescriptor } from '../shared/bitcoin/descriptor';
import { REGTEST } from '../shared/bitcoin/networks';
import { importWallet, WalletAddresses } from '../shared/wallet/index';
import { compilePolicy } from '../shared/wallet/policy-template';
import { POLICIES, watchDescriptor, type Policy } from '../test/support/miniscript-policies';
import { printTable, type Row } from './table';

const N = 1000;
const SAMPLE = 60;

interface Timed {
  us: number;
  cpuUs: number;
}

/**
 * Best of `runs` of `f` by CPU time (µs per address, and the wall time of that run): the machine
 * is shared, so a process gets a fraction of a core and its CPU time is the steadier measure.
 */
function best(runs: number, per: number, f: (run: number) => void): Timed {
  let out: Timed = { us: Infinity, cpuUs: Infinity };
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    f(r);
    const us = ((performance.now() - t0) * 1000) / per;
    const c = process.cpuUsage(c0);
    const cpuUs = (c.user + c.system) / per;
    if (cpuUs < out.cpuUs) out = { us, cpuUs };
  }
  return out;
}

function policyRow(p: Policy, label: string): Row {
  const w = importWallet(watchDescriptor(p), REGTEST);
  const addr = WalletAddresses.of(w);
  const keys = compilePolicy(parseDescriptor(w.external, REGTEST))!.keys.filter((k) => k.kind === 'ranged').length;
  addr.addresses('receive', 0, N); // warm-up (and the table of multiples of G, once per process)
  let ours: string[] = [];
  const fast = best(3, N, (r) => {
    ours = addr.addresses('receive', (r + 1) * N, N);
  });
  // the old path: a fresh descriptor (its expansions are cached per index), each index expanded
  const d = parseDescriptor(w.external, REGTEST);
  const slow = best(1, SAMPLE, () => {
    for (let j = 0; j < SAMPLE; j++) {
      const i = 3 * N + j;
      const got = encodeDestination(extractDestination(d.expand(i)[0]!.script)!, REGTEST);
      if (got !== ours[j]) throw new Error(`${p.name}: the old path disagrees at ${i}: ${got} vs ${ours[j]}`);
    }
  });
  return {
    name: `${label}: ${N.toLocaleString('en-US')} receive addresses (${keys} ranged key${keys > 1 ? 's' : ''})`,
    unit: 'CPU µs / address (best of 3 warm runs)',
    ours: fast.cpuUs,
    baseline: slow.cpuUs,
    lowerIsBetter: true,
    note: `goal ≤ 100 µs: ${fast.cpuUs <= 100 ? 'met' : 'not met'}; wall ${fast.us.toFixed(0)} µs vs ${slow.us.toFixed(0)} µs; 1,000 addresses ${((fast.cpuUs * N) / 1000).toFixed(0)} ms vs ${((slow.cpuUs * N) / 1e6).toFixed(2)} s CPU; baseline: the old path (descriptor port expansion per index), ${SAMPLE} addresses, each equal to ours`,
  };
}

function fixedRow(): Row {
  // the same three keys as the policies, as a fixed 2-of-3 (the batched derivation of fixed shapes)
  const keys = watchDescriptor(POLICIES.find((p) => p.name.startsWith('tr multi_a'))!)
    .split('#')[0]!
    .match(/\[[^\]]+\][a-zA-Z0-9]+\/0\/\*/g)!;
  const w = importWallet(`wsh(sortedmulti(2,${keys.join(',')}))`, REGTEST);
  const addr = WalletAddresses.of(w);
  addr.addresses('receive', 0, N);
  const fast = best(3, N, (r) => addr.addresses('receive', (r + 1) * N, N));
  const d = parseDescriptor(w.external, REGTEST);
  const slow = best(1, SAMPLE, () => {
    for (let j = 0; j < SAMPLE; j++) encodeDestination(extractDestination(d.expand(3 * N + j)[0]!.script)!, REGTEST);
  });
  return {
    name: `reference: fixed wsh(sortedmulti(2, the same 3 keys)): ${N.toLocaleString('en-US')} receive addresses`,
    unit: 'CPU µs / address (best of 3 warm runs)',
    ours: fast.cpuUs,
    baseline: slow.cpuUs,
    lowerIsBetter: true,
    note: `the fixed shapes' batched derivation, the floor per key; wall ${fast.us.toFixed(0)} µs vs ${slow.us.toFixed(0)} µs; baseline: the descriptor port expansion per index`,
  };
}

export async function benchPolicy(): Promise<Row[]> {
  const named = (prefix: string): Policy => POLICIES.find((p) => p.name.startsWith(prefix))!;
  return Promise.resolve([
    policyRow(named('A, or B after 10 blocks'), 'wsh(or_d(pk(A),and_v(v:pkh(B),older(10))))'),
    policyRow(named('2-of-3 decaying'), 'wsh(thresh(2,pk(A),s:pk(B),s:pk(C),sln:older(20))) (decaying 2-of-3)'),
    policyRow(named('tr multi_a'), 'tr(unspendable,multi_a(2,A,B,C))'),
    policyRow(named('tr tree'), 'tr(unspendable,{multi_a(2,A,B,C),and_v(v:multi_a(1,A,B,C),older(20))})'),
    fixedRow(),
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  void benchPolicy().then((rows) => printTable('policy', rows));
}
