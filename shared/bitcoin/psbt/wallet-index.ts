/**
 * A watch-only descriptor wallet as Core's walletprocesspsbt sees it: one DescriptorScriptPubKeyMan
 * per descriptor (listdescriptors' desc, range), each knowing the scripts of every index in its
 * range (m_map_script_pub_keys) and, for a script it knows, the solving data of that index
 * (GetSigningProvider(script): the expansion's keys with their origins, scripts, taproot data).
 *
 * Deriving a thousand keys costs about a second in pure TypeScript, so the index is built lazily
 * and kept: a script is looked for only in the descriptors that can produce its type, and each
 * descriptor is derived in index order only as far as a lookup needs (a script that is not the
 * wallet's costs the whole range of the descriptors of its type, once). Build one WatchOnlyWallet
 * and reuse it for every PSBT of that wallet.
 */
import { parseDescriptor, type Descriptor } from '../descriptor';
import type { Network } from '../networks';
import { solver, type TxoutType } from '../script';
import { hexOf } from '../tx';
import { schnorr } from '@noble/curves/secp256k1.js';
import { taprootTweak } from './ecc';
import { FlatProvider, providerOfExpansion } from './provider';
import { TreeDescriptor } from './tr-tree';
import { descriptorChecksum } from '../descriptor-checksum';
import { concatBytes, hash160 } from './edit';

/** What the index needs of a descriptor: descriptor.ts's, a tr() with a script tree (tr-tree.ts), a combo(). */
interface Source {
  isRange(): boolean;
  readonly hasPrivateKeys: boolean;
  /** The output scripts of one index (several for combo()). */
  scripts(index: number): Uint8Array[];
  provider(index: number): FlatProvider;
}

function plainSource(d: Descriptor): Source {
  return {
    isRange: () => d.isRange(),
    hasPrivateKeys: d.hasPrivateKeys,
    scripts: (i) => [d.expand(i)[0]!.script],
    provider: (i) => providerOfExpansion(d.expand(i)[0]!),
  };
}

/**
 * combo(KEY) (ComboDescriptor): P2PK, P2PKH and, for a compressed key, P2WPKH and P2SH-P2WPKH;
 * the key read by descriptor.ts as pk(KEY).
 */
function comboSource(text: string, network: Network): Source {
  const [body, sum] = text.split('#');
  if (sum !== undefined && descriptorChecksum(body!) !== sum) throw new Error(`Provided checksum '${sum}' does not match computed checksum '${descriptorChecksum(body!)}'`);
  const pk = parseDescriptor(`pk(${body!.slice('combo('.length, -1)})`, network);
  if (pk.branches !== 1) throw new Error('multipath combo() descriptors are not supported');
  const scripts = (i: number): Uint8Array[] => {
    const e = pk.expand(i)[0]!;
    const key = e.pubkeys[0]!.pubkey;
    const h = hash160(key);
    const out = [e.script, concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), h, Uint8Array.of(0x88, 0xac))];
    if (key.length === 33) {
      const wpkh = concatBytes(Uint8Array.of(0, 0x14), h);
      out.push(wpkh, concatBytes(Uint8Array.of(0xa9, 0x14), hash160(wpkh), Uint8Array.of(0x87)));
    }
    return out;
  };
  return {
    isRange: () => pk.isRange(),
    hasPrivateKeys: pk.hasPrivateKeys,
    scripts,
    provider: (i) => {
      const p = providerOfExpansion(pk.expand(i)[0]!);
      const s = scripts(i);
      if (s[2]) p.addScript(s[2]);
      return p;
    },
  };
}

function treeSource(t: TreeDescriptor): Source {
  const made = new Map<number, ReturnType<TreeDescriptor['expand']>>();
  const at = (i: number): ReturnType<TreeDescriptor['expand']> => {
    let e = made.get(i);
    if (!e) made.set(i, (e = t.expand(i)));
    return e;
  };
  return { isRange: () => t.isRange(), hasPrivateKeys: t.hasPrivateKeys, scripts: (i) => [at(i).script], provider: (i) => at(i).provider };
}

/**
 * tr(KEY) without a tree: the key derived as rawtr(KEY) derives it (the same key expression, no
 * tweak), the output key tweaked here (ecc.ts), some ten times faster than Descriptor.expand's.
 */
