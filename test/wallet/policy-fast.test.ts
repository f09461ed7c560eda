/**
 * Issue #32, the policy wallets' fast path (shared/wallet/policy-template.ts, policy-derive.ts):
 * a template compiled once, keys derived in batches and written into its slots, must give exactly
 * the scripts of the slow path (the descriptor port's expansion: descriptor → miniscript → script →
 * address), seeded random and edge indices, every policy of test/support/miniscript-policies.ts on
 * both branches, sh(wsh()) and fixed or hex keys; exactly the addresses Bitcoin Core's
 * deriveaddresses gave (the recordings test/fixtures/miniscript/core-*.jsonl); and a template
 * mutated in any one place (a key slot, an offset, a form, a script byte, a leaf depth, the internal
 * key, sh()) must be caught by the same comparison.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it, vi } from 'vitest';
import { encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { parseDescriptor, type Descriptor } from '../../shared/bitcoin/descriptor';
import { toHex } from '../../shared/bitcoin/hex';
import { REGTEST } from '../../shared/bitcoin/networks';
import { importWallet, WalletAddresses } from '../../shared/wallet/index';
import { PolicyDeriver } from '../../shared/wallet/policy-derive';
import { compilePolicy, type PolicyTemplate } from '../../shared/wallet/policy-template';
import { NUMS, POLICIES, watchDescriptor, type Policy } from '../support/miniscript-policies';

const SEED = 'spyglass policy-fast #32';
const DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'miniscript');
interface Recording {
  note: string;
  descriptor: string;
  range?: [number, number] | null;
  addresses?: string[] | string[][];
}

/** Seeded indices in [0, 2^31): SHA-256 of (seed, counter). */
function randomIndices(seed: string, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; out.length < n; i++) {
    const h = sha256(new TextEncoder().encode(`${seed}/${i}`));
    out.push(((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) & 0x7fffffff);
  }
  return out;
}

const TOP = 0x7fffffff;
/** Chunk borders of the address cache (64) and of addresses() (1024), 2^16 and 2^24 carries, the last indices. */
const EDGES = [0, 1, 63, 64, 1023, 1024, 0xffff, 0x10000, 0xffffff, 0x1000000, TOP - 1, TOP];

const address = (spk: Uint8Array): string => encodeDestination(extractDestination(spk)!, REGTEST);

/** The slow path: the descriptor port's expansion of each index. */
const slow = (d: Descriptor, i: number): string => toHex(d.expand(i)[0]!.script);

/**
 * Where the fast path differs from the slow one: each index alone, and runs of consecutive indices
 * derived as one batch (the batch's layout is key-major). [] when they agree everywhere.
 */
function differences(fast: PolicyDeriver, d: Descriptor, singles: number[], runs: [start: number, count: number][]): string[] {
  const bad: string[] = [];
  for (const i of singles) {
    const f = toHex(fast.scriptPubKeys(i, 1)[0]!);
    if (f !== slow(d, i)) bad.push(`index ${i}: ${f} ≠ ${slow(d, i)}`);
  }
  for (const [start, count] of runs) {
    fast.scriptPubKeys(start, count).forEach((s, j) => {
      if (toHex(s) !== slow(d, start + j)) bad.push(`index ${start + j} of the run at ${start}`);
    });
  }
  return bad;
}

function compiled(text: string): { d: Descriptor; t: PolicyTemplate } {
  const d = parseDescriptor(text, REGTEST);
  const t = compilePolicy(d);
  if (!t) throw new Error(`no template for ${text}`);
  return { d, t };
}

/** Extra shapes beside the spend policies: sh(wsh()), pkh() in a leaf, hex keys, a fixed leaf, multi()/sortedmulti(). */
const EXTRA: Policy[] = [
  ...POLICIES.filter((p) => p.template.startsWith('wsh(')).map((p) => ({ name: `sh(wsh()) of ${p.name}`, template: `sh(${p.template})`, cases: [] })),
  { name: 'tr leaf with pkh() (x-only hash) beside pk()', template: `tr(${NUMS},{and_v(v:pkh(A),older(5)),pk(B)})`, cases: [] },
  { name: 'tr key path A, a fixed hex leaf and a ranged one', template: `tr(A,{pk(${NUMS}),multi_a(1,B,C)})`, cases: [] },
  { name: 'wsh with a hex key', template: `wsh(or_d(pk(02${NUMS}),and_v(v:pkh(A),older(10))))`, cases: [] },
  { name: 'wsh(pkh()) and wsh(pk()) descriptors', template: 'wsh(pkh(A))', cases: [] },
  { name: 'wsh(pk())', template: 'wsh(pk(B))', cases: [] },
  // the descriptor's own multi()/sortedmulti() (not miniscript's): fixed wallet shapes, but a template too
  { name: 'wsh(sortedmulti())', template: 'wsh(sortedmulti(2,A,B,C))', cases: [] },
  { name: 'sh(wsh(multi()))', template: 'sh(wsh(multi(2,C,A,B)))', cases: [] },
];

