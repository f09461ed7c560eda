/**
 * A miniscript node with Core's cached analyses (src/script/miniscript.h Node: CalcOps,
 * CalcStackSize, CalcType, CalcScriptLen) and its sanity predicates (IsValid, IsSane,
 * CheckOpsLimit, CheckStackSize, CheckTimeLocksMix, CheckDuplicateKey, FindInsaneSub).
 * Keys are indices into the descriptor's key list; the node never holds key material.
 */
import { computeScriptLen, computeType, has, T, type Fragment, type MsContext, type Type } from './types';

/** Core's MaxInt: the maximum of a set of integers, or invalid (empty set). */
type MaxInt = number | null;
const addM = (a: MaxInt, b: MaxInt): MaxInt => (a === null || b === null ? null : a + b);
const orM = (a: MaxInt, b: MaxInt): MaxInt => (a === null ? b : b === null ? a : Math.max(a, b));

/** Core's SatInfo: a set of execution traces (netdiff, exec), or empty (null). */
type Sat = { netdiff: number; exec: number } | null;
const S = (netdiff: number, exec: number): Sat => ({ netdiff, exec });
const orS = (a: Sat, b: Sat): Sat => (!a ? b : !b ? a : S(Math.max(a.netdiff, b.netdiff), Math.max(a.exec, b.exec)));
function addS(...xs: Sat[]): Sat {
  let acc: Sat = S(0, 0);
  for (const b of xs) {
    if (!acc || !b) return null;
    acc = S(acc.netdiff + b.netdiff, Math.max(b.exec, b.netdiff + acc.exec));
  }
  return acc;
}
const PUSH = S(-1, 0);
const HASH = S(0, 0);
const NOP = S(0, 0);
const IF = S(1, 1);
const BINOP = S(1, 1);
const DUP = S(-1, 0);
const IFDUP = (nonzero: boolean): Sat => S(nonzero ? -1 : 0, 0);
const EQUALVERIFY = S(2, 2);
const EQUAL = S(1, 1);
const SIZE = S(-1, 0);
const CHECKSIG = S(1, 1);
const ZERONOTEQUAL = S(0, 0);
const VERIFY = S(1, 1);

export const MAX_OPS_PER_SCRIPT = 201;
export const MAX_STANDARD_P2WSH_STACK_ITEMS = 100;
export const MAX_STACK_SIZE = 1000;
export const MAX_STANDARD_P2WSH_SCRIPT_SIZE = 3600;
export const MAX_PUBKEYS_PER_MULTISIG = 20;
export const MAX_PUBKEYS_PER_MULTI_A = 999;

/**
 * Core MaxScriptSize: 3600 in P2WSH; in Tapscript what leaves room for a maximal witness and a
 * small transaction under the standard weight: 400000 - 378 - 70135, minus its CompactSize (5).
 */
export function maxScriptSize(ctx: MsContext): number {
  return ctx === 'tapscript' ? 400000 - 378 - 70135 - 5 : MAX_STANDARD_P2WSH_SCRIPT_SIZE;
}

export class MsNode {
  readonly type: Type;
  readonly scriptLen: number;
  readonly ops: { count: number; sat: MaxInt; dsat: MaxInt };
  readonly ss: { sat: Sat; dsat: Sat };
  /** Set by checkDuplicateKeys(); undefined before. */
  hasDuplicateKeys: boolean | undefined;

  constructor(
    readonly ctx: MsContext,
    readonly frag: Fragment,
    readonly subs: MsNode[] = [],
    readonly keys: number[] = [],
    readonly data: Uint8Array = new Uint8Array(0),
    readonly k = 0,
  ) {
    this.ops = this.calcOps();
    this.ss = this.calcStackSize();
    const x = subs[0]?.type ?? 0;
    const y = subs[1]?.type ?? 0;
    const z = subs[2]?.type ?? 0;
    this.type = computeType(frag, x, y, z, frag === 'thresh' ? subs.map((s) => s.type) : [], k, subs.length, ctx);
    let subsize = 0;
    for (const s of subs) subsize += s.scriptLen;
    this.scriptLen = computeScriptLen(frag, x, subsize, k, subs.length, keys.length, ctx);
  }

