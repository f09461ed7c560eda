/**
 * The small pieces of a decodepsbt result that both writers (decode-json.ts: objects;
 * decode-text.ts: text) build the same way, in Core's order (std::map / std::set order), and a
 * writeJson for them that skips the general writer's checks.
 */
import { moneyRange } from '../../amounts';
import { encodeBase58Check } from '../address';
import { jsonString, RawJson } from '../../json';
import type { Network } from '../networks';
import { scriptToUniv } from '../script-univ';
import { hexOf } from '../tx';
import { ZERO32_HEX } from './read-common';
import type { KeyOrigin, MusigDatum, MusigParticipants, Proprietary, Psbt, PsbtInput, TapBip32, TapLeafScript } from './types';

const toHex = (b: Uint8Array): string => hexOf(b);

export function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedValues<V>(m: Map<string, V>): V[] {
  const keys = [...m.keys()].sort(cmpStr);
  return keys.map((k) => m.get(k)!);
}

/** uint256::IsNull / XOnlyPubKey::IsNull: absent or all zero. */
export function isNull(b: Uint8Array | undefined): boolean {
  if (!b) return true;
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

/** WriteHDKeypath(path) with 'h' for hardened steps. */
export function formatHDKeypath(path: number[]): string {
  let s = 'm';
  for (const i of path) {
    s += '/' + (i & 0x7fffffff);
    if (i >= 0x80000000) s += 'h';
  }
  return s;
}

export function globalXpubsUniv(p: Psbt): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const ok of [...p.xpubs.keys()].sort(cmpStr)) {
    const e = p.xpubs.get(ok)!;
    const list = [...e.xpubs].sort((a, b) => cmpStr(a.sort, b.sort));
    for (const x of list) {
      out.push({ xpub: encodeBase58Check(x.key), master_fingerprint: hexOf(e.origin.fp), path: formatHDKeypath(e.origin.path) });
    }
  }
  return out;
}

export function propUniv(props: Map<string, Proprietary>): Record<string, unknown>[] {
  return sortedValues(props).map((p) => ({
    identifier: toHex(p.identifier),
    subtype: p.subtype,
    key: toHex(p.key),
    value: toHex(p.value),
  }));
}

export function unknownUniv(unknown: Map<string, Uint8Array>): Record<string, string> {
  const o: Record<string, string> = {};
  for (const k of [...unknown.keys()].sort(cmpStr)) o[k] = toHex(unknown.get(k)!);
  return o;
}

export function keypathsUniv(paths: Map<string, KeyOrigin>): Record<string, unknown>[] {
  return [...paths.keys()].sort(cmpStr).map((pub) => {
    const o = paths.get(pub)!;
    return { pubkey: pub, master_fingerprint: hexOf(o.fp), path: formatHDKeypath(o.path) };
  });
}

export function tapKeypathsUniv(paths: Map<string, TapBip32>): Record<string, unknown>[] {
  return [...paths.keys()].sort(cmpStr).map((x) => {
    const v = paths.get(x)!;
    return {
      pubkey: x,
      master_fingerprint: hexOf(v.origin.fp),
      path: formatHDKeypath(v.origin.path),
      leaf_hashes: v.leafHashes,
    };
  });
}

export function musigParticipantsUniv(m: Map<string, MusigParticipants>): Record<string, unknown>[] {
  return sortedValues(m).map((e) => ({ aggregate_pubkey: e.agg, participant_pubkeys: e.parts }));
}

export function musigDataUniv(m: Map<string, MusigDatum>, valueKey: string): Record<string, unknown>[] {
  return sortedValues(m).map((d) => {
    const o: Record<string, unknown> = { participant_pubkey: d.part, aggregate_pubkey: d.agg };
    if (d.leaf !== ZERO32_HEX) o.leaf_hash = d.leaf;
    o[valueKey] = d.value;
    return o;
  });
}

export function scriptUniv(script: Uint8Array, network: Network): Record<string, unknown> {
  return scriptToUniv(script, { includeHex: true, includeAddress: false, network });
}

