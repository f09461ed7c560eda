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
import { coinReadiness, pathLocks, pathLocktime, pathSequence } from '../../shared/send/spend-path';
import { CHANGE, coin } from '../bitcoin/spend/wallet';

const K1 = '[e11d7cc1/48h/1h/0h/2h]tpubDEw4nZ7PYWjNb8hsDquhRUdQ7HesUBeUwdJSCFkQ91ok6nRtBwY3YSMox6iFB4iWcDwAUVCV9zdio6HQKEGU7xe2RnHqrWqKvRdRA76s9Jr/0/*';
const K2 = '[e0975ead/48h/1h/0h/2h]tpubDEVLDZmVHbHSdU9xzaMV6tLPEbFZCoXm7MLW5VkLTpx3rZKwPr1PvbTfFcAwvKBHYwmBuGxyrhE1dVdVVVC8fcHQ85ut49Ut6vzd1tVXBup/0/*';
const OLDER = parseDescriptor(`wsh(or_d(pk(${K1}),and_v(v:pkh(${K2}),older(10))))`, REGTEST);
const AFTER = parseDescriptor(`wsh(or_d(pk(${K1}),and_v(v:pkh(${K2}),after(200))))`, REGTEST);
const NOW = { tipHeight: 150, nowSeconds: 1_800_000_000 };

const pathOf = (d: typeof OLDER, i: number, signNow = false, now = NOW): ComposePath => {
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