function keyPathTrSource(raw: Descriptor): Source {
  const made = new Map<number, { script: Uint8Array; provider: FlatProvider }>();
  const at = (i: number): { script: Uint8Array; provider: FlatProvider } => {
    let m = made.get(i);
    if (!m) {
      const k = raw.expand(i)[0]!.pubkeys[0]!;
      const x = k.pubkey.subarray(1, 33);
      const out = taprootTweak(x, schnorr.utils.taggedHash('TapTweak', x));
      if (!out) throw new Error('tr(): the key does not make a valid output key');
      const provider = new FlatProvider();
      provider.addExpandedKey(k);
      provider.trees.set(hexOf(out.x), { internalKey: x, merkleRoot: null, scripts: new Map() });
      made.set(i, (m = { script: concatBytes(Uint8Array.of(0x51, 0x20), out.x), provider }));
    }
    return m;
  };
  return { isRange: () => raw.isRange(), hasPrivateKeys: raw.hasPrivateKeys, scripts: (i) => [at(i).script], provider: (i) => at(i).provider };
}

/** The descriptors of one listdescriptors entry: one per path of a multipath descriptor. */
function sourcesOf(text: string, network: Network): Source[] {
  try {
    const d = parseDescriptor(text, network);
    const body = text.split('#')[0]!;
    // a script tree: the updater's TaprootBuilder (tr-tree.ts) fills its leaves
    if (body.startsWith('tr(') && d.hasScriptTree()) return [treeSource(TreeDescriptor.parse(text, network)!)];
    if (body.startsWith('tr(')) return parseDescriptor(`raw${body}`, network).expandMultipath().map(keyPathTrSource);
    return d.expandMultipath().map(plainSource);
  } catch (e) {
    if (/^combo\(\) descriptors are not supported$/.test((e as Error).message)) return [comboSource(text, network)];
    if (!/script trees are not supported/.test((e as Error).message)) throw e;
  }
  const t = TreeDescriptor.parse(text, network);
  if (!t) throw new Error('tr(): script trees are not supported');
  return [treeSource(t)];
}

/** One descriptor as `listdescriptors` lists it (internal, active and timestamp are not needed to fill). */
export interface WalletDescriptor {
  desc: string;
  /** [begin, end], both included, for a ranged descriptor (listdescriptors' range). */
  range?: [number, number] | number;
  internal?: boolean;
  active?: boolean;
}

export class WalletDescriptorError extends Error {}

interface Spkm {
  desc: Source;
  /** The expansion branch (multipath descriptors are one ScriptPubKeyMan per path). */
  begin: number;
  end: number;
  /** The script types it makes (one, or P2PK/P2PKH/P2WPKH/P2SH for combo()). */
  types: Set<TxoutType>;
  /** Next index to derive. */
  cursor: number;
  /** Which of the descriptors given it comes from. */
  n: number;
}

function rangeOf(d: Source, w: WalletDescriptor, n: number): [number, number] {
  if (!d.isRange()) {
    if (w.range !== undefined) throw new WalletDescriptorError(`descriptor ${n}: a range was given for a descriptor that is not ranged`);
    return [0, 0];
  }
  const r = w.range;
  if (r === undefined) throw new WalletDescriptorError(`descriptor ${n}: a ranged descriptor needs its range ([begin, end] as listdescriptors gives it)`);
  const [b, e] = typeof r === 'number' ? [0, r] : r;
  if (!Number.isInteger(b) || !Number.isInteger(e) || b < 0 || e < b || e > 0x7fffffff) {
    throw new WalletDescriptorError(`descriptor ${n}: invalid range ${JSON.stringify(r)}`);
  }
  return [b, e];
}

export class WatchOnlyWallet {
  private readonly spkms: Spkm[] = [];
  /** script hex → [spkm number, index] of the first expansion that produced it. */
  private readonly scripts = new Map<string, [number, number]>();
  private readonly providers = new Map<string, FlatProvider>();

