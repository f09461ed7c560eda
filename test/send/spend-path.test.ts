// Send along a chosen spending path (shared/send/spend-path.ts, compose's `path`): older(N) → every
// input's nSequence, after(N) → nLockTime, the fee from the path's input size, each coin's readiness
// ("possible in N blocks (height H, ~date)"), and the refusal of a path whose lock is not reached
// unless a PSBT to sign now and broadcast later is asked for.
import { describe, expect, it } from 'vitest';
import { parseDescriptor } from '../../shared/bitcoin/descriptor';
import { describePolicy } from '../../shared/bitcoin/miniscript/policy';
import { REGTEST } from '../../shared/bitcoin/networks';
import { pathInputKind } from '../../shared/bitcoin/spend/path-size';
import { estimateTx } from '../../shared/bitcoin/spend/size';
import { compose, ComposeError, type ComposeInput, type ComposePath } from '../../shared/send/compose';
import { parseRecipients } from '../../shared/send/recipients';
import { coinReadiness, lockStartHeight, pathLocks, pathLocktime, pathSequence, type ChainNow } from '../../shared/send/spend-path';
import { CHANGE, coin } from '../bitcoin/spend/wallet';

const K1 = '[e11d7cc1/48h/1h/0h/2h]tpubDEw4nZ7PYWjNb8hsDquhRUdQ7HesUBeUwdJSCFkQ91ok6nRtBwY3YSMox6iFB4iWcDwAUVCV9zdio6HQKEGU7xe2RnHqrWqKvRdRA76s9Jr/0/*';
const K2 = '[e0975ead/48h/1h/0h/2h]tpubDEVLDZmVHbHSdU9xzaMV6tLPEbFZCoXm7MLW5VkLTpx3rZKwPr1PvbTfFcAwvKBHYwmBuGxyrhE1dVdVVVC8fcHQ85ut49Ut6vzd1tVXBup/0/*';
const OLDER = parseDescriptor(`wsh(or_d(pk(${K1}),and_v(v:pkh(${K2}),older(10))))`, REGTEST);
const AFTER = parseDescriptor(`wsh(or_d(pk(${K1}),and_v(v:pkh(${K2}),after(200))))`, REGTEST);
const NOW = { tipHeight: 150, nowSeconds: 1_800_000_000 };

const pathOf = (d: typeof OLDER, i: number, signNow = false, now: ChainNow = NOW): ComposePath => {
  const p = describePolicy(d).paths[i]!;
  return { id: p.id, words: p.words, ...(p.older ? { older: p.older } : {}), ...(p.after ? { after: p.after } : {}), now, signNow };
};

const r = parseRecipients([{ kind: 'pay', address: 'bcrt1qlecyr8pnyxy0g0xyaek2uxa5p909xapzyc705p', amount: '0.5' }], { network: REGTEST, unit: 'btc' });
if (!r.ok) throw new Error('bad fixture');

function input(d: typeof OLDER, pathIndex: number, confirmations: number[], extra: Partial<ComposeInput> = {}): ComposeInput {
  const p = describePolicy(d).paths[pathIndex]!;
  const kind = pathInputKind(d, p.id);
  return {
    coins: confirmations.map((c, i) => coin(i + 1, 100_000_000n, kind, { confirmations: c })),
    recipients: r.ok ? r.recipients : [],
    feeRate: 2000n,
    change: CHANGE,
    locktime: NOW.tipHeight,
    seed: 7,
    path: pathOf(d, pathIndex),
    ...extra,
  };
}

