/**
 * The spending policy of a descriptor (shared/bitcoin/miniscript/policy.ts): the paths, their keys,
 * thresholds and timelocks, and the policy in words — over the shapes of issue #32 (the same
 * descriptors test/fixtures/miniscript/ holds Core's fills for) and the plain ones.
 */
import { describe, expect, it } from 'vitest';
import { parseDescriptor } from '../../shared/bitcoin/descriptor';
import { REGTEST } from '../../shared/bitcoin/networks';
import { toHex } from '../../shared/bitcoin/hex';
import { analyzePolicy, describePolicy, policyPubkeysAt, PolicyError, NUMS_H } from '../../shared/bitcoin/miniscript/policy';
import { formatDuration } from '../../shared/bitcoin/miniscript/policy-words';

const XA = 'tpubDEw4nZ7PYWjNb8hsDquhRUdQ7HesUBeUwdJSCFkQ91ok6nRtBwY3YSMox6iFB4iWcDwAUVCV9zdio6HQKEGU7xe2RnHqrWqKvRdRA76s9Jr';
const XB = 'tpubDEVLDZmVHbHSdU9xzaMV6tLPEbFZCoXm7MLW5VkLTpx3rZKwPr1PvbTfFcAwvKBHYwmBuGxyrhE1dVdVVVC8fcHQ85ut49Ut6vzd1tVXBup';
const XC = 'tpubDE6vRGGRs2MiqzSYy2EPRTNyyGyih9GMSzDWgHkNPsTpNkmur3gd9Rr5EQauYD3Dcgjcih485Qsh51Rz4kAj7nJnWLBNmBJqe56nnDMJYHb';
const A = `[e11d7cc1/48h/1h/0h/2h]${XA}/0/*`;
const B = `[e0975ead/48h/1h/0h/2h]${XB}/0/*`;
const C = `[cc8db03a/48h/1h/0h/2h]${XC}/0/*`;

const policy = (desc: string) => describePolicy(parseDescriptor(desc, REGTEST));

