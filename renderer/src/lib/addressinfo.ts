// Core's getaddressinfo reply grouped for people. Every field of the reply is shown: the known ones
// under a heading with a plain name, anything else (a newer Core's fields) under "Other fields".
import { formatTime } from './format';

export interface InfoField {
  key: string;
  label: string;
  /** Display text; lists become several lines. */
  value: string | string[];
  mono: boolean;
  hint?: string;
}

export interface InfoGroup {
  id: string;
  title: string;
  fields: InfoField[];
}

interface Known {
  label: string;
  mono?: boolean;
  hint?: string;
}

const GROUPS: { id: string; title: string; keys: Record<string, Known> }[] = [
  {
    id: 'script',
    title: 'Type & script',
    keys: {
      scriptPubKey: { label: 'scriptPubKey', mono: true },
      script: { label: 'Redeem / witness script type', mono: true, hint: 'script: the type of the script this address pays to (P2SH and P2WSH only)' },
      isscript: { label: 'Pays to a script', hint: 'isscript' },
      iswitness: { label: 'Segwit', hint: 'iswitness' },
      witness_version: { label: 'Witness version', mono: true },
      witness_program: { label: 'Witness program', mono: true },
      hex: { label: 'Redeem / witness script', mono: true, hint: 'hex' },
      iscompressed: { label: 'Compressed public key', hint: 'iscompressed' },
    },
  },
  {
    id: 'descriptor',
    title: 'Descriptor',
    keys: {
      desc: { label: 'Descriptor', mono: true, hint: 'desc' },
      parent_desc: { label: 'Parent descriptor', mono: true, hint: 'parent_desc' },
    },
  },
  {
    id: 'hd',
    title: 'HD derivation',
    keys: {
      hdkeypath: { label: 'Key path', mono: true, hint: 'hdkeypath' },
      hdmasterfingerprint: { label: 'Master fingerprint', mono: true, hint: 'hdmasterfingerprint' },
      hdseedid: { label: 'HD seed id', mono: true, hint: 'hdseedid (legacy wallets)' },
    },
  },
  {
    id: 'keys',
    title: 'Keys',
    keys: {
      pubkey: { label: 'Public key', mono: true, hint: 'pubkey' },
      pubkeys: { label: 'Public keys', mono: true, hint: 'pubkeys' },
      sigsrequired: { label: 'Signatures required', mono: true, hint: 'sigsrequired' },
    },
  },
  {
    id: 'wallet',
    title: 'In the node’s wallet',
    keys: {
      // A descriptor wallet says ismine:true for its scripts with private keys disabled too (spec §4).
      ismine: { label: 'Belongs to the wallet', hint: 'ismine: one of the wallet’s scripts; says nothing of whether it holds the private keys' },
      iswatchonly: { label: 'Imported watch-only', hint: 'iswatchonly: legacy-wallet imports only; always false from Core v30' },
      solvable: { label: 'Solvable', hint: 'solvable: the wallet knows how to sign for it, given the keys' },
      ischange: { label: 'Change address', hint: 'ischange' },
      labels: { label: 'Labels', hint: 'labels' },
      timestamp: { label: 'Key birth time', hint: 'timestamp' },
    },
  },
];

function scalar(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v === '' ? '(empty)' : v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

function display(key: string, v: unknown): string | string[] {
  if (key === 'timestamp' && typeof v === 'number') return `${formatTime(new Date(v * 1000).toISOString())} (${v})`;
  if (Array.isArray(v)) return v.length === 0 ? '(none)' : v.map((x) => (typeof x === 'object' && x !== null && 'name' in x ? scalar((x as { name: unknown }).name) : scalar(x)));
  return scalar(v);
}

/** "2 of 3" from sigsrequired and pubkeys, at the top level or inside `embedded` (P2SH-wrapped). */
export function multisigOf(info: Record<string, unknown>): { m: number; n: number } | null {
  for (const o of [info, info.embedded]) {
    if (typeof o !== 'object' || o === null) continue;
    const r = o as Record<string, unknown>;
    if (typeof r.sigsrequired === 'number' && Array.isArray(r.pubkeys)) return { m: r.sigsrequired, n: r.pubkeys.length };
  }
  return null;
}

function fieldsOf(r: Record<string, unknown>, keys: Record<string, Known>, prefix: string): InfoField[] {
  const out: InfoField[] = [];
  for (const [k, known] of Object.entries(keys)) {
    if (!(k in r)) continue;
    out.push({ key: `${prefix}${k}`, label: known.label, value: display(k, r[k]), mono: known.mono === true, ...(known.hint ? { hint: known.hint } : {}) });
  }
  return out;
}

/** Groups every field of a getaddressinfo reply; empty groups are left out. */
export function groupAddressInfo(info: Record<string, unknown>): InfoGroup[] {
  const groups: InfoGroup[] = [];
  const seen = new Set<string>(['address', 'embedded']);
  for (const g of GROUPS) {
    const fields = fieldsOf(info, g.keys, '');
    for (const k of Object.keys(g.keys)) seen.add(k);
    if (g.id === 'keys') {
      const ms = multisigOf(info);
      if (ms) fields.unshift({ key: 'multisig', label: 'Multisig', value: `${ms.m} of ${ms.n}`, mono: true, hint: 'sigsrequired of pubkeys' });
    }
    if (fields.length > 0) groups.push({ id: g.id, title: g.title, fields });
  }
  const embedded = info.embedded;
  if (typeof embedded === 'object' && embedded !== null && !Array.isArray(embedded)) {
    const e = embedded as Record<string, unknown>;
    const fields: InfoField[] = [];
    if (typeof e.address === 'string') fields.push({ key: 'embedded.address', label: 'Address', value: e.address, mono: true });
    const known = new Set<string>(['address']);
    for (const g of GROUPS) {
      fields.push(...fieldsOf(e, g.keys, 'embedded.'));
      for (const k of Object.keys(g.keys)) known.add(k);
    }
    for (const [k, v] of Object.entries(e)) if (!known.has(k)) fields.push({ key: `embedded.${k}`, label: k, value: display(k, v), mono: true });
    // Right after the outer script it wraps.
    groups.splice(groups[0]?.id === 'script' ? 1 : 0, 0, { id: 'embedded', title: 'Embedded script (inside P2SH)', fields });
  }
  const other: InfoField[] = [];
  for (const [k, v] of Object.entries(info)) if (!seen.has(k)) other.push({ key: k, label: k, value: display(k, v), mono: true });
  if (other.length > 0) groups.push({ id: 'other', title: 'Other fields', fields: other });
  return groups;
}
