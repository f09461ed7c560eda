/**
 * A policy wallet (issue #32): miniscript in wsh() or sh(wsh()), tr() with a script tree
 * (multi_a/sortedmulti_a or miniscript leaves) — whatever Core's importdescriptors takes in those
 * wrappers. Its descriptors are kept as Core normalizes them (shape.ts: kind 'policy'); Core's
 * parser has already checked them (keys, types, duplicate keys, timelock mixes, limits, with
 * Core's words), so what is left here is the wallet's part: every extended key derivable without
 * a private key, a change branch, and the list of distinct keys (a key used on two branches, as
 * Liana's `<0;1>` and `<2;3>`, is one signer).
 */
import type { Network } from '../bitcoin/networks';
import { decodeExtKey, formatPath } from './keys';
import { type KeyShape, type PolicyShape } from './shape';
import { normalizedDescriptor } from './wallet';
import { WalletImportError, type Birthday, type ImportFormat, type WalletDescription, type WalletKey } from './types';

export interface PolicyDraft {
  name: string;
  format: ImportFormat;
  network: Network;
  field: string;
  receive: PolicyShape;
  /** The change half, when given (a pair or a multipath descriptor). */
  change: PolicyShape | null;
  quietChange?: boolean;
  birthday?: Birthday;
  warnings: string[];
}

function checkKey(k: KeyShape, field: string): void {
  if (k.wildcard === 'hardened' || k.suffix.some((s) => s >= 0x80000000)) {
    throw new WalletImportError(
      'derivation',
      field,
      `The key ${k.key.slice(0, 4)}…${k.key.slice(-6)} has a hardened step after it (…h or …'): only the private key can derive it. Use the xpub of the account itself.`,
    );
  }
}

/** The change half of a lone receive descriptor: every ranged key's last step 0 → 1; null when that is not how it is written. */
function derivedChange(r: PolicyShape): PolicyShape | null {
  const ranged = r.keys.filter((k) => k.wildcard !== 'none');
  // a musig() aggregate carries its own branch step in the template: musig(…)/0/*
  const aggregate = [...r.template.matchAll(/\/([0-9]+h?)\/\*/g)].map((m) => m[1]);
  if (ranged.length + aggregate.length === 0) return null;
  if (!ranged.every((k) => k.suffix.length > 0 && k.suffix[k.suffix.length - 1] === 0) || !aggregate.every((s) => s === '0')) return null;
  return {
    ...r,
    template: r.template.replace(/\/0\/\*/g, '/1/*'),
    keys: r.keys.map((k) => (k.wildcard === 'none' ? k : { ...k, suffix: [...k.suffix.slice(0, -1), 1] })),
  };
}

export function finishPolicyWallet(d: PolicyDraft): WalletDescription {
  const warnings = [...d.warnings];
  d.receive.keys.forEach((k) => checkKey(k, d.field));
  d.change?.keys.forEach((k) => checkKey(k, d.field));
  let change = d.change;
  if (!change) {
    change = derivedChange(d.receive);
    if (change) {
      if (!d.quietChange) warnings.push('No change descriptor was given: change addresses are derived with /1/* in place of /0/*, as most wallets do.');
    } else {
      warnings.push('This descriptor has no receive/change branch (…/0/*): change will go to receive addresses.');
    }
  }
  const keys: WalletKey[] = [];
  for (const k of d.receive.keys) {
    const ext = decodeExtKey(k.key)!;
    const path = k.originPath === null ? null : formatPath(k.originPath);
    if (keys.some((w) => w.xpub === ext.normalized && w.fingerprint === k.fingerprint && w.path === path)) continue;
    keys.push({ xpub: ext.normalized, fingerprint: k.fingerprint, path });
    if (k.fingerprint === null || k.originPath === null) {
      warnings.push(
        `The key ${ext.prefix}…${ext.text.slice(-6)} has no key origin ([fingerprint/path]): addresses are right, but a hardware wallet may not recognize them as its own when signing.`,
      );
    }
  }
  const wallet: WalletDescription = {
    name: d.name,
    network: d.network.chain,
    scriptType: d.receive.scriptType,
    threshold: 1,
    sorted: false,
    policy: true,
    keys,
    external: normalizedDescriptor(d.receive, d.network, 'external'),
    internal: change ? normalizedDescriptor(change, d.network, 'internal') : null,
    format: d.format,
    warnings,
  };
  if (d.birthday) wallet.birthday = d.birthday;
  return wallet;
}