  constructor(
    descriptors: readonly WalletDescriptor[],
    readonly network: Network,
  ) {
    descriptors.forEach((w, n) => {
      if (!w || typeof w.desc !== 'string') throw new WalletDescriptorError(`descriptor ${n}: expected an object with a "desc" string`);
      let parsed: Source[];
      try {
        parsed = sourcesOf(w.desc, network);
      } catch (e) {
        throw new WalletDescriptorError(`descriptor ${n}: ${(e as Error).message || 'invalid descriptor'}`);
      }
      if (parsed.some((d) => d.hasPrivateKeys)) throw new WalletDescriptorError(`descriptor ${n}: holds a private key; Spyglass takes public descriptors only`);
      const [begin, end] = rangeOf(parsed[0]!, w, n);
      for (const desc of parsed) {
        const first = this.expand(desc, begin, n);
        this.spkms.push({ desc, begin, end, types: new Set(first.map((x) => solver(x).type)), cursor: begin, n });
      }
    });
  }

  /**
   * The same descriptors with their ranges as the node lists them now: a range that grew (Core tops
   * its keypool up as addresses are handed out, one index per address) is extended in place, what
   * was derived kept. False when a range moved otherwise (its start, or shrank): build a new index.
   */
  extendRanges(descriptors: readonly WalletDescriptor[]): boolean {
    const next = this.spkms.map((s) => {
      const w = descriptors[s.n];
      if (!w) return null;
      const [begin, end] = rangeOf(s.desc, w, s.n);
      return begin === s.begin && end >= s.end ? end : null;
    });
    if (next.some((e) => e === null)) return false;
    this.spkms.forEach((s, k) => (s.end = next[k]!));
    return true;
  }

  /** Number of ScriptPubKeyMans (descriptors, one per path of a multipath descriptor). */
  get size(): number {
    return this.spkms.length;
  }

  private expand(desc: Source, index: number, n: number): Uint8Array[] {
    try {
      return desc.scripts(index);
    } catch (e) {
      throw new WalletDescriptorError(`descriptor ${n}: ${(e as Error).message}`);
    }
  }

  /** Derives the next index of one ScriptPubKeyMan; true when it made `target` (hex). */
  private step(k: number, target: string): boolean {
    const s = this.spkms[k]!;
    const i = s.cursor++;
    let hit = false;
    for (const script of this.expand(s.desc, i, k)) {
      const hex = hexOf(script);
      if (!this.scripts.has(hex)) this.scripts.set(hex, [k, i]);
      hit ||= hex === target;
    }
    return hit;
  }

  /** Where the wallet has this script: its ScriptPubKeyMan and index, or null (IsMine). */
  locate(script: Uint8Array): [number, number] | null {
    const hex = hexOf(script);
    const hit = this.scripts.get(hex);
    if (hit) return hit;
    const type = solver(script).type;
    // The ScriptPubKeyMans of that type derived side by side, one index each in turn: a script at
    // index i of any of them (the change at the internal one's next index) is found after about
    // i × their number of derivations, not after every index of the ones listed before it (Core's
    // 1,000-key ranges: 1,000 derivations, three keys each for a 2-of-3). A script of none of them
    // still derives every index once; what was derived is kept.
    const ks = this.spkms.flatMap((s, k) => (s.types.has(type) ? [k] : []));
    for (let more = true; more; ) {
      more = false;
      for (const k of ks) {
        const s = this.spkms[k]!;
        if (s.cursor > s.end) continue;
        more = true;
        if (this.step(k, hex)) return this.scripts.get(hex)!;
      }
    }
    return null;
  }

  /** GetSigningProvider(script) of the ScriptPubKeyMan that has the script, or null. */
  providerFor(script: Uint8Array): { spkm: number; provider: FlatProvider } | null {
    const at = this.locate(script);
    if (!at) return null;
    return { spkm: at[0], provider: this.providerAt(at[0], at[1]) };
  }

  private providerAt(k: number, index: number): FlatProvider {
    const key = `${k}/${index}`;
    let p = this.providers.get(key);
    if (!p) {
      p = this.spkms[k]!.desc.provider(index);
      this.providers.set(key, p);
    }
    return p;
  }

  private merged: FlatProvider | null = null;

  /**
   * Every index of every descriptor in one provider: the FlatSigningProvider that
   * EvalDescriptorStringOrObject fills for utxoupdatepsbt and descriptorprocesspsbt, where a key
   * of one descriptor is known to every script (built once, deriving the whole ranges).
   */
  mergedProvider(): FlatProvider {
    if (!this.merged) {
      const m = new FlatProvider();
      this.spkms.forEach((s, k) => {
        for (let i = s.begin; i <= s.end; i++) m.merge(this.providerAt(k, i));
      });
      this.merged = m;
    }
    return this.merged;
  }
}