export function preimagesUniv(m: Map<string, Uint8Array>): Record<string, string> {
  const o: Record<string, string> = {};
  for (const k of [...m.keys()].sort(cmpStr)) o[k] = toHex(m.get(k)!);
  return o;
}


export function tapScriptsUniv(m: Map<string, TapLeafScript>): Record<string, unknown>[] {
  const entries = [...m.values()].sort((a, b) => cmpStr(a.scriptHex, b.scriptHex) || a.ver - b.ver);
  return entries.map((e) => ({
    script: e.scriptHex,
    leaf_ver: e.ver,
    control_blocks: [...e.controls.entries()].sort((a, b) => a[1].length - b[1].length || cmpStr(a[0], b[0])).map((c) => c[0]),
  }));
}

/**
 * writeJson for the small decodepsbt pieces {@link toText} does not emit itself (plain objects,
 * arrays, strings, numbers, RawJson). Strings of printable ASCII without a quote or backslash
 * (all of a decodepsbt result in practice) are written as they are; any other string goes
 * through {@link jsonString}, exactly as writeJson does.
 */
export function fastWriteJson(x: unknown): string {
  const out: string[] = [];
  writeValue(x, out);
  return out.join('');
}

export function strText(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) return jsonString(s);
  }
  return '"' + s + '"';
}

export function writeValue(x: unknown, out: string[]): void {
  if (typeof x === 'string') {
    out.push(strText(x));
  } else if (typeof x === 'number') {
    if (!Number.isFinite(x)) throw new TypeError('non-finite number in JSON');
    out.push(String(x));
  } else if (x === null || x === undefined) {
    out.push('null');
  } else if (typeof x === 'boolean') {
    out.push(x ? 'true' : 'false');
  } else if (typeof x === 'bigint') {
    out.push(x.toString());
  } else if (x instanceof RawJson) {
    out.push(x.text);
  } else if (Array.isArray(x)) {
    out.push('[');
    for (let i = 0; i < x.length; i++) {
      if (i) out.push(',');
      writeValue(x[i], out);
    }
    out.push(']');
  } else if (typeof x === 'object') {
    let sep = '{';
    const o = x as Record<string, unknown>;
    for (const k in o) {
      const v = o[k];
      if (v === undefined) continue;
      out.push(sep + strText(k) + ':');
      sep = ',';
      writeValue(v, out);
    }
    out.push(sep === '{' ? '{}' : '}');
  } else {
    throw new TypeError(`cannot write ${typeof x} as JSON`);
  }
}

/**
 * writeJson for big trees (a previous transaction): the engine's JSON.stringify, with RawJson
 * tokens spliced in afterwards. The same text as writeJson for decodepsbt values (their strings
 * hold no control characters or DEL).
 */
export function stringifyJson(x: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(x, function (this: Record<string, unknown>, k: string, v: unknown) {
    const orig = this[k];
    return orig instanceof RawJson ? `\u0000${raws.push(orig.text) - 1}\u0000` : v;
  });
  return text.replace(/"\\u0000(\d+)\\u0000"/g, (_m, i: string) => raws[Number(i)]!);
}

/** The sums decodepsbt's fee needs (MoneyRange checked as Core does; "have all utxos" false hides the fee). */
export class FeeSum {
  totalIn = 0n;
  totalOut = 0n;
  haveAll = true;

  /** An input's spent amount: from the non_witness_utxo when there is one, else the witness_utxo. */
  input(p: PsbtInput): void {
    let value: bigint | undefined;
    if (p.witnessUtxo && p.witnessUtxo.value !== -1n) value = p.witnessUtxo.value;
    if (p.nonWitnessUtxo) value = p.nonWitnessUtxo.vout[p.vout]?.value;
    if (value === undefined) this.haveAll = false;
    else if (moneyRange(value) && moneyRange(this.totalIn + value)) this.totalIn += value;
    else this.haveAll = false;
  }

  output(value: bigint): void {
    if (moneyRange(value) && moneyRange(this.totalOut + value)) this.totalOut += value;
    else this.haveAll = false;
  }

  get fee(): bigint | null {
    return this.haveAll ? this.totalIn - this.totalOut : null;
  }
}
