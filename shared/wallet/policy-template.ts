/**
 * Policy wallets' fast path, the compile side (issue #32): a parsed, type-checked descriptor —
 * wsh(miniscript), sh(wsh(miniscript)), tr() with multi_a/sortedmulti_a or miniscript leaves — is
 * turned ONCE into a template: each script's bytes with empty key slots (where a key's 33 bytes,
 * its 32-byte x-only form, or the HASH160 of either goes), the distinct keys (a key used in two
 * places, as the same signer on two leaves, is derived once), and for tr() the internal key and the
 * leaves with their depths. policy-derive.ts then only derives the keys per index (batched) and
 * fills the slots. A musig() of fixed participants is one aggregate key (its BIP328 synthetic xpub,
 * derived like any xpub). Whatever the template cannot express (musig() of ranged participants,
 * hardened or multipath derivation, other descriptor functions) gives null: those descriptors keep the descriptor port's
 * own expansion (shared/bitcoin/descriptor), which is also what the differential test compares
 * every template with (test/wallet/policy-fast.test.ts).
 */
import type { Descriptor } from '../bitcoin/descriptor';
import { deriveHd, type KeyExpr } from '../bitcoin/descriptor/keys';
import { musigFixedHd } from '../bitcoin/descriptor/musig';
import type { Node } from '../bitcoin/descriptor/parse';
import { pushNum, toScript } from '../bitcoin/miniscript/script';
import { toHex } from '../bitcoin/hex';

/** A key of the template: fixed (a hex key, or an xpub without a wildcard), or ranged (parent/…/*). */
export type TemplateKey = { kind: 'const'; pubkey: Uint8Array } | { kind: 'ranged'; pubkey: Uint8Array; chainCode: Uint8Array };

/** What goes in a slot: the compressed key (33), its x-only form (32), or HASH160 of either (20). */
export type SlotForm = 'pk' | 'xonly' | 'pkh' | 'xonly-pkh';

export const SLOT_SIZE: Record<SlotForm, number> = { pk: 33, xonly: 32, pkh: 20, 'xonly-pkh': 20 };

export interface Slot {
  /** Where the bytes start in the script. */
  offset: number;
  /** Index into the template's keys. */
  key: number;
  form: SlotForm;
}

export interface ScriptTemplate {
  /** The script with every slot zeroed. */
  bytes: Uint8Array;
  slots: Slot[];
  /** sortedmulti/sortedmulti_a: groups of slot indices whose keys' bytes are written in ascending order. */
  sorted: number[][];
}

export type PolicyTemplate =
  | { kind: 'wsh'; nested: boolean; keys: TemplateKey[]; script: ScriptTemplate }
  | { kind: 'tr'; keys: TemplateKey[]; internal: number; leaves: { depth: number; script: ScriptTemplate }[] };

class Unsupported extends Error {}

class Builder {
  readonly keys: TemplateKey[] = [];
  private readonly ids = new Map<string, number>();

  key(k: KeyExpr): number {
    const b = k.base;
    let key: TemplateKey;
    if (b.kind === 'const') {
      if (b.pubkey.length !== 33) throw new Unsupported('uncompressed key');
      key = { kind: 'const', pubkey: b.pubkey };
    } else if (b.kind === 'bip32') {
      if (b.paths.length !== 1 || b.derive === 'hardened') throw new Unsupported('multipath or hardened derivation');
      const hd = deriveHd(b.root, b.paths[0]!);
      key = b.derive === 'none' ? { kind: 'const', pubkey: hd.publicKey! } : { kind: 'ranged', pubkey: hd.publicKey!, chainCode: hd.chainCode! };
    } else {
      // a musig() of fixed participants is one aggregate key: its synthetic xpub, derived as any xpub
      const hd = b.paths.length === 1 ? musigFixedHd(b, 0) : null;
      if (!hd) throw new Unsupported('musig() with ranged participants');
      key = b.derive === 'none' ? { kind: 'const', pubkey: hd.publicKey! } : { kind: 'ranged', pubkey: hd.publicKey!, chainCode: hd.chainCode! };
    }
    const id = key.kind === 'const' ? `c${toHex(key.pubkey)}` : `r${toHex(key.pubkey)}${toHex(key.chainCode)}`;
    let i = this.ids.get(id);
    if (i === undefined) {
      i = this.keys.push(key) - 1;
      this.ids.set(id, i);
    }
    return i;
  }

