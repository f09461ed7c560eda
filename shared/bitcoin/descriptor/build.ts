/** Script building and string forms of a parsed descriptor tree (Core's DescriptorImpl::ExpandHelper/ToString). */
import { sha256 } from '@noble/hashes/sha2.js';
import { pushBytes, pushNum, toScript, toText } from '../miniscript/script';
import { tapOutputKey, tapTree, tapTreeString, type TapLeafInfo } from './script-tree';
import { encodeDestination, scriptForDestination } from '../address';
import { toHex } from '../hex';
import type { SigningProviderLike } from '../infer';
import type { Network } from '../networks';
import { deriveKey, keyNormalizedString, keyPublicString, type KeyExpr } from './keys';
import type { Node } from './parse';
import type { ExpandedKey, KeyOriginInfo } from './types';
import { compareBytes, concat, hash160, pushData } from './helpers';

export type StrMode = 'public' | 'normalized';

export function nodeString(n: Node, mode: StrMode, branch: number | null, net: Network): string {
  const key = (k: KeyExpr): string => (mode === 'public' ? keyPublicString(k, branch) : keyNormalizedString(k, branch));
  switch (n.t) {
    case 'pk':
    case 'pkh':
    case 'wpkh':
    case 'rawtr':
      return `${n.t}(${key(n.key)})`;
    case 'tr':
      if (!n.leaves.length) return `tr(${key(n.key)})`;
      return `tr(${key(n.key)},${tapTreeString(
        n.leaves.map((l) => l.depth),
        (i) => nodeString(n.leaves[i]!.node, mode, branch, net),
      )})`;
    case 'multi':
      return `${n.sorted ? 'sortedmulti' : 'multi'}(${n.k},${n.keys.map(key).join(',')})`;
    case 'multi_a':
      return `${n.sorted ? 'sortedmulti_a' : 'multi_a'}(${n.k},${n.keys.map(key).join(',')})`;
    case 'ms':
      return toText(n.ms, (i) => key(n.keys[i]!));
    case 'sh':
    case 'wsh':
      return `${n.t}(${nodeString(n.sub, mode, branch, net)})`;
    case 'addr':
      return `addr(${encodeDestination(n.dest, net)})`;
    case 'raw':
      return `raw(${toHex(n.script)})`;
  }
}

export interface Built {
  script: Uint8Array;
  pubkeys: ExpandedKey[];
  redeemScript?: Uint8Array;
  witnessScript?: Uint8Array;
  internalKey?: Uint8Array;
  /** tr() with a script tree: the leaves (script, depth, leaf hash, merkle path) and merkle root. */
  tapTree?: { leaves: TapLeafInfo[]; root: Uint8Array; parity: number };
  /** For inference: scripts by HASH160, taproot internal keys by output key. */
  scripts: Map<string, Uint8Array>;
  tr: Map<string, Uint8Array>;
}

export function multisigScript(k: number, keys: Uint8Array[]): Uint8Array {
  // Core BuildScript(k): OP_1..OP_16 or a number push (multi() allows up to 20 keys)
  return concat(Uint8Array.from(pushNum(k)), ...keys.map(pushData), Uint8Array.from(pushNum(keys.length)), Uint8Array.of(0xae));
}

/** MultiADescriptor::MakeScripts: <k0> CHECKSIG <k1> CHECKSIGADD ... <k> NUMEQUAL (x-only keys). */
export function multiAScript(k: number, xkeys: Uint8Array[]): Uint8Array {
  const out: number[] = [];
  xkeys.forEach((x, i) => out.push(...pushBytes(x), i === 0 ? 0xac : 0xba));
  out.push(...pushNum(k), 0x9c);
  return Uint8Array.from(out);
}

/**
 * `tap`: building a tr() leaf script (Tapscript: 32-byte x-only keys). Keys in miniscript are
 * derived once each per expansion.
 */
