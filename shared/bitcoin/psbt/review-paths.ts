/**
 * For each input of a PSBT, the spending paths its coin can take (shared/bitcoin/miniscript/
 * policy.ts) with the keys that have signed — a signature that verifies (verify.ts) — and those
 * still missing, and whether the transaction's nSequence/nLockTime let the path's timelock pass.
 *
 * The input's policy is the wallet's: the descriptor (of those given) whose expansion at the
 * input's derivation index pays the spent script. The index comes from the input's BIP32
 * derivations (the last step of each key's path); an input no descriptor pays gets no paths.
 */
import type { Descriptor } from '../descriptor';
import { analyzePolicy, policyPubkeysAt, type PolicyWithKeys, type SpendPath } from '../miniscript/policy';
import { toHex } from '../hex';
import { getUtxo } from './sign-input';
import { tapLeafHash } from './sighash';
import type { Psbt, PsbtInput } from './types';
import { verifyPsbtSignatures } from './verify';
import { LOCKTIME_THRESHOLD, SEQUENCE_FINAL, SEQUENCE_LOCKTIME_DISABLE_FLAG, SEQUENCE_LOCKTIME_TYPE_FLAG } from '../locktime';

export interface InputPathStatus {
  id: string;
  kind: 'key-path' | 'script';
  /** "key B after 10 blocks (~1 h 40 min)". */
  words: string;
  /** Names (A, B, …) of the path's keys with a valid signature on this input. */
  signed: string[];
  /** Names of the path's keys without one. */
  missing: string[];
  /** Signatures still needed for the path's thresholds (0: enough have signed). */
  needed: number;
  /** 'none': no timelock; 'met': the transaction's nSequence/nLockTime satisfy it; 'unmet': they do not. */
  timelock: 'none' | 'met' | 'unmet';
}

export interface InputPaths {
  /** The wallet descriptor the input's coin belongs to, and the coin's derivation index in it. */
  descriptor: string;
  index: number;
  keys: Array<{ name: string; fingerprint: string }>;
  /** The policy in words. */
  words: string;
  paths: InputPathStatus[];
}

/** Whether nSequence lets older(n) pass (BIP68/BIP112: same unit, at least as long, version ≥ 2). */
export function olderMet(n: number, sequence: number, txVersion: number): boolean {
  if (txVersion < 2 || sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) return false;
  if ((n & SEQUENCE_LOCKTIME_TYPE_FLAG) !== (sequence & SEQUENCE_LOCKTIME_TYPE_FLAG)) return false;
  return (sequence & 0xffff) >= (n & 0xffff);
}

/** Whether nLockTime lets after(n) pass (BIP65: same kind, at least n, the input's nSequence not final). */
export function afterMet(n: number, locktime: number | null, sequence: number): boolean {
  if (locktime === null || sequence === SEQUENCE_FINAL) return false;
  if (n < LOCKTIME_THRESHOLD !== locktime < LOCKTIME_THRESHOLD) return false;
  return locktime >= n;
}

/** Candidate derivation indexes of an input: the last step of each BIP32 derivation it carries. */
function candidateIndexes(input: PsbtInput): number[] {
  const out = new Set<number>();
  for (const o of input.hdKeypaths.values()) if (o.path.length) out.add(o.path[o.path.length - 1]!);
  for (const t of input.tapBip32.values()) if (t.origin.path.length) out.add(t.origin.path[t.origin.path.length - 1]!);
  return [...out].filter((i) => i < 0x80000000);
}

interface Matched {
  desc: Descriptor;
  index: number;
  leafHashes: string[];
}

function match(input: PsbtInput, descriptors: Descriptor[]): Matched | null {
  const utxo = getUtxo(input);
  if (!utxo) return null;
  const spk = toHex(utxo.script);
  for (const index of candidateIndexes(input)) {
    for (const d of descriptors) {
      let e;
      try {
        e = d.expand(index)[0];
      } catch {
        continue;
      }
      if (!e || toHex(e.script) !== spk) continue;
      return { desc: d, index, leafHashes: (e.tapLeaves ?? []).map((l) => toHex(tapLeafHash(l.script, 0xc0))) };
    }
  }
  return null;
}

function pathStatus(p: SpendPath, names: string[], signedBy: (key: number, path: SpendPath) => boolean, lock: 'none' | 'met' | 'unmet'): InputPathStatus {
  const signed: string[] = [];
  const missing: string[] = [];
  let needed = 0;
  for (const g of p.sigs) {
    let have = 0;
    for (const k of g.keys) {
      if (signedBy(k, p)) {
        have++;
        if (!signed.includes(names[k]!)) signed.push(names[k]!);
      } else if (!missing.includes(names[k]!)) missing.push(names[k]!);
    }
    needed += Math.max(0, g.k - have);
  }
  return { id: p.id, kind: p.kind, words: p.words, signed, missing, needed, timelock: lock };
}

/**
 * The paths of every input (null for an input that none of `descriptors` pays). `descriptors` are
 * the wallet's single-branch descriptors (Descriptor.expandMultipath of each).
 */
export function reviewInputPaths(psbt: Psbt, descriptors: Descriptor[]): Array<InputPaths | null> {
  if (descriptors.length === 0) return psbt.inputs.map(() => null);
  const matches = psbt.inputs.map((input) => match(input, descriptors));
  // signatures are verified only when some input is the wallet's (a foreign PSBT costs nothing more)
  if (matches.every((m) => m === null)) return matches.map(() => null);
  const checks = verifyPsbtSignatures(psbt).checks.filter((c) => c.status === 'valid');
  const policies = new Map<Descriptor, PolicyWithKeys | null>();
  const policyOf = (d: Descriptor): PolicyWithKeys | null => {
    if (!policies.has(d)) {
      try {
        policies.set(d, analyzePolicy(d));
      } catch {
        policies.set(d, null);
      }
    }
    return policies.get(d)!;
  };
  return psbt.inputs.map((input, i) => {
    const m = matches[i];
    if (!m) return null;
    const pw = policyOf(m.desc);
    if (!pw) return null;
    const mine = checks.filter((c) => c.input === i);
    const pubs = policyPubkeysAt(pw, m.index);
    const signedBy = (key: number, p: SpendPath): boolean =>
      pubs[key]!.some((pub) =>
        mine.some((c) => {
          if (c.kind === 'ecdsa') return c.pubkey === toHex(pub);
          // a MuSig2 partial signature is one participant's share: no key of the policy has signed until they are aggregated
          if (c.kind === 'musig2-partial') return false;
          const x = toHex(pub.slice(1));
          if (c.kind === 'tapscript') return c.pubkey === x && p.leaf !== undefined && c.leafHash === m.leafHashes[p.leaf];
          // a key path signature is by the tweaked output key: it signs for the key path
          return p.kind === 'key-path';
        }),
      );
    const lockOf = (p: SpendPath): 'none' | 'met' | 'unmet' => {
      if (!p.older && !p.after) return 'none';
      const older = !p.older || olderMet(p.older.value, input.sequence, psbt.txVersion);
      const after = !p.after || afterMet(p.after.value, psbt.locktime, input.sequence);
      return older && after ? 'met' : 'unmet';
    };
    const names = pw.policy.keys.map((k) => k.name);
    return {
      descriptor: m.desc.toString(),
      index: m.index,
      keys: pw.policy.keys.map((k) => ({ name: k.name, fingerprint: k.fingerprint })),
      words: pw.policy.words,
      paths: pw.policy.paths.map((p) => pathStatus(p, names, signedBy, lockOf(p))),
    };
  });
}