  private calcOps(): { count: number; sat: MaxInt; dsat: MaxInt } {
    const [a, b, c] = this.subs.map((s) => s.ops);
    switch (this.frag) {
      case 'just_1':
        return { count: 0, sat: 0, dsat: null };
      case 'just_0':
        return { count: 0, sat: null, dsat: 0 };
      case 'pk_k':
        return { count: 0, sat: 0, dsat: 0 };
      case 'pk_h':
        return { count: 3, sat: 0, dsat: 0 };
      case 'older':
      case 'after':
        return { count: 1, sat: 0, dsat: null };
      case 'sha256':
      case 'ripemd160':
      case 'hash256':
      case 'hash160':
        return { count: 4, sat: 0, dsat: null };
      case 'and_v':
        return { count: a!.count + b!.count, sat: addM(a!.sat, b!.sat), dsat: null };
      case 'and_b':
        return { count: 1 + a!.count + b!.count, sat: addM(a!.sat, b!.sat), dsat: addM(a!.dsat, b!.dsat) };
      case 'or_b':
        return {
          count: 1 + a!.count + b!.count,
          sat: orM(addM(a!.sat, b!.dsat), addM(b!.sat, a!.dsat)),
          dsat: addM(a!.dsat, b!.dsat),
        };
      case 'or_d':
        return { count: 3 + a!.count + b!.count, sat: orM(a!.sat, addM(b!.sat, a!.dsat)), dsat: addM(a!.dsat, b!.dsat) };
      case 'or_c':
        return { count: 2 + a!.count + b!.count, sat: orM(a!.sat, addM(b!.sat, a!.dsat)), dsat: null };
      case 'or_i':
        return { count: 3 + a!.count + b!.count, sat: orM(a!.sat, b!.sat), dsat: orM(a!.dsat, b!.dsat) };
      case 'andor':
        return {
          count: 3 + a!.count + b!.count + c!.count,
          sat: orM(addM(b!.sat, a!.sat), addM(a!.dsat, c!.sat)),
          dsat: addM(a!.dsat, c!.dsat),
        };
      case 'multi':
        return { count: 1, sat: this.keys.length, dsat: this.keys.length };
      case 'multi_a':
        return { count: this.keys.length + 1, sat: 0, dsat: 0 };
      case 'wrap_s':
      case 'wrap_c':
      case 'wrap_n':
        return { count: 1 + a!.count, sat: a!.sat, dsat: a!.dsat };
      case 'wrap_a':
        return { count: 2 + a!.count, sat: a!.sat, dsat: a!.dsat };
      case 'wrap_d':
        return { count: 3 + a!.count, sat: a!.sat, dsat: 0 };
      case 'wrap_j':
        return { count: 4 + a!.count, sat: a!.sat, dsat: 0 };
      case 'wrap_v':
        return { count: a!.count + (has(this.subs[0]!.type, 'x') ? 1 : 0), sat: a!.sat, dsat: null };
      case 'thresh': {
        let count = 0;
        let sats: MaxInt[] = [0];
        for (const sub of this.subs) {
          count += sub.ops.count + 1;
          const next: MaxInt[] = [addM(sats[0]!, sub.ops.dsat)];
          for (let j = 1; j < sats.length; j++) next.push(orM(addM(sats[j]!, sub.ops.dsat), addM(sats[j - 1]!, sub.ops.sat)));
          next.push(addM(sats[sats.length - 1]!, sub.ops.sat));
          sats = next;
        }
        return { count, sat: sats[this.k] ?? null, dsat: sats[0]! };
      }
    }
  }

  private calcStackSize(): { sat: Sat; dsat: Sat } {
    const [x, y, z] = this.subs.map((s) => s.ss);
    const both = (s: Sat): { sat: Sat; dsat: Sat } => ({ sat: s, dsat: s });
    const n = this.keys.length;
    switch (this.frag) {
      case 'just_0':
        return { sat: null, dsat: PUSH };
      case 'just_1':
        return { sat: PUSH, dsat: null };
      case 'older':
      case 'after':
        return { sat: addS(PUSH, NOP), dsat: null };
      case 'pk_k':
        return both(PUSH);
      case 'pk_h':
        return both(addS(DUP, HASH, PUSH, EQUALVERIFY));
      case 'sha256':
      case 'ripemd160':
      case 'hash256':
      case 'hash160':
        return { sat: addS(SIZE, PUSH, EQUALVERIFY, HASH, PUSH, EQUAL), dsat: null };
      case 'andor':
        return { sat: orS(addS(x!.sat, IF, y!.sat), addS(x!.dsat, IF, z!.sat)), dsat: addS(x!.dsat, IF, z!.dsat) };
      case 'and_v':
        return { sat: addS(x!.sat, y!.sat), dsat: null };
      case 'and_b':
        return { sat: addS(x!.sat, y!.sat, BINOP), dsat: addS(x!.dsat, y!.dsat, BINOP) };
      case 'or_b':
        return { sat: addS(orS(addS(x!.sat, y!.dsat), addS(x!.dsat, y!.sat)), BINOP), dsat: addS(x!.dsat, y!.dsat, BINOP) };
      case 'or_c':
        return { sat: orS(addS(x!.sat, IF), addS(x!.dsat, IF, y!.sat)), dsat: null };
      case 'or_d':
        return {
          sat: orS(addS(x!.sat, IFDUP(true), IF), addS(x!.dsat, IFDUP(false), IF, y!.sat)),
          dsat: addS(x!.dsat, IFDUP(false), IF, y!.dsat),
        };
      case 'or_i':
        return { sat: addS(IF, orS(x!.sat, y!.sat)), dsat: addS(IF, orS(x!.dsat, y!.dsat)) };
      case 'multi':
        return both(S(this.k, this.k + n + 2));
      case 'multi_a':
        return both(S(n - 1, n));
      case 'wrap_a':
      case 'wrap_n':
      case 'wrap_s':
        return x!;
      case 'wrap_c':
        return { sat: addS(x!.sat, CHECKSIG), dsat: addS(x!.dsat, CHECKSIG) };
      case 'wrap_d':
        return { sat: addS(DUP, IF, x!.sat), dsat: addS(DUP, IF) };
      case 'wrap_v':
        return { sat: addS(x!.sat, VERIFY), dsat: null };
      case 'wrap_j':
        return { sat: addS(SIZE, ZERONOTEQUAL, IF, x!.sat), dsat: addS(SIZE, ZERONOTEQUAL, IF) };
      case 'thresh': {
        let sats: Sat[] = [S(0, 0)];
        this.subs.forEach((sub, i) => {
          const add = i ? BINOP : S(0, 0);
          const next: Sat[] = [addS(sats[0]!, sub.ss.dsat, add)];
          for (let j = 1; j < sats.length; j++) next.push(addS(orS(addS(sats[j]!, sub.ss.dsat), addS(sats[j - 1]!, sub.ss.sat)), add));
          next.push(addS(sats[sats.length - 1]!, sub.ss.sat, add));
          sats = next;
        });
        return { sat: addS(sats[this.k] ?? null, PUSH, EQUAL), dsat: addS(sats[0]!, PUSH, EQUAL) };
      }
    }
  }