export function build(n: Node, branch: number, pos: number, net: Network, tap = false): Built {
  const fresh = (script: Uint8Array, pubkeys: ExpandedKey[]): Built => ({ script, pubkeys, scripts: new Map(), tr: new Map() });
  switch (n.t) {
    case 'pk': {
      const k = deriveKey(n.key, branch, pos);
      return fresh(concat(pushData(tap ? k.pubkey.slice(1, 33) : k.pubkey), Uint8Array.of(0xac)), [k]);
    }
    case 'multi_a': {
      const ks = n.keys.map((k) => deriveKey(k, branch, pos));
      const xs = ks.map((k) => k.pubkey.slice(1, 33));
      if (n.sorted) xs.sort(compareBytes);
      return fresh(multiAScript(n.k, xs), ks);
    }
    case 'ms': {
      const ks = n.keys.map((k) => deriveKey(k, branch, pos));
      const bytes = ks.map((k) => (n.tap ? k.pubkey.slice(1, 33) : k.pubkey));
      const script = toScript(n.ms, { pk: (i) => bytes[i]!, pkh: (i) => hash160(bytes[i]!) });
      return fresh(script, ks);
    }
    case 'pkh': {
      const k = deriveKey(n.key, branch, pos);
      return fresh(concat(Uint8Array.of(0x76, 0xa9), pushData(hash160(k.pubkey)), Uint8Array.of(0x88, 0xac)), [k]);
    }
    case 'wpkh': {
      const k = deriveKey(n.key, branch, pos);
      return fresh(concat(Uint8Array.of(0), pushData(hash160(k.pubkey))), [k]);
    }
    case 'multi': {
      const ks = n.keys.map((k) => deriveKey(k, branch, pos));
      const pubs = ks.map((k) => k.pubkey);
      if (n.sorted) pubs.sort(compareBytes);
      return fresh(multisigScript(n.k, pubs), ks);
    }
    case 'sh': {
      const sub = build(n.sub, branch, pos, net);
      const id = hash160(sub.script);
      sub.scripts.set(toHex(id), sub.script);
      const witnessScript = n.sub.t === 'wsh' ? sub.witnessScript : undefined;
      return {
        ...sub,
        script: concat(Uint8Array.of(0xa9), pushData(id), Uint8Array.of(0x87)),
        redeemScript: sub.script,
        ...(witnessScript ? { witnessScript } : {}),
      };
    }
    case 'wsh': {
      const sub = build(n.sub, branch, pos, net);
      sub.scripts.set(toHex(hash160(sub.script)), sub.script);
      return { ...sub, script: concat(Uint8Array.of(0), pushData(sha256(sub.script))), witnessScript: sub.script };
    }
    case 'tr': {
      const k = deriveKey(n.key, branch, pos);
      const x = k.pubkey.slice(1, 33);
      const subs = n.leaves.map((l) => build(l.node, branch, pos, net, true));
      const tree = tapTree(subs.map((sub, i) => ({ script: sub.script, depth: n.leaves[i]!.depth })));
      const { key: q, parity } = tapOutputKey(x, tree.root);
      const b = fresh(concat(Uint8Array.of(0x51), pushData(q)), [k, ...subs.flatMap((sub) => sub.pubkeys)]);
      b.internalKey = x;
      b.tr.set(toHex(q), x);
      if (tree.root) b.tapTree = { leaves: tree.leaves, root: tree.root, parity };
      return b;
    }
    case 'rawtr': {
      const k = deriveKey(n.key, branch, pos);
      return fresh(concat(Uint8Array.of(0x51), pushData(k.pubkey.slice(1, 33))), [k]);
    }
    case 'addr':
      return fresh(scriptForDestination(n.dest), []);
    case 'raw':
      return fresh(n.script, []);
  }
}

export function providerFor(b: Built): SigningProviderLike {
  const pubs = new Map<string, Uint8Array>();
  const origins = new Map<string, KeyOriginInfo>();
  for (const k of b.pubkeys) {
    const id = toHex(hash160(k.pubkey));
    if (!pubs.has(id)) pubs.set(id, k.pubkey);
    // An explicit origin takes precedence (OriginPubkeyProvider); the first one otherwise.
    if (k.origin && !origins.has(toHex(k.pubkey))) origins.set(toHex(k.pubkey), k.origin);
  }
  return {
    getPubKeyByHash160: (h) => pubs.get(toHex(h)),
    getKeyOrigin: (pk) => origins.get(toHex(pk)),
    getScript: (h) => b.scripts.get(toHex(h)),
    getTaprootInternalKey: (q) => b.tr.get(toHex(q)),
  };
}