describe(`policy fast path = the descriptor port (seed '${SEED}')`, () => {
  const all = [...POLICIES, ...EXTRA];
  it.each(all.flatMap((p) => (['0', '1'] as const).map((b) => [p.name, b, p] as const)))('%s, branch /%s/*', (_, branch, p) => {
    const text = watchDescriptor(p).split('#')[0]!.replaceAll('/0/*', `/${branch}/*`);
    const { d, t } = compiled(text);
    const fast = new PolicyDeriver(t);
    const r = randomIndices(`${SEED}/${p.name}/${branch}`, 12);
    const runs: [number, number][] = [
      [r[0]! % 100000, 12],
      [TOP - 7, 8],
    ];
    expect(differences(fast, d, [...EDGES, ...r.slice(1)], runs)).toEqual([]);
  });

  it('a key fixed by its path (no /*) stays the same at every index; the ranged ones change', () => {
    const text = watchDescriptor({ name: 'fixed A', template: 'wsh(or_d(pk(A),and_v(v:pkh(B),older(10))))', cases: [] }).split('#')[0]!;
    const fixedA = text.replace('/0/*', '/0/7');
    const { d, t } = compiled(fixedA);
    expect(t.keys.map((k) => k.kind)).toEqual(['const', 'ranged']);
    expect(differences(new PolicyDeriver(t), d, [0, 5, TOP], [[100, 5]])).toEqual([]);
  });

  it('indices outside 0 … 2^31 − 1 (hardened or negative) are refused in words, not wrapped around', () => {
    const fast = new PolicyDeriver(compiled(watchDescriptor(POLICIES[0]!)).t);
    for (const [start, count] of [[TOP, 2], [-1, 1], [0x80000000, 1], [1.5, 1]]) {
      expect(() => fast.scriptPubKeys(start!, count!)).toThrow(/Address indices must lie in 0 … 2\^31 − 1/);
    }
    expect(fast.scriptPubKeys(TOP, 1).length).toBe(1);
  });

  it('a key on two leaves is derived once (one template key per signer)', () => {
    const { t } = compiled(watchDescriptor(POLICIES.find((p) => p.name.startsWith('tr tree'))!));
    expect(t.kind === 'tr' && t.leaves.length).toBe(2);
    // NUMS, then A, B, C once each although the two leaves name them twice
    expect(t.keys.map((k) => k.kind)).toEqual(['const', 'ranged', 'ranged', 'ranged']);
  });

  it('musig() of fixed participants is one key of the template; musig() of ranged participants and multipath descriptors have none', () => {
    const recs = readFileSync(join(DIR, 'core-31.99.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('musig(') && l.includes('"addresses"'));
    expect(recs.length).toBeGreaterThan(0);
    let fixed = 0;
    let ranged = 0;
    for (const l of recs) {
      const d = parseDescriptor((JSON.parse(l) as Recording).descriptor, REGTEST);
      for (const part of d.expandMultipath()) {
        // a participant with a wildcard: each index aggregates its own keys (rawtr() is no policy)
        if (/musig\([^)]*\*/.test(part.toString()) || !part.toString().startsWith('tr(')) {
          expect(compilePolicy(part)).toBeNull();
          ranged++;
        } else {
          expect(compilePolicy(part)).not.toBeNull();
          fixed++;
        }
      }
    }
    expect({ fixed: fixed >= 10, ranged: ranged >= 2 }).toEqual({ fixed: true, ranged: true });
    expect(compilePolicy(parseDescriptor(watchDescriptor(POLICIES[0]!).split('#')[0]!.replaceAll('/0/*', '/<0;1>/*'), REGTEST))).toBeNull();
  });

  it('WalletAddresses derives a policy wallet through the template (single addresses and ranges)', () => {
    const spy = vi.spyOn(PolicyDeriver.prototype, 'scriptPubKeys');
    try {
      const p = POLICIES[2]!;
      const w = importWallet(watchDescriptor(p), REGTEST);
      const addr = WalletAddresses.of(w);
      const d = parseDescriptor(w.external, REGTEST);
      expect(addr.addresses('receive', 1000, 3)).toEqual([1000, 1001, 1002].map((i) => address(d.expand(i)[0]!.script)));
      expect(addr.address('receive', 7)).toBe(address(d.expand(7)[0]!.script));
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });
});

describe.each(['31.99', '30.99'])('policy fast path = Bitcoin Core %s deriveaddresses (recordings)', (v) => {
  it('every recorded wsh()/sh(wsh())/tr() address Core derived, from the template', () => {
    const recs = readFileSync(join(DIR, `core-${v}.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Recording)
      .filter((r) => r.addresses && /^(wsh|sh\(wsh|tr)\(/.test(r.descriptor));
    let checked = 0;
    let withoutTemplate = 0;
    let musigChecked = 0;
    for (const r of recs) {
      const parts = parseDescriptor(r.descriptor, REGTEST).expandMultipath();
      const [a, b] = r.range ?? [0, 0];
      const want = parts.length > 1 ? (r.addresses as string[][]) : [r.addresses as string[]];
      parts.forEach((part, i) => {
        const t = compilePolicy(part);
        if (!t) {
          withoutTemplate++;
          // only musig() of ranged participants keeps the descriptor port's expansion
          expect(part.toString(), r.note).toMatch(/musig\([^)]*\*/);
          return;
        }
        expect(new PolicyDeriver(t).scriptPubKeys(a, b - a + 1).map(address), r.note).toEqual(want[i]);
        checked++;
        if (r.descriptor.includes('musig(')) musigChecked++;
      });
    }
    // the recordings hold 156 such descriptor branches without musig() (17 ranged), 11–12 with a
    // musig() of fixed participants (a template too) and 3 with ranged participants (none)
    expect({ checked: checked >= 160, musig: musigChecked >= 10, withoutTemplate: withoutTemplate <= 5 }).toEqual({ checked: true, musig: true, withoutTemplate: true });
  });
});

describe('a mutated template is caught by the comparison', () => {
  const clone = (t: PolicyTemplate): PolicyTemplate => structuredClone(t);
  const script = (t: PolicyTemplate, leaf = 0) => (t.kind === 'wsh' ? t.script : t.leaves[leaf]!.script);
  const mutations: [name: string, policy: string, mutate: (t: PolicyTemplate) => void][] = [
    ['wrong key in a slot', 'A, or B after 10 blocks', (t) => {
      const s = script(t).slots;
      s[0]!.key = s[1]!.key;
    }],
    ['two keys swapped', '2-of-3 decaying to 1-of-3 after 20 blocks', (t) => {
      const s = script(t).slots;
      [s[0]!.key, s[1]!.key] = [s[1]!.key, s[0]!.key];
    }],
    ['a slot one byte off', 'or_d with j: and pk_h: A, or B and C', (t) => {
      script(t).slots[1]!.offset += 1;
    }],
    ['a key hash where the key goes', 'andor: A after 5 blocks, else B', (t) => {
      script(t).slots[0]!.form = 'pkh';
    }],
    ['older(10) become older(11)', 'A, or B after 10 blocks', (t) => {
      const b = script(t).bytes;
      const at = b.indexOf(0x5a); // OP_10
      b[at] = 0x5b;
    }],
    ['sortedmulti_a written unsorted', 'tr sortedmulti_a 2-of-3 under an unspendable key', (t) => {
      script(t).sorted = [];
    }],
    ['multi_a written sorted', 'tr multi_a 2-of-3 under an unspendable key', (t) => {
      script(t).sorted = [[0, 1, 2]];
    }],
    ['a leaf one level deeper', 'tr key path A plus a leaf: B after 10 blocks', (t) => {
      if (t.kind === 'tr') t.leaves[0]!.depth = 1;
    }],
    ['the internal key replaced by a leaf key', 'tr key path A plus a leaf: B after 10 blocks', (t) => {
      if (t.kind === 'tr') t.internal = script(t).slots[0]!.key;
    }],
    ['a ranged key read as fixed', 'tr or_b: A or B in a leaf', (t) => {
      const k = t.keys[1]!;
      t.keys[1] = { kind: 'const', pubkey: k.pubkey };
    }],
    ['sh() added around wsh()', 'andor: A after 5 blocks, else B', (t) => {
      if (t.kind === 'wsh') t.nested = true;
    }],
  ];

  it.each(mutations)('%s (%s)', (_, name, mutate) => {
    const { d, t } = compiled(watchDescriptor(POLICIES.find((p) => p.name === name)!));
    // the template as compiled agrees …
    const indices = randomIndices(`${SEED}/mutation/${name}`, 6);
    expect(differences(new PolicyDeriver(t), d, indices, [[indices[0]! % 1000, 4]])).toEqual([]);
    // … the mutated one does not
    const m = clone(t);
    mutate(m);
    expect(JSON.stringify(m, (_k, v: unknown) => (v instanceof Uint8Array ? toHex(v) : v))).not.toBe(JSON.stringify(t, (_k, v: unknown) => (v instanceof Uint8Array ? toHex(v) : v)));
    expect(differences(new PolicyDeriver(m), d, indices, [[indices[0]! % 1000, 4]]).length).toBeGreaterThan(0);
  });
});