describe('the locks a path asks for', () => {
  it('older(10): nSequence 10 on every input (it signals RBF too); after(200): nLockTime at least 200', () => {
    const [primary, recovery] = describePolicy(OLDER).paths;
    expect(pathLocks(primary!)).toEqual({ sequence: null, minLocktime: null, locktimeIsTime: false });
    expect(pathLocks(recovery!)).toEqual({ sequence: 10, minLocktime: null, locktimeIsTime: false });
    expect(pathSequence(pathLocks(recovery!), 0xfffffffd)).toBe(10);
    expect(pathSequence(pathLocks(primary!), 0xfffffffd)).toBe(0xfffffffd);
    const after = pathLocks(describePolicy(AFTER).paths[1]!);
    expect(after).toEqual({ sequence: null, minLocktime: 200, locktimeIsTime: false });
    expect(pathLocktime(after, 150)).toEqual({ locktime: 200 });
    expect(pathLocktime(after, 250)).toEqual({ locktime: 250 });
    // a locktime typed by the person is never raised behind their back
    expect(pathLocktime(after, 150, true)).toMatchObject({ error: expect.stringContaining('needs a locktime of at least 200; 150 is below it') });
    expect(pathLocktime(after, 250, true)).toEqual({ locktime: 250 });
    expect(pathLocktime(after, 1_700_000_000)).toMatchObject({ error: expect.stringContaining('block height') });
    const timeLock = { sequence: null, minLocktime: 1_700_000_000, locktimeIsTime: true };
    expect(pathLocktime(timeLock, 150)).toEqual({ locktime: 1_700_000_000 });
    expect(pathLocktime(timeLock, 1_600_000_000)).toMatchObject({ error: expect.stringContaining('earlier') });
  });

  it("a coin's readiness: BIP68 counts from its confirmation, BIP65 from the tip", () => {
    const recovery = describePolicy(OLDER).paths[1]!;
    expect(coinReadiness(recovery, 10, NOW).ready).toBe(true);
    const r3 = coinReadiness(recovery, 3, NOW);
    expect(r3).toMatchObject({ ready: false, blocksLeft: 7, height: 157, secondsLeft: 4200, estimate: false });
    expect(r3.words).toBe('possible in 7 blocks (height 157, ~2027-01-15 09:10 UTC)');
    expect(coinReadiness(recovery, 0, NOW)).toMatchObject({ ready: false, blocksLeft: 10, height: null, words: 'possible 10 blocks after it confirms' });
    const afterPath = describePolicy(AFTER).paths[1]!;
    expect(coinReadiness(afterPath, 500, NOW)).toMatchObject({ ready: false, blocksLeft: 50, height: 200 });
    expect(coinReadiness(afterPath, 0, { ...NOW, tipHeight: 200 }).ready).toBe(true);
    expect(coinReadiness(afterPath, 0, { ...NOW, tipHeight: 199 }).blocksLeft).toBe(1);
  });
});