  /** Core GetOps: ops to satisfy non-malleably, or null. */
  getOps(): number | null {
    return this.ops.sat === null ? null : this.ops.count + this.ops.sat;
  }

  checkOpsLimit(): boolean {
    if (this.ctx === 'tapscript') return true;
    const ops = this.getOps();
    return ops === null || ops <= MAX_OPS_PER_SCRIPT;
  }

  private isBKW(): boolean {
    return (this.type & T('BKW')) !== 0;
  }

  getStackSize(): number | null {
    return this.ss.sat ? this.ss.sat.netdiff + (this.isBKW() ? 1 : 0) : null;
  }

  getExecStackSize(): number | null {
    return this.ss.sat ? this.ss.sat.exec + (this.isBKW() ? 1 : 0) : null;
  }

  checkStackSize(): boolean {
    if (this.ctx === 'tapscript') {
      const e = this.getExecStackSize();
      return e === null || e <= MAX_STACK_SIZE;
    }
    const s = this.getStackSize();
    return s === null || s <= MAX_STANDARD_P2WSH_STACK_ITEMS;
  }

  isNotSatisfiable(): boolean {
    return this.getStackSize() === null;
  }

  isValid(): boolean {
    return this.type !== 0 && this.scriptLen <= maxScriptSize(this.ctx);
  }

  isValidTopLevel(): boolean {
    return this.isValid() && has(this.type, 'B');
  }

  isNonMalleable(): boolean {
    return has(this.type, 'm');
  }

  needsSignature(): boolean {
    return has(this.type, 's');
  }

  checkTimeLocksMix(): boolean {
    return has(this.type, 'k');
  }

  checkDuplicateKey(): boolean {
    return this.hasDuplicateKeys === false;
  }

  validSatisfactions(): boolean {
    return this.isValid() && this.checkOpsLimit() && this.checkStackSize();
  }

  isSaneSubexpression(): boolean {
    return this.validSatisfactions() && this.isNonMalleable() && this.checkTimeLocksMix() && this.checkDuplicateKey();
  }

  isSane(): boolean {
    return this.isValidTopLevel() && this.isSaneSubexpression() && this.needsSignature();
  }

  /** Core FindInsaneSub: the first (leftmost, deepest) insane node without insane children. */
  findInsaneSub(): MsNode | null {
    for (const s of this.subs) {
      const f = s.findInsaneSub();
      if (f) return f;
    }
    return this.isSaneSubexpression() ? null : this;
  }

  /**
   * Core DuplicateKeyCheck: marks every node. `same(a, b)` says whether key indices a and b are the
   * same key (Core's KeyParser::KeyCompare equivalence). Returns the node's keys or null (duplicates).
   */
  checkDuplicateKeys(id: (key: number) => string): Set<string> | null {
    const subSets = this.subs.map((s) => s.checkDuplicateKeys(id));
    if (subSets.some((s) => s === null)) {
      this.hasDuplicateKeys = true;
      return null;
    }
    const set = new Set<string>();
    for (const key of this.keys) {
      const k = id(key);
      if (set.has(k)) {
        this.hasDuplicateKeys = true;
        return null;
      }
      set.add(k);
    }
    for (const sub of subSets) {
      for (const k of sub!) {
        if (set.has(k)) {
          this.hasDuplicateKeys = true;
          return null;
        }
        set.add(k);
      }
    }
    this.hasDuplicateKeys = false;
    return set;
  }

  /** Every key index in the tree, in order of appearance. */
  allKeys(out: number[] = []): number[] {
    out.push(...this.keys);
    for (const s of this.subs) s.allKeys(out);
    return out;
  }
}
