/**
 * BIP 329 wallet labels (JSON Lines): export, import with line-numbered errors, and merging an
 * import into the labels Spyglass already has.
 *
 * A record is `{"type", "ref", "label"?, "origin"?, "spendable"?}`:
 *
 * | type     | ref                                                                   |
 * | -------- | --------------------------------------------------------------------- |
 * | `tx`     | transaction id, 64 hex                                                |
 * | `addr`   | address (checked with Core's DecodeDestination for the node's chain)  |
 * | `pubkey` | 32-, 33- or 65-byte public key, hex (checked on secp256k1)           |
 * | `input`  | `txid:index`                                                          |
 * | `output` | `txid:index`; only outputs may carry `spendable` (a JSON boolean)      |
 * | `xpub`   | BIP 32 extended public key of the node's chain                        |
 *
 * Decisions (the BIP leaves them to the importer):
 * - **Long labels** are cut to 255 characters (Unicode code points) with a warning on the line, as the
 *   BIP suggests ("truncate labels if necessary … 255 … consider warning the user"); not an error.
 * - **The same type + ref twice** in one file: the later line wins for every value it gives (JSON
 *   Lines files may be appended to), with a warning on the later line; not an error.
 * - **Unknown types** (e.g. `spscan`, added to the BIP later) are skipped with a warning, as the BIP
 *   asks ("should ignore types not defined here"); a missing or non-string `type` is an error.
 * - **Other keys** (the BIP's optional `height`, `time`, `fee`, `value`, `rate`, `keypath`,
 *   `heights`, `fmv`, or anything else) are ignored.
 * - A `null` label, origin or spendable counts as absent. An absent label or spendable means "do not
 *   change it" (the BIP's rule), and so does an empty label when merging (see {@link mergeLabels}).
 * - Refs are normalized so that they compare equal to what Spyglass stores: txids and public keys
 *   lowercase, addresses in Core's canonical form (Bech32 lowercase).
 *
 * The import is meant to be all or nothing: apply it (in one transaction) only when `errors` is
 * empty; warnings do not block it but should be shown.
 */
import { decodeBase58Check } from './bitcoin/address';
import { isHex } from './bitcoin/hex';
import { MAINNET, TESTNET, type Network } from './bitcoin/networks';
import { FIELD_P, curveRhs, isCurveX } from './bitcoin/secp';
import { JsonParseError, parseJson, type UValue } from './json';
import { LIMITS, sizeProblem } from './limits';
import { MAX_LABEL_LENGTH, chainName, checkAddress, truncateLabel } from './watchlist';

export const LABEL_TYPES = ['tx', 'addr', 'pubkey', 'input', 'output', 'xpub'] as const;
export type LabelType = (typeof LABEL_TYPES)[number];

interface LabelFields {
  ref: string;
  label?: string;
  /** Abbreviated output descriptor of the wallet the label belongs to, e.g. `wpkh([d34db33f/84'/0'/0'])`. */
  origin?: string;
}

/** One BIP 329 record. `spendable` exists on outputs only. */
export type LabelRecord =
  | (LabelFields & { type: Exclude<LabelType, 'output'>; spendable?: never })
  | (LabelFields & { type: 'output'; spendable?: boolean });

export interface Bip329Issue {
  /** 1-based line of the file (0: the file as a whole). */
  line: number;
  message: string;
}

export interface Bip329ParseResult {
  /** Valid records, one per type + ref, in the order they first appear. */
  records: LabelRecord[];
  /** Lines that make the import invalid: apply nothing while there is any. */
  errors: Bip329Issue[];
  /** Not blocking, but shown: truncated labels, repeated refs, skipped types. */
  warnings: Bip329Issue[];
}

/** Longest label kept, in Unicode code points (the BIP's suggested default); shared with the address list. */
export { MAX_LABEL_LENGTH };
/** Largest file read (shared/limits.ts: label files). */
export const MAX_BIP329_CHARS = LIMITS.labels.chars;
/** Most lines read. */
export const MAX_BIP329_LINES = 1_000_000;
/** At most this many errors are listed; one more then says where reading stopped. */
export const MAX_BIP329_ERRORS = 1000;

