/**
 * BIP 329 wallet labels (JSON Lines): export, import with line-numbered errors, and merging an
 * import into the labels Spyglass already has. This file reads and writes the format; the record
 * type is in bip329/record.ts, the ref checks in bip329/refs.ts, the merge in bip329/merge.ts
 * (re-exported here).
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
import type { Network } from './bitcoin/networks';
import { JsonParseError, parseJson, type UValue } from './json';
import { LIMITS, sizeProblem } from './limits';
import { MAX_LABEL_LENGTH, truncateLabel } from './watchlist';
import { LABEL_TYPES, labelKey, overlay, type LabelRecord, type LabelType } from './bip329/record';
import { checkRef } from './bip329/refs';

export { LABEL_TYPES, labelKey, type LabelRecord, type LabelType } from './bip329/record';
export { MERGE_RULES, mergeLabels, type LabelConflict, type LabelField, type MergeResult, type MergeRule } from './bip329/merge';

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