describe('spending policy of the issue #32 shapes', () => {
  it('A, or B after 10 blocks', () => {
    const p = policy(`wsh(or_d(pk(${A}),and_v(v:pkh(${B}),older(10))))`);
    expect(p.words).toBe('Key A, or key B after 10 blocks (~1 h 40 min)');
    expect(p.keyPath).toBe('none');
    expect(p.keys).toEqual([
      { name: 'A', fingerprint: 'e11d7cc1', originPath: 'm/48h/1h/0h/2h', xpub: XA, pubkey: null, musig: false },
      { name: 'B', fingerprint: 'e0975ead', originPath: 'm/48h/1h/0h/2h', xpub: XB, pubkey: null, musig: false },
    ]);
    expect(p.paths).toEqual([
      { id: 'p0', kind: 'script', sigs: [{ k: 1, keys: [0] }], hashes: [], words: 'key A' },
      {
        id: 'p1',
        kind: 'script',
        sigs: [{ k: 1, keys: [1] }],
        hashes: [],
        older: { value: 10, unit: 'blocks', amount: 10 },
        words: 'key B after 10 blocks (~1 h 40 min)',
      },
    ]);
  });

  it('A, or B after height 200', () => {
    const p = policy(`wsh(or_d(pk(${A}),and_v(v:pkh(${B}),after(200))))`);
    expect(p.words).toBe('Key A, or key B after block 200');
    expect(p.paths[1]!.after).toEqual({ value: 200, unit: 'height' });
    expect(p.paths[1]!.older).toBeUndefined();
  });

  it('2-of-3 decaying to 1-of-3 after 20 blocks', () => {
    const p = policy(`wsh(thresh(2,pk(${A}),s:pk(${B}),s:pk(${C}),sln:older(20)))`);
    expect(p.words).toBe('2 of A, B, C; or any 1 of them after 20 blocks (~3 h 20 min)');
    expect(p.paths.map((x) => [x.sigs, x.older?.amount])).toEqual([
      [[{ k: 2, keys: [0, 1, 2] }], undefined],
      [[{ k: 1, keys: [0, 1, 2] }], 20],
    ]);
    expect(p.keys.map((k) => k.fingerprint)).toEqual(['e11d7cc1', 'e0975ead', 'cc8db03a']);
  });

  it('the Liana-style decaying multisig (or_d of multi and a timelocked thresh) reads the same', () => {
    const p = policy(`wsh(or_d(multi(2,${A},${B},${C}),and_v(v:thresh(1,pkh(${A.replace('/0/*', '/1/*')}),a:pkh(${B.replace('/0/*', '/1/*')}),a:pkh(${C.replace('/0/*', '/1/*')})),older(20))))`);
    // the recovery keys are the same signers (fingerprint, origin, xpub) on another derivation: the same names
    expect(p.keys.map((k) => k.name)).toEqual(['A', 'B', 'C']);
    expect(p.words).toBe('2 of A, B, C; or any 1 of them after 20 blocks (~3 h 20 min)');
  });

  it('tr(NUMS, multi_a(2,A,B,C)): no key path, one 2-of-3 script path', () => {
    const p = policy(`tr(${NUMS_H},multi_a(2,${A},${B},${C}))`);
    expect(p.keyPath).toBe('unspendable');
    expect(p.keys).toHaveLength(3);
    expect(p.paths).toEqual([{ id: 'p0', kind: 'script', leaf: 0, sigs: [{ k: 2, keys: [0, 1, 2] }], hashes: [], words: '2 of A, B, C' }]);
    expect(p.words).toBe('2 of A, B, C (no key path)');
  });

  it('tr(K,{and_v(v:pk(B),older(10))}): the key path and a timelocked leaf', () => {
    const p = policy(`tr(${A},and_v(v:pk(${B}),older(10)))`);
    expect(p.keyPath).toBe('spendable');
    expect(p.words).toBe('Key path: A; script: key B after 10 blocks (~1 h 40 min)');
    expect(p.paths.map((x) => [x.id, x.kind, x.leaf])).toEqual([
      ['key', 'key-path', undefined],
      ['p0', 'script', 0],
    ]);
  });

  it('a tr() tree of three leaves names each leaf', () => {
    const p = policy(`tr(${A},{pk(${B}),{and_v(v:pk(${C}),older(10)),multi_a(1,${B},${C})}})`);
    expect(p.paths.map((x) => [x.id, x.leaf, x.words])).toEqual([
      ['key', undefined, 'key A'],
      ['leaf0.p0', 0, 'key B'],
      ['leaf1.p0', 1, 'key C after 10 blocks (~1 h 40 min)'],
      ['leaf2.p0', 2, 'any 1 of B, C'],
    ]);
    expect(p.words).toBe('Key path: A; script: key B; or key C after 10 blocks (~1 h 40 min); or any 1 of B, C');
  });
});

