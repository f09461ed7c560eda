/**
 * Policy wallets' fast path, the per-index side (issue #32): the scriptPubKeys of a range of
 * indices from a compiled template (policy-template.ts). The ranged keys of the whole range are
 * derived together (child-batch.ts: batched BIP32, ~20 µs a key instead of ~1 ms), their bytes
 * written into the script's slots, then wsh: SHA256 of the script (and HASH160 for sh(wsh));
 * tr: each leaf's TapLeaf hash (a leaf without ranged keys hashed once), the merkle root as Core's
 * TaprootBuilder folds it, and the output key Q = P + H_TapTweak(P‖root)·G, all Q of the range
 * in one batch. Equal to the descriptor port's expansion (test/wallet/policy-fast.test.ts).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import { compareBytes, hash160 } from '../bitcoin/descriptor/helpers';
import { tapBranch, tapLeafHash } from '../bitcoin/descriptor/script-tree';
import { mulGAdd } from './ec-batch';
import { affineOf, deriveChildren, parentKey, validScalar, type ParentKey } from './child-batch';
import { fneg, ftoBytes, LIMBS, type Fe } from './field';
import { type PolicyTemplate, type ScriptTemplate, type Slot } from './policy-template';

/** Core TaprootBuilder's merkle root of leaves given depth-first with their depths (valid trees only). */
function merkleRoot(leaves: { depth: number; hash: Uint8Array }[]): Uint8Array | null {
  const stack: (Uint8Array | null)[] = [];
  for (const { depth: d0, hash } of leaves) {
    let node = hash;
    let depth = d0;
    while (stack.length > depth && stack[depth]) {
      node = tapBranch(stack[depth]!, node);
      stack.pop();
      depth--;
    }
    while (stack.length <= depth) stack.push(null);
    stack[depth] = node;
  }
  return stack[0] ?? null;
}

/** A script template with its slots split into the plain ones and the sorted groups. */
interface Prepared {
  t: ScriptTemplate;
  plain: Slot[];
  groups: Slot[][];
  /** No ranged key in any slot: the same script (and leaf hash) at every index. */
  fixed: boolean;
}

export class PolicyDeriver {
  private readonly parents: ParentKey[] = [];
  /** Key index → position among the ranged keys, or −1 for a fixed key. */
  private readonly ranged: number[];
  private readonly scripts: Prepared[];
  /** Leaf hashes of the leaves that do not change with the index. */
  private readonly fixedLeaf = new Map<number, Uint8Array>();
  /** tr() with a fixed internal key (an unspendable point, a hex key): P with an even y. */
  private readonly fixedInternal: { x: Fe; y: Fe } | null = null;

  constructor(readonly template: PolicyTemplate) {
    this.ranged = template.keys.map((k) => (k.kind === 'ranged' ? this.parents.push(parentKey(k.pubkey, k.chainCode)) - 1 : -1));
    const list = template.kind === 'wsh' ? [template.script] : template.leaves.map((l) => l.script);
    this.scripts = list.map((t) => {
      const inGroup = new Set(t.sorted.flat());
      return {
        t,
        plain: t.slots.filter((_, i) => !inGroup.has(i)),
        groups: t.sorted.map((g) => g.map((i) => t.slots[i]!)),
        fixed: t.slots.every((s) => this.ranged[s.key] === -1),
      };
    });
    if (template.kind === 'tr' && this.ranged[template.internal] === -1) {
      this.fixedInternal = affineOf(Uint8Array.of(2, ...template.keys[template.internal]!.pubkey.subarray(1)));
    }
  }