  /** A script of a wsh() (tap = false) or of a tr() leaf (tap = true). */
  script(n: Node, tap: boolean): ScriptTemplate {
    const pk: SlotForm = tap ? 'xonly' : 'pk';
    const pkh: SlotForm = tap ? 'xonly-pkh' : 'pkh';
    const out: number[] = [];
    const slots: Slot[] = [];
    const sorted: number[][] = [];
    const slot = (form: SlotForm, key: number): number => {
      out.push(SLOT_SIZE[form]);
      slots.push({ offset: out.length, key, form });
      for (let i = 0; i < SLOT_SIZE[form]; i++) out.push(0);
      return slots.length - 1;
    };
    switch (n.t) {
      case 'pk':
        slot(pk, this.key(n.key));
        out.push(0xac);
        break;
      case 'pkh':
        out.push(0x76, 0xa9);
        slot(pkh, this.key(n.key));
        out.push(0x88, 0xac);
        break;
      case 'multi': {
        // MultisigDescriptor: <k> <key>… <n> CHECKMULTISIG (P2WSH only)
        if (tap) throw new Unsupported('multi() in a leaf');
        out.push(...pushNum(n.k));
        const group = n.keys.map((k) => slot('pk', this.key(k)));
        out.push(...pushNum(n.keys.length), 0xae);
        if (n.sorted) sorted.push(group);
        break;
      }
      case 'multi_a': {
        // MultiADescriptor: <key0> CHECKSIG <key1> CHECKSIGADD … <k> NUMEQUAL (x-only keys)
        const group = n.keys.map((k, i) => {
          const s = slot('xonly', this.key(k));
          out.push(i === 0 ? 0xac : 0xba);
          return s;
        });
        out.push(...pushNum(n.k), 0x9c);
        if (n.sorted) sorted.push(group);
        break;
      }
      case 'ms': {
        const keys = n.keys.map((k) => this.key(k));
        const bytes = toScript(n.ms, {
          pk: () => new Uint8Array(n.tap ? 32 : 33),
          pkh: () => new Uint8Array(20),
          mark: (form, key, offset) => slots.push({ offset, key: keys[key]!, form: form === 'pk' ? (n.tap ? 'xonly' : 'pk') : n.tap ? 'xonly-pkh' : 'pkh' }),
        });
        return { bytes, slots, sorted };
      }
      default:
        throw new Unsupported(`${n.t}() script`);
    }
    return { bytes: Uint8Array.from(out), slots, sorted };
  }
}

/**
 * The template of a single-branch policy descriptor, or null when it has none (the descriptor port
 * expands those). The descriptor has already been parsed and checked (Core's rules).
 */
export function compilePolicy(d: Descriptor): PolicyTemplate | null {
  if (d.branches !== 1) return null;
  const top = d.tree();
  const b = new Builder();
  try {
    if (top.t === 'wsh') return { kind: 'wsh', nested: false, script: b.script(top.sub, false), keys: b.keys };
    if (top.t === 'sh' && top.sub.t === 'wsh') return { kind: 'wsh', nested: true, script: b.script(top.sub.sub, false), keys: b.keys };
    if (top.t === 'tr') {
      const internal = b.key(top.key);
      const leaves = top.leaves.map((l) => ({ depth: l.depth, script: b.script(l.node, true) }));
      return { kind: 'tr', internal, leaves, keys: b.keys };
    }
    return null;
  } catch (e) {
    // not expressible as a template, or a key the descriptor port cannot derive either (a
    // hardened step without the private key): the port's own expansion gives the answer or Core's error
    if (e instanceof Unsupported) return null;
    if (e instanceof Error && /without private keys/.test(e.message)) return null;
    throw e;
  }
}