describe('spending policy of plain descriptors', () => {
  it('single keys, multi and sortedmulti', () => {
    expect(policy(`wpkh(${A})`).words).toBe('Key A');
    expect(policy(`sh(wpkh(${A}))`).words).toBe('Key A');
    expect(policy(`tr(${A})`).words).toBe('Key A');
    expect(policy(`tr(${A})`).paths[0]!.kind).toBe('key-path');
    expect(policy(`wsh(multi(2,${A},${B},${C}))`).words).toBe('2 of A, B, C');
    expect(policy(`sh(wsh(sortedmulti(3,${A},${B},${C})))`).words).toBe('All of A, B, C');
    expect(policy(`wsh(multi(2,${A},${B}))`).words).toBe('Keys A and B');
  });

  it('a key without origin: its own fingerprint (as Core reports it) and the xpub', () => {
    const d = parseDescriptor(`wpkh(${XA}/0/*)`, REGTEST);
    const p = describePolicy(d);
    const core = d.expand(0)[0]!.pubkeys[0]!.origin!;
    expect(p.keys[0]).toMatchObject({ fingerprint: toHex(core.fingerprint), originPath: null, xpub: XA });
    expect(p.keys[0]!.fingerprint).not.toBe('e11d7cc1');
  });

  it('a plain hex key: its pubkey and HASH160 fingerprint', () => {
    const pub = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
    const d = parseDescriptor(`wsh(and_v(v:pk(${pub}),older(4194574)))`, REGTEST);
    const p = describePolicy(d);
    expect(p.keys[0]!.pubkey).toBe(pub);
    expect(p.keys[0]!.fingerprint).toBe(toHex(d.expand(0)[0]!.pubkeys[0]!.origin!.fingerprint));
    // 4194574 = 2^22 + 270: time based, 270 × 512 s
    expect(p.paths[0]!.older).toEqual({ value: 4194574, unit: 'seconds', amount: 138240 });
    expect(p.words).toBe('Key A after 38 h 24 min (270 × 512 s)');
  });

  it('after(time) and hash preimages', () => {
    const h = '9267d3dbed802941483f1afa2a6bc68de5f653128aca9bf1461c5d0a3ad36ed2';
    const p = policy(`wsh(andor(pk(${A}),after(1767225600),and_v(v:pk(${B}),sha256(${h}))))`);
    expect(p.paths.map((x) => x.words)).toEqual(['key A after 2026-01-01 00:00 UTC', 'key B with the SHA256 preimage of 9267d3db…']);
    expect(p.paths[0]!.after).toEqual({ value: 1767225600, unit: 'time' });
    expect(p.paths[1]!.hashes).toEqual([{ fn: 'sha256', digest: h }]);
  });

  it('a multipath descriptor: one policy, keys named once', () => {
    const p = policy(`wsh(or_d(pk(${A.replace('/0/*', '/<0;1>/*')}),and_v(v:pkh(${B.replace('/0/*', '/<0;1>/*')}),older(144))))`);
    expect(p.words).toBe('Key A, or key B after 144 blocks (~24 h)');
  });

  it('addr() and raw() have no policy: a clear error', () => {
    expect(() => policy('addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)')).toThrow(PolicyError);
    expect(() => policy('raw(51)')).toThrow('raw() descriptors do not say which keys can spend; there is no policy to show');
  });
});

describe('policy keys at an index', () => {
  it('derive to the keys the descriptor expands to', () => {
    const d = parseDescriptor(`wsh(thresh(2,pk(${A}),s:pk(${B}),s:pk(${C}),sln:older(20)))`, REGTEST);
    const keys = policyPubkeysAt(analyzePolicy(d), 7);
    const expanded = d.expand(7)[0]!.pubkeys.map((k) => toHex(k.pubkey));
    expect(keys.map((list) => list.map(toHex))).toEqual(expanded.map((k) => [k]));
  });

  it('in tr(): the x-only halves are the keys of the leaf', () => {
    const d = parseDescriptor(`tr(${A},and_v(v:pk(${B}),older(10)))`, REGTEST);
    const keys = policyPubkeysAt(analyzePolicy(d), 3).map((l) => toHex(l[0]!.slice(1)));
    const leaf = toHex(d.expand(3)[0]!.tapLeaves![0]!.script);
    expect(leaf).toContain(keys[1]);
    expect(keys[0]).toHaveLength(64);
  });
});

describe('durations', () => {
  it('read like people say them', () => {
    expect(formatDuration(600)).toBe('10 min');
    expect(formatDuration(6000)).toBe('1 h 40 min');
    expect(formatDuration(12000)).toBe('3 h 20 min');
    expect(formatDuration(3 * 86400 + 4 * 3600)).toBe('3 days 4 h');
    expect(formatDuration(2016 * 600)).toBe('14 days');
    expect(formatDuration(26280 * 600)).toBe('6 months');
    expect(formatDuration(52560 * 600)).toBe('1 year');
    expect(formatDuration(78840 * 600)).toBe('1.5 years');
  });
});