describe('compose along a path', () => {
  it('recovery: nSequence 10, the fee from the recovery witness (larger than the primary one)', () => {
    const c = compose(input(OLDER, 1, [12, 30]));
    expect(c.spec.inputs.every((i) => i.sequence === 10)).toBe(true);
    expect(c.spec.locktime).toBe(150);
    expect(c.path).toMatchObject({ id: 'p1', sequence: 10, minLocktime: null, notBefore: null });
    const kind = pathInputKind(OLDER, 'p1');
    const outs = c.spec.outputs.map((o) => o.script);
    expect(c.selection.vsize).toBe(estimateTx(c.inputs.map(() => kind), outs).vsize);
    const primary = compose(input(OLDER, 0, [12, 30]));
    expect(primary.spec.inputs.every((i) => i.sequence === 0xfffffffd)).toBe(true);
    expect(primary.selection.vsize).toBeLessThan(c.selection.vsize);
    expect(primary.selection.fee).toBeLessThan(c.selection.fee);
  });

  it('recovery before its lock: refused with when it becomes possible; coins not ready are left out', () => {
    try {
      compose(input(OLDER, 1, [3, 5]));
      throw new Error('not refused');
    } catch (e) {
      expect(e).toBeInstanceOf(ComposeError);
      const ce = e as ComposeError;
      expect(ce.code).toBe('send.timelock_not_reached');
      expect(ce.field).toBe('coins');
      expect(ce.message).toContain('No coin can take the path "key B after 10 blocks (~1 h 40 min)" yet: the first is possible in 5 blocks (height 155');
      expect(ce.detail).toMatchObject({ blocksLeft: 5, height: 155 });
    }
    // one coin ready: only it is used
    const c = compose(input(OLDER, 1, [3, 10]));
    expect(c.inputs.map((x) => x.confirmations)).toEqual([10]);
    // picked by hand and not ready: refused
    expect(() => compose(input(OLDER, 1, [3, 10], { manual: [{ txid: coin(1, 1n).txid, vout: coin(1, 1n).vout }] }))).toThrow(/cannot take the path .* yet: possible in 7 blocks/);
  });

  it('a PSBT to sign now and broadcast later: the locks set all the same, and from when it can be broadcast', () => {
    const base = input(OLDER, 1, [3, 5]);
    const c = compose({ ...base, path: { ...base.path!, signNow: true } });
    expect(c.spec.inputs.every((i) => i.sequence === 10)).toBe(true);
    expect(c.path!.notBefore).toMatchObject({ ready: false, height: expect.any(Number) });
    expect([155, 157]).toContain(c.path!.notBefore!.height);
    const a = input(AFTER, 1, [20]);
    expect(() => compose(a)).toThrow(/possible in 50 blocks \(height 200/);
    const later = compose({ ...a, path: { ...a.path!, signNow: true } });
    expect(later.spec.locktime).toBe(200);
    expect(later.spec.inputs.every((i) => i.sequence === 0xfffffffd)).toBe(true);
    expect(later.path!.notBefore).toMatchObject({ blocksLeft: 50, height: 200 });
  });

  it('after(200) reached: nLockTime the tip (≥ 200), inputs not final', () => {
    const c = compose({ ...input(AFTER, 1, [20], { locktime: 230 }), path: pathOf(AFTER, 1, false, { ...NOW, tipHeight: 230 }) });
    expect(c.spec.locktime).toBe(230);
    expect(c.spec.inputs.every((i) => i.sequence < 0xffffffff)).toBe(true);
    expect(() => compose({ ...input(AFTER, 1, [20], { locktime: 199 }), path: { ...pathOf(AFTER, 1, false, { ...NOW, tipHeight: 230 }), locktimeExplicit: true } })).toThrow(/at least 200; 199 is below it/);
    const norbf = compose({ ...input(AFTER, 1, [20], { locktime: 230, rbf: false }), path: pathOf(AFTER, 1, false, { ...NOW, tipHeight: 230 }) });
    expect(norbf.spec.inputs.every((i) => i.sequence === 0xfffffffe)).toBe(true);
  });
});

// Time-based locks judged as Core's mempool judges the next block (consensus/tx_verify.cpp
// IsFinalTx with LOCKTIME_MEDIAN_TIME_PAST; CalculateSequenceLocks + CheckSequenceLocksAtTip):
// after(T) (T ≥ 500000000) is final when T < MTP(tip); older(1<<22 | n) is met when
// MTP(block before the coin's) + n × 512 − 1 < MTP(tip).
describe('time-based locks against the median time past', () => {
  const T = 1_700_000_000;
  const TIME_AFTER = parseDescriptor(`wsh(or_d(pk(${K1}),and_v(v:pkh(${K2}),after(${T}))))`, REGTEST);
  const TIME_OLDER = parseDescriptor(`wsh(or_d(pk(${K1}),and_v(v:pkh(${K2}),older(${(1 << 22) | 10}))))`, REGTEST); // 10 × 512 s
  const afterPath = describePolicy(TIME_AFTER).paths[1]!;
  const olderPath = describePolicy(TIME_OLDER).paths[1]!;

  it('after(time): ready only once the tip MTP is past the lock (the wall clock does not decide)', () => {
    expect(afterPath.after).toEqual({ value: T, unit: 'time' });
    const at = (tipMtp: number, nowSeconds = tipMtp + 3600) => coinReadiness(afterPath, 5, { tipHeight: 150, nowSeconds, tipMtp });
    expect(at(T).ready).toBe(false); // nLockTime == MTP: not final (strictly less is)
    expect(at(T)).toMatchObject({ secondsLeft: 1, estimate: false, words: 'possible once the median time past passes 2023-11-14 22:13 UTC (~1 min)' });
    expect(at(T + 1).ready).toBe(true);
    expect(at(T - 3600)).toMatchObject({ ready: false, secondsLeft: 3601, estimate: false });
    // the clock is far ahead, the chain's MTP is not: still refused
    expect(at(T - 1, T + 86_400).ready).toBe(false);
    // no MTP known (an old offline answer): the estimate (now − 1 h), said to be one
    expect(coinReadiness(afterPath, 5, { tipHeight: 150, nowSeconds: T + 3600 })).toMatchObject({ ready: false, estimate: true });
    expect(coinReadiness(afterPath, 5, { tipHeight: 150, nowSeconds: T + 3601 })).toMatchObject({ ready: true });
  });

  it('older(time): counted from the MTP of the block before the coin’s, met when that + n × 512 ≤ MTP(tip)', () => {
    expect(olderPath.older).toEqual({ value: (1 << 22) | 10, unit: 'seconds', amount: 5120 });
    const start = T;
    // a coin with 3 confirmations at tip 150 is in block 148; the lock counts from MTP(147)
    const now = (tipMtp: number): ChainNow => ({ tipHeight: 150, nowSeconds: tipMtp + 3600, tipMtp, mtpAt: { 147: start } });
    expect(lockStartHeight(3, 150)).toBe(147);
    expect(coinReadiness(olderPath, 3, now(start + 5119))).toMatchObject({ ready: false, secondsLeft: 1, estimate: false });
    expect(coinReadiness(olderPath, 3, now(start + 5119)).words).toBe('possible once the median time past reaches 2023-11-14 23:38 UTC (~1 min, ~2023-11-15 00:38 UTC)');
    expect(coinReadiness(olderPath, 3, now(start + 5120)).ready).toBe(true);
    // the confirmations alone do not decide: 100 confirmations but the MTP has barely moved
    expect(coinReadiness(olderPath, 100, { tipHeight: 150, nowSeconds: start, tipMtp: start + 60, mtpAt: { 50: start } }).ready).toBe(false);
    // a block-0 coin counts from block 0 (Core: GetAncestor(max(height − 1, 0)))
    expect(lockStartHeight(151, 150)).toBe(0);
    // unconfirmed: never yet (the mempool counts it from the tip's MTP, so n × 512 − 1 ≥ 0 is not < 0)
    expect(coinReadiness(olderPath, 0, now(start + 99_999))).toMatchObject({ ready: false, estimate: false, words: 'possible ~1 h 25 min after it confirms' });
    // the start MTP unknown: the estimate from confirmations × 10 min, said to be one
    expect(coinReadiness(olderPath, 3, { tipHeight: 150, nowSeconds: start, tipMtp: start })).toMatchObject({ ready: false, secondsLeft: 5120 - 1800, estimate: true });
    expect(coinReadiness(olderPath, 9, { tipHeight: 150, nowSeconds: start })).toMatchObject({ ready: true });
  });

  it('compose refuses a time-locked path before the MTP passes it and takes it after; nLockTime is the time', () => {
    const base = input(TIME_AFTER, 1, [20]);
    const early = { ...base, path: pathOf(TIME_AFTER, 1, false, { ...NOW, tipMtp: T - 600 }) };
    expect(() => compose(early)).toThrow(/possible once the median time past passes 2023-11-14 22:13 UTC/);
    const c = compose({ ...base, path: pathOf(TIME_AFTER, 1, false, { ...NOW, tipMtp: T + 1 }) });
    expect(c.spec.locktime).toBe(T);
    expect(c.path).toMatchObject({ minLocktime: T, notBefore: null });
    const o = input(TIME_OLDER, 1, [3]);
    const mtp = { tipHeight: 150, nowSeconds: T + 9000, mtpAt: { 147: T } };
    expect(() => compose({ ...o, path: pathOf(TIME_OLDER, 1, false, { ...mtp, tipMtp: T + 5000 }) })).toThrow(/median time past reaches/);
    const ok = compose({ ...o, path: pathOf(TIME_OLDER, 1, false, { ...mtp, tipMtp: T + 5120 }) });
    expect(ok.spec.inputs.every((i) => i.sequence === ((1 << 22) | 10))).toBe(true);
  });
});