  /** The scriptPubKeys of indices start … start+count−1 (unhardened: all below 2^31). */
  scriptPubKeys(start: number, count: number): Uint8Array[] {
    if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 0 || start + count > 0x80000000) {
      throw new RangeError(`Address indices must lie in 0 … 2^31 − 1 (asked ${start} + ${count})`);
    }
    const t = this.template;
    const nr = this.parents.length;
    const { x, y } = deriveChildren(this.parents, start, count);
    // compressed keys of the ranged keys: pubs[r·count + j]
    const pubs: Uint8Array[] = new Array<Uint8Array>(nr * count);
    const yb = new Uint8Array(32);
    for (let e = 0; e < nr * count; e++) {
      const pk = new Uint8Array(33);
      ftoBytes(x, e * LIMBS, pk, 1);
      ftoBytes(y, e * LIMBS, yb, 0);
      pk[0] = 2 + (yb[31]! & 1);
      pubs[e] = pk;
    }
    const keyAt = (key: number, j: number): Uint8Array => {
      const r = this.ranged[key]!;
      return r === -1 ? t.keys[key]!.pubkey : pubs[r * count + j]!;
    };
    const fill = (p: Prepared, j: number): Uint8Array => {
      const out = p.t.bytes.slice();
      const bytesOf = (s: Slot): Uint8Array => {
        const k = keyAt(s.key, j);
        switch (s.form) {
          case 'pk':
            return k;
          case 'xonly':
            return k.subarray(1);
          case 'pkh':
            return hash160(k);
          case 'xonly-pkh':
            return hash160(k.subarray(1));
        }
      };
      for (const s of p.plain) out.set(bytesOf(s), s.offset);
      for (const g of p.groups) {
        const vals = g.map(bytesOf).sort(compareBytes);
        g.forEach((s, i) => out.set(vals[i]!, s.offset));
      }
      return out;
    };

    const result: Uint8Array[] = [];
    if (t.kind === 'wsh') {
      const p = this.scripts[0]!;
      for (let j = 0; j < count; j++) {
        const spk = new Uint8Array(34);
        spk[1] = 32;
        spk.set(sha256(fill(p, j)), 2);
        if (!t.nested) {
          result.push(spk);
          continue;
        }
        const sh = new Uint8Array(23);
        sh[0] = 0xa9;
        sh[1] = 20;
        sh.set(hash160(spk), 2);
        sh[22] = 0x87;
        result.push(sh);
      }
      return result;
    }

    // tr(): P with an even y, the tweak t = H_TapTweak(x(P) ‖ root), then every Q = P + t·G at once
    const px = new Float64Array(count * LIMBS);
    const py = new Float64Array(count * LIMBS);
    const r = this.ranged[t.internal]!;
    const fixed = this.fixedInternal;
    if (fixed) {
      for (let j = 0; j < count; j++) {
        px.set(fixed.x, j * LIMBS);
        py.set(fixed.y, j * LIMBS);
      }
    } else {
      px.set(x.subarray(r * count * LIMBS, (r + 1) * count * LIMBS));
      py.set(y.subarray(r * count * LIMBS, (r + 1) * count * LIMBS));
      for (let j = 0; j < count; j++) if (pubs[r * count + j]![0] === 3) fneg(py, j * LIMBS, py, j * LIMBS);
    }
    const tweaks = new Uint8Array(count * 32);
    const msg = new Uint8Array(t.leaves.length ? 64 : 32);
    for (let j = 0; j < count; j++) {
      const hashes = t.leaves.map((l, i) => {
        const p = this.scripts[i]!;
        if (!p.fixed) return { depth: l.depth, hash: tapLeafHash(fill(p, j)) };
        let h = this.fixedLeaf.get(i);
        if (!h) {
          h = tapLeafHash(fill(p, j));
          this.fixedLeaf.set(i, h);
        }
        return { depth: l.depth, hash: h };
      });
      ftoBytes(px, j * LIMBS, msg, 0);
      const root = merkleRoot(hashes);
      if (root) msg.set(root, 32);
      tweaks.set(schnorr.utils.taggedHash('TapTweak', msg), j * 32);
      if (!validScalar(tweaks, j * 32)) throw new Error('Taproot tweak out of range');
    }
    const qx = new Float64Array(count * LIMBS);
    const qy = new Float64Array(count * LIMBS);
    if (count > 0) mulGAdd(count, tweaks, px, py, qx, qy);
    for (let j = 0; j < count; j++) {
      const spk = new Uint8Array(34);
      spk[0] = 0x51;
      spk[1] = 32;
      ftoBytes(qx, j * LIMBS, spk, 2);
      result.push(spk);
    }
    return result;
  }
}