/** The identity of a record: one label per type + ref. */
export function labelKey(r: { type: LabelType; ref: string }): string {
  return `${r.type}\u0000${r.ref}`;
}

// ---------------------------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------------------------

const TYPE_ORDER: Record<LabelType, number> = { tx: 0, addr: 1, pubkey: 2, input: 3, output: 4, xpub: 5 };

function compareRefs(type: LabelType, a: string, b: string): number {
  if (type === 'input' || type === 'output') {
    const ia = a.lastIndexOf(':');
    const ib = b.lastIndexOf(':');
    const ta = a.slice(0, ia);
    const tb = b.slice(0, ib);
    if (ta !== tb) return ta < tb ? -1 : 1;
    const d = Number(a.slice(ia + 1)) - Number(b.slice(ib + 1));
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** U+2028/U+2029 are valid in JSON strings but some line-oriented tools break lines at them. */
function escapeLineSeparators(json: string): string {
  return json.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** One record as a JSON line (no line end): keys in the BIP's order, absent values left out. */
export function serializeRecord(r: LabelRecord): string {
  const o: Record<string, string | boolean> = { type: r.type, ref: r.ref };
  if (r.label !== undefined) o.label = r.label;
  if (r.origin !== undefined) o.origin = r.origin;
  if (r.type === 'output' && r.spendable !== undefined) o.spendable = r.spendable;
  return escapeLineSeparators(JSON.stringify(o));
}

/**
 * The export file: one JSON object per line, each ended by `\n`, sorted by type (the BIP's order:
 * tx, addr, pubkey, input, output, xpub) then ref (outpoints by txid, then index as a number);
 * records that tie keep their given order. The text is meant to be written as UTF-8 without BOM.
 */
export function serializeBip329(records: readonly LabelRecord[]): string {
  const sorted = records
    .map((r, i) => ({ r, i }))
    .sort((x, y) => TYPE_ORDER[x.r.type] - TYPE_ORDER[y.r.type] || compareRefs(x.r.type, x.r.ref, y.r.ref) || x.i - y.i);
  return sorted.map(({ r }) => serializeRecord(r) + '\n').join('');
}

// ---------------------------------------------------------------------------------------------
// Ref checks
// ---------------------------------------------------------------------------------------------

type RefCheck = { ok: true; ref: string } | { ok: false; message: string };

const TXID_RE = /^[0-9a-fA-F]{64}$/;
const OUTPOINT_RE = /^([0-9a-fA-F]{64}):(0|[1-9][0-9]{0,9})$/;

function checkTxid(ref: string): RefCheck {
  return TXID_RE.test(ref)
    ? { ok: true, ref: ref.toLowerCase() }
    : { ok: false, message: 'A tx ref must be a transaction id: 64 hexadecimal characters.' };
}

function checkOutpoint(type: 'input' | 'output', ref: string): RefCheck {
  const m = OUTPOINT_RE.exec(ref);
  const what = `An ${type} ref must be a transaction id (64 hexadecimal characters), a colon and an ${type} index, e.g. "…8aafd:1".`;
  if (!m) return { ok: false, message: what };
  const index = Number(m[2]);
  if (index > 0xffffffff) return { ok: false, message: `The ${type} index ${m[2]} is out of range (at most 4294967295).` };
  return { ok: true, ref: `${m[1]!.toLowerCase()}:${index}` };
}

function hexToBigint(h: string): bigint {
  return BigInt(`0x${h}`);
}

/** Core CPubKey sizes (02/03 → 33 bytes, 04/06/07 → 65) and x-only keys (32), each on the curve. */
function checkPubkey(ref: string): RefCheck {
  const bad: RefCheck = { ok: false, message: 'A pubkey ref must be a 32-, 33- or 65-byte public key in hexadecimal.' };
  if (!isHex(ref)) return bad;
  const h = ref.toLowerCase();
  const notOnCurve: RefCheck = { ok: false, message: 'This public key is not a point on secp256k1.' };
  if (h.length === 64) return isCurveX(hexToBigint(h)) ? { ok: true, ref: h } : notOnCurve;
  const prefix = h.slice(0, 2);
  if (h.length === 66) {
    if (prefix !== '02' && prefix !== '03') return bad;
    return isCurveX(hexToBigint(h.slice(2))) ? { ok: true, ref: h } : notOnCurve;
  }
  if (h.length === 130) {
    if (prefix !== '04' && prefix !== '06' && prefix !== '07') return bad;
    const x = hexToBigint(h.slice(2, 66));
    const y = hexToBigint(h.slice(66));
    if (x >= FIELD_P || y >= FIELD_P || (y * y) % FIELD_P !== curveRhs(x)) return notOnCurve;
    if ((prefix === '06' && (y & 1n) !== 0n) || (prefix === '07' && (y & 1n) !== 1n)) return notOnCurve;
    return { ok: true, ref: h };
  }
  return bad;
}

/** BIP 32 and SLIP 132 public versions (xpub ypub Ypub zpub Zpub; tpub upub Upub vpub Vpub). */
const XPUB_VERSIONS: { net: Network; name: string; versions: number[] }[] = [
  { net: MAINNET, name: 'mainnet', versions: [0x0488b21e, 0x049d7cb2, 0x0295b43f, 0x04b24746, 0x02aa7ed3] },
  { net: TESTNET, name: 'testnet, signet or regtest', versions: [0x043587cf, 0x044a5262, 0x024289ef, 0x045f1cf6, 0x02575483] },
];

function checkXpub(ref: string, network: Network): RefCheck {
  const data = decodeBase58Check(ref, 78);
  if (!data || data.length !== 78) {
    return { ok: false, message: 'An xpub ref must be a BIP 32 extended public key (Base58Check, 78 bytes).' };
  }
  if (data[45] === 0x00) {
    return { ok: false, message: 'This is an extended PRIVATE key. Spyglass never imports private keys: remove this line and keep the file safe.' };
  }
  const version = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0;
  const family = XPUB_VERSIONS.find((f) => f.versions.includes(version));
  if (!family) return { ok: false, message: `Unknown extended key version 0x${version.toString(16).padStart(8, '0')}.` };
  const mine = network.chain === 'main' ? 'main' : 'test';
  if ((family.net.chain === 'main' ? 'main' : 'test') !== mine) {
    return { ok: false, message: `This is an extended public key for ${family.name}, but the node runs ${chainName(network)}.` };
  }
  const depth = data[4]!;
  const parentAndChild = data.subarray(5, 13);
  if (depth === 0 && parentAndChild.some((b) => b !== 0)) {
    return { ok: false, message: 'Invalid extended public key: depth 0 with a parent fingerprint or child number.' };
  }
  const k = data[45]!;
  let x = 0n;
  for (let i = 46; i < 78; i++) x = (x << 8n) | BigInt(data[i]!);
  if ((k !== 2 && k !== 3) || !isCurveX(x)) return { ok: false, message: 'Invalid extended public key: its key is not a point on secp256k1.' };
  return { ok: true, ref };
}

function checkRef(type: LabelType, ref: string, network: Network): RefCheck {
  switch (type) {
    case 'tx':
      return checkTxid(ref);
    case 'input':
    case 'output':
      return checkOutpoint(type, ref);
    case 'pubkey':
      return checkPubkey(ref);
    case 'xpub':
      return checkXpub(ref, network);
    case 'addr': {
      const r = checkAddress(ref, network);
      if (r.ok) return { ok: true, ref: r.address };
      return { ok: false, message: `Invalid address: ${r.message}${r.hint ? ` ${r.hint}` : ''}` };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------------------------

const KNOWN_KEYS = ['type', 'ref', 'label', 'origin', 'spendable'] as const;
type KnownKey = (typeof KNOWN_KEYS)[number];

function isLabelType(t: string): t is LabelType {
  return (LABEL_TYPES as readonly string[]).includes(t);
}

type LineResult = { kind: 'record'; record: LabelRecord; warnings: string[] } | { kind: 'skip'; warning: string } | { kind: 'error'; message: string };

const JSON_TYPE_NAME: Record<UValue['t'], string> = { null: 'null', bool: 'a boolean', num: 'a number', str: 'a string', arr: 'an array', obj: 'an object' };

function parseLine(text: string, network: Network): LineResult {
  let value: UValue;
  try {
    value = parseJson(text);
  } catch (e) {
    if (e instanceof JsonParseError) {
      // parseJson says "… at offset N" (0-based); people count columns from 1
      const msg = e.message.replace(/ at offset (\d+)$/, (_, n: string) => ` at column ${Number(n) + 1}`);
      return { kind: 'error', message: `Not valid JSON: ${msg}.` };
    }
    throw e;
  }
  if (value.t !== 'obj') return { kind: 'error', message: `Each line must be a JSON object, not ${JSON_TYPE_NAME[value.t]}.` };
  const fields = new Map<KnownKey, UValue>();
  for (let i = 0; i < value.k.length; i++) {
    const k = value.k[i]!;
    if (!(KNOWN_KEYS as readonly string[]).includes(k)) continue;
    if (fields.has(k as KnownKey)) return { kind: 'error', message: `"${k}" appears twice in this record.` };
    fields.set(k as KnownKey, value.v[i]!);
  }

  const type = fields.get('type');
  if (type === undefined) return { kind: 'error', message: 'The record has no "type".' };
  if (type.t !== 'str') return { kind: 'error', message: `"type" must be a string, not ${JSON_TYPE_NAME[type.t]}.` };
  if (!isLabelType(type.v)) {
    return { kind: 'skip', warning: `Record type "${type.v}" is not one Spyglass reads (${LABEL_TYPES.join(', ')}): skipped.` };
  }
  const t = type.v;

  const refV = fields.get('ref');
  if (refV === undefined) return { kind: 'error', message: `The ${t} record has no "ref".` };
  if (refV.t !== 'str') return { kind: 'error', message: `"ref" must be a string, not ${JSON_TYPE_NAME[refV.t]}.` };
  const ref = checkRef(t, refV.v, network);
  if (!ref.ok) return { kind: 'error', message: ref.message };

  const warnings: string[] = [];
  let label: string | undefined;
  const labelV = fields.get('label');
  if (labelV !== undefined && labelV.t !== 'null') {
    if (labelV.t !== 'str') return { kind: 'error', message: `"label" must be a string, not ${JSON_TYPE_NAME[labelV.t]}.` };
    const cut = truncateLabel(labelV.v, MAX_LABEL_LENGTH);
    if (cut.truncated) warnings.push(`The label is longer than ${MAX_LABEL_LENGTH} characters and was cut to ${MAX_LABEL_LENGTH}.`);
    label = cut.label;
  }

  let origin: string | undefined;
  const originV = fields.get('origin');
  if (originV !== undefined && originV.t !== 'null') {
    if (originV.t !== 'str') return { kind: 'error', message: `"origin" must be a string, not ${JSON_TYPE_NAME[originV.t]}.` };
    origin = originV.v;
  }

  let spendable: boolean | undefined;
  const spendV = fields.get('spendable');
  if (spendV !== undefined && spendV.t !== 'null') {
    if (t !== 'output') return { kind: 'error', message: `Only output records can have "spendable"; this is a ${t} record.` };
    if (spendV.t !== 'bool') {
      const hint = spendV.t === 'str' && (spendV.v === 'true' || spendV.v === 'false') ? ` (write ${spendV.v} without quotes)` : '';
      return { kind: 'error', message: `"spendable" must be true or false, not ${JSON_TYPE_NAME[spendV.t]}${hint}.` };
    }
    spendable = spendV.v;
  }

  const record = { type: t, ref: ref.ref } as LabelRecord;
  if (label !== undefined) record.label = label;
  if (origin !== undefined) record.origin = origin;
  if (spendable !== undefined && record.type === 'output') record.spendable = spendable;
  return { kind: 'record', record, warnings };
}

/** Copies the values `later` gives onto `earlier` (later wins). */
function overlay(earlier: LabelRecord, later: LabelRecord): LabelRecord {
  const r = { ...earlier };
  if (later.label !== undefined) r.label = later.label;
  if (later.origin !== undefined) r.origin = later.origin;
  if (r.type === 'output' && later.type === 'output' && later.spendable !== undefined) r.spendable = later.spendable;
  return r;
}

/**
 * Reads a BIP 329 file. Blank lines, a leading byte order mark and CRLF line ends are accepted.
 * Every invalid line is reported with its number (up to {@link MAX_BIP329_ERRORS}); see the module
 * comment for the decisions on long labels, repeated refs and unknown types.
 */
export function parseBip329(text: string, opts: { network: Network }): Bip329ParseResult {
  const records: LabelRecord[] = [];
  const errors: Bip329Issue[] = [];
  const warnings: Bip329Issue[] = [];
  if (text.length > MAX_BIP329_CHARS) {
    errors.push({
      line: 0,
      message: `${sizeProblem('labels', text.length, 'This file')} Split it into smaller files.`,
    });
    return { records, errors, warnings };
  }
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let lineCount = 1;
  for (let i = body.indexOf('\n'); i !== -1; i = body.indexOf('\n', i + 1)) lineCount++;
  if (lineCount > MAX_BIP329_LINES) {
    errors.push({
      line: 0,
      message: `This file has too many lines to import (${lineCount.toLocaleString('en-US')}; the limit is ${MAX_BIP329_LINES.toLocaleString('en-US')}). Split it into smaller files.`,
    });
    return { records, errors, warnings };
  }

  const index = new Map<string, { at: number; line: number }>();
  const lines = body.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const lineNo = n + 1;
    let line = lines[n]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() === '') continue;
    const res = parseLine(line, opts.network);
    if (res.kind === 'error') {
      if (errors.length >= MAX_BIP329_ERRORS) {
        errors.push({ line: lineNo, message: `More than ${MAX_BIP329_ERRORS} invalid lines: stopped reading at line ${lineNo}.` });
        break;
      }
      errors.push({ line: lineNo, message: res.message });
      continue;
    }
    if (res.kind === 'skip') {
      warnings.push({ line: lineNo, message: res.warning });
      continue;
    }
    for (const w of res.warnings) warnings.push({ line: lineNo, message: w });
    const key = labelKey(res.record);
    const prev = index.get(key);
    if (prev) {
      warnings.push({
        line: lineNo,
        message: `Repeats the ${res.record.type} ${res.record.ref} of line ${prev.line}: where both lines give a value, this line's is used.`,
      });
      records[prev.at] = overlay(records[prev.at]!, res.record);
    } else {
      index.set(key, { at: records.length, line: lineNo });
      records.push(res.record);
    }
  }
  return { records, errors, warnings };
}

// ---------------------------------------------------------------------------------------------
// Merge
// ---------------------------------------------------------------------------------------------

export type MergeRule = 'replace' | 'keep-existing' | 'fill-empty';

/** What the import screen says about each rule (title for the choice, text under it). */
export const MERGE_RULES: Record<MergeRule, { title: string; description: string }> = {
  replace: {
    title: 'Use the file’s labels',
    description:
      'Where the file and Spyglass both have a label (or spendable flag) for the same item, the file’s replaces yours. Items the file does not mention keep theirs. An empty label in the file never erases one.',
  },
  'keep-existing': {
    title: 'Keep my labels',
    description:
      'Items that already have a label or spendable flag in Spyglass stay exactly as they are. The file only adds labels for items Spyglass has nothing for.',
  },
  'fill-empty': {
    title: 'Only fill in blanks',
    description:
      'The file fills in only what is missing in Spyglass: an item without a label gets the file’s label, an output without a spendable flag gets the file’s. Nothing you have set is overwritten.',
  },
};

export type LabelField = 'label' | 'origin' | 'spendable';

export interface LabelConflict {
  type: LabelType;
  ref: string;
  field: LabelField;
  existing: string | boolean;
  imported: string | boolean;
  /** Whose value the rule keeps. */
  kept: 'existing' | 'imported';
}

export interface MergeResult {
  /** Items Spyglass has no record for: insert these. (An existing but empty record that gets values is in `updated`.) */
  added: LabelRecord[];
  /** Items whose stored values change: write `after` over `before`. */
  updated: { before: LabelRecord; after: LabelRecord }[];
  /** Imported records that change nothing (same values, nothing to add, or kept by the rule). */
  unchanged: LabelRecord[];
  /**
   * Every value both sides have and disagree on, with the side the rule kept. Not a separate
   * category: each conflict's item is also in `updated` (file kept) or `unchanged` (yours kept).
   */
  conflicts: LabelConflict[];
}

function fieldValue(r: LabelRecord, f: LabelField): string | boolean | undefined {
  if (f === 'spendable') return r.type === 'output' ? r.spendable : undefined;
  const v = r[f];
  return v === '' ? undefined : v; // an empty label or origin is no value
}

function hasContent(r: LabelRecord): boolean {
  return (['label', 'origin', 'spendable'] as const).some((f) => fieldValue(r, f) !== undefined);
}

function withField(r: LabelRecord, f: LabelField, v: string | boolean): LabelRecord {
  if (f === 'spendable') return r.type === 'output' ? { ...r, spendable: v as boolean } : r;
  return { ...r, [f]: v as string } as LabelRecord;
}

/** The import's values minus empty labels/origins (which never erase anything). */
function stripEmpty(r: LabelRecord): LabelRecord {
  const out = { type: r.type, ref: r.ref } as LabelRecord;
  for (const f of ['label', 'origin', 'spendable'] as const) {
    const v = fieldValue(r, f);
    if (v !== undefined) Object.assign(out, { [f]: v });
  }
  return out;
}

/**
 * Merges imported records into the existing ones under `rule` (see {@link MERGE_RULES} for the
 * wording shown to the user). Pure: returns what would change, for the import screen to show and
 * for the store to apply in one transaction. Records are matched by type + ref (normalize refs the
 * way {@link parseBip329} does); repeated refs within `imported` or `existing` fold, the later wins.
 * An absent or empty imported value never changes anything.
 */
export function mergeLabels(existing: readonly LabelRecord[], imported: readonly LabelRecord[], rule: MergeRule): MergeResult {
  const have = new Map<string, LabelRecord>();
  for (const r of existing) {
    const k = labelKey(r);
    const prev = have.get(k);
    have.set(k, prev ? overlay(prev, r) : r);
  }
  const incoming = new Map<string, LabelRecord>();
  for (const r of imported) {
    const k = labelKey(r);
    const prev = incoming.get(k);
    incoming.set(k, prev ? overlay(prev, r) : r);
  }

  const result: MergeResult = { added: [], updated: [], unchanged: [], conflicts: [] };
  for (const [k, imp] of incoming) {
    const cur = have.get(k);
    if (!cur || !hasContent(cur)) {
      const add = stripEmpty(imp);
      if (!hasContent(add)) result.unchanged.push(imp);
      else if (cur) result.updated.push({ before: cur, after: { ...cur, ...add } as LabelRecord });
      else result.added.push(add);
      continue;
    }
    let after = cur;
    for (const f of ['label', 'origin', 'spendable'] as const) {
      const iv = fieldValue(imp, f);
      if (iv === undefined) continue;
      const cv = fieldValue(cur, f);
      if (cv === iv) continue;
      if (cv === undefined) {
        if (rule !== 'keep-existing') after = withField(after, f, iv);
        continue;
      }
      const kept = rule === 'replace' ? 'imported' : 'existing';
      result.conflicts.push({ type: cur.type, ref: cur.ref, field: f, existing: cv, imported: iv, kept });
      if (kept === 'imported') after = withField(after, f, iv);
    }
    if (after === cur) result.unchanged.push(imp);
    else result.updated.push({ before: cur, after });
  }
  return result;
}
