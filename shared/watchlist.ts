/**
 * The addresses a user adds to the watched set: one typed in, a pasted list, or a file.
 *
 * Accepted input, checked against the node's chain with Core's own DecodeDestination rules:
 * - one address per line, or several on a line separated by commas, semicolons or spaces (so a
 *   URI whose query holds a comma is split there, and the piece after it is reported);
 * - "address label" lines (as Sparrow, Electrum and bitcoin-cli users keep them): an address, then
 *   whitespace, then words none of which looks like an address — the words are its label. A line
 *   with a comma or semicolon is always a list; when any other word looks like an address, the line
 *   is a list and a mistyped one is reported, never taken for a label;
 * - blank lines, and `#` comments (a line starting with `#`, or a lone `#` and the rest of the line)
 *   are ignored;
 * - `bitcoin:` URIs (BIP 21): the address part is used, and its `label=` (percent-decoded) labels the
 *   address; the rest of the query (`amount`, `message`…) is ignored;
 * - a CSV file whose header has an `address` column (any case; comma, semicolon or tab separated),
 *   optionally a `label` column; other columns (the balances export's amounts…) are ignored.
 *
 * Addresses come back in Core's canonical form (what `getaddressinfo`/`listreceivedbyaddress`
 * print: Bech32 lowercased, Base58 without surrounding spaces), deduplicated keeping the first
 * occurrence. Invalid entries are reported with their line, the text as given, and Core's message
 * (plus a hint when the address belongs to another chain).
 *
 * Nothing is half-applied: the result lists every problem in the whole input, and the caller must
 * add the addresses only when `errors` is empty — otherwise show the errors and add nothing.
 */
import { decodeDestination, encodeDestination } from './bitcoin/address';
import { MAINNET, REGTEST, TESTNET, type Network } from './bitcoin/networks';
import { LIMITS, sizeProblem } from './limits';
import { CSV_BOM, parseCsv, sniffDelimiter, unguardFormula } from './csv';

/** Longest text accepted (shared/limits.ts: address lists). */
export const MAX_ADDRESS_LIST_CHARS = LIMITS.addressList.chars;
/** Most addresses added at once. */
export const MAX_ADDRESSES = 100_000;
/** Longest label kept (Unicode code points); longer ones are cut and a warning says so (as BIP 329 suggests). */
export const MAX_LABEL_LENGTH = 255;
/** At most this many errors are listed; one more entry then says the list stops there. */
export const MAX_LISTED_ERRORS = 1000;

export interface AddressListError {
  /** 1-based line of the input (0: the input as a whole, e.g. too large). */
  line: number;
  /** The text as the user gave it (the whole URI for a `bitcoin:` URI). */
  input: string;
  /** Core's DecodeDestination message ('Invalid address' where Core has none), or what else is wrong. */
  message: string;
  /** Extra help, e.g. "This is a mainnet address, but the node runs regtest." */
  hint?: string;
}

export interface AddressListWarning {
  line: number;
  message: string;
}

export interface AddressListResult {
  /** `csv` when the first line is a header with an `address` column. */
  format: 'list' | 'csv';
  /** Canonical addresses, first occurrence order, no duplicates. */
  addresses: string[];
  /** address → label, from a CSV `label` column or a URI's `label=` (non-empty labels of kept rows only). */
  labels: Map<string, string>;
  /** Apply nothing unless this is empty. */
  errors: AddressListError[];
  /** Not blocking: labels cut to {@link MAX_LABEL_LENGTH}. */
  warnings: AddressListWarning[];
  /** How many valid entries were dropped because the same address came earlier. */
  duplicates: number;
}

// ---------------------------------------------------------------------------------------------
// One address
// ---------------------------------------------------------------------------------------------

export type AddressCheck = { ok: true; address: string } | { ok: false; message: string; hint?: string };

/** The chain's name as people know it ('mainnet', 'testnet3', 'testnet4', 'signet', 'regtest'). */
export function chainName(network: Network): string {
  return CHAIN_NAME[network.chain];
}

const CHAIN_NAME: Record<Network['chain'], string> = {
  main: 'mainnet',
  test: 'testnet3',
  testnet4: 'testnet4',
  signet: 'signet',
  regtest: 'regtest',
};

/** Networks with distinct address encodings (testnet3, testnet4 and signet share one). */
const ENCODINGS: { net: Network; name: string }[] = [
  { net: MAINNET, name: 'mainnet' },
  { net: TESTNET, name: 'testnet or signet' },
  { net: REGTEST, name: 'regtest' },
];

function sameEncoding(a: Network, b: Network): boolean {
  return a.bech32 === b.bech32 && a.pubKeyHash === b.pubKeyHash && a.scriptHash === b.scriptHash;
}

/** "This is a mainnet address, but the node runs regtest." when the address is valid on another chain. */
export function otherChainHint(address: string, network: Network): string | undefined {
  for (const { net, name } of ENCODINGS) {
    if (sameEncoding(net, network)) continue;
    if (decodeDestination(address, net).ok) return `This is a ${name} address, but the node runs ${chainName(network)}.`;
  }
  return undefined;
}

/**
 * Core's DecodeDestination on `network`; on success the canonical text (EncodeDestination of the
 * result: Bech32 lowercase), on failure Core's message ('Invalid address' where Core gives none,
 * as its RPCs do) and a hint when the address belongs to another chain.
 */
export function checkAddress(input: string, network: Network): AddressCheck {
  const res = decodeDestination(input, network);
  if (res.ok) {
    const address = encodeDestination(res.dest, network) || input.trim();
    return { ok: true, address };
  }
  const hint = otherChainHint(input, network);
  const message = res.error || 'Invalid address';
  return hint === undefined ? { ok: false, message } : { ok: false, message, hint };
}

/** The address part of a BIP 21 `bitcoin:` URI (scheme in any case), or null when `text` is not one. */
export function bip21Address(text: string): string | null {
  if (!/^bitcoin:/i.test(text)) return null;
  let rest = text.slice('bitcoin:'.length);
  if (rest.startsWith('//')) rest = rest.slice(2); // bitcoin://addr, written by some wallets
  const q = rest.search(/[?#]/);
  return q === -1 ? rest : rest.slice(0, q);
}

/**
 * The `label` parameter of a BIP 21 URI, percent-decoded ('+' stays '+', as BIP 21 encodes a space
 * as %20); undefined when there is none, null when it is not valid percent-encoding.
 */
export function bip21Label(text: string): string | null | undefined {
  if (!/^bitcoin:/i.test(text)) return undefined;
  const q = text.indexOf('?');
  if (q === -1) return undefined;
  const query = text.slice(q + 1).split('#')[0]!;
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    if ((eq === -1 ? pair : pair.slice(0, eq)) !== 'label') continue;
    try {
      return decodeURIComponent(eq === -1 ? '' : pair.slice(eq + 1)).trim();
    } catch {
      return null;
    }
  }
  return undefined;
}

/** Checks one entry as the user wrote it (an address or a `bitcoin:` URI). */
export function checkEntry(entry: string, network: Network): AddressCheck {
  const fromUri = bip21Address(entry);
  if (fromUri === '') return { ok: false, message: 'This bitcoin: URI has no address.' };
  return checkAddress(fromUri ?? entry, network);
}

/** Cuts a label to {@link MAX_LABEL_LENGTH} code points (never inside a surrogate pair). */
export function truncateLabel(label: string, max = MAX_LABEL_LENGTH): { label: string; truncated: boolean } {
  if (label.length <= max) return { label, truncated: false };
  const cps = Array.from(label);
  if (cps.length <= max) return { label, truncated: false };
  return { label: cps.slice(0, max).join(''), truncated: true };
}

// ---------------------------------------------------------------------------------------------
// A list
// ---------------------------------------------------------------------------------------------

class Collector {
  readonly addresses: string[] = [];
  readonly labels = new Map<string, string>();
  readonly errors: AddressListError[] = [];
  readonly warnings: AddressListWarning[] = [];
  private readonly seen = new Set<string>();
  duplicates = 0;
  stopped = false;

  constructor(private readonly network: Network) {}

  error(e: AddressListError): void {
    if (this.stopped) return;
    if (this.errors.length < MAX_LISTED_ERRORS) {
      this.errors.push(e);
      return;
    }
    this.errors.push({ line: e.line, input: '', message: `More than ${MAX_LISTED_ERRORS} invalid entries: the list stops at line ${e.line}.` });
    this.stopped = true;
  }

  entry(line: number, input: string, label?: string): void {
    const r = checkEntry(input, this.network);
    if (!r.ok) {
      this.error(r.hint === undefined ? { line, input, message: r.message } : { line, input, message: r.message, hint: r.hint });
      return;
    }
    if (this.seen.has(r.address)) {
      this.duplicates++;
      return;
    }
    if (this.addresses.length >= MAX_ADDRESSES) {
      this.error({ line, input, message: `Too many addresses: at most ${MAX_ADDRESSES.toLocaleString('en-US')} can be added at once.` });
      this.stopped = true;
      return;
    }
    this.seen.add(r.address);
    this.addresses.push(r.address);
    if (label !== undefined && label !== '') {
      const t = truncateLabel(label);
      if (t.truncated) this.warnings.push({ line, message: `The label was cut to ${MAX_LABEL_LENGTH} characters.` });
      this.labels.set(r.address, t.label);
    }
  }

  result(format: AddressListResult['format']): AddressListResult {
    return { format, addresses: this.addresses, labels: this.labels, errors: this.errors, warnings: this.warnings, duplicates: this.duplicates };
  }
}

/** Lines of the text (LF, CRLF or lone CR), without a leading byte order mark. */
function splitLines(text: string): string[] {
  return (text.startsWith(CSV_BOM) ? text.slice(1) : text).split(/\r\n|\r|\n/);
}

/**
 * The line without its comment: a line starting with `#`, or a `#` standing alone as a word and what
 * follows it ("addr  # note"). A `#` inside a word stays: "invoice #1043" is a label, "bitcoin:…#x" a URI.
 */
function withoutComment(line: string): string {
  if (line.trimStart().startsWith('#')) return '';
  const m = /(^|\s)#(\s|$)/.exec(line);
  return m ? line.slice(0, m.index) : line;
}

/** Base58 or Bech32 text of an address's length, or a URI: what a mistyped address still looks like. */
function looksLikeAddress(word: string): boolean {
  return /^bitcoin:/i.test(word) || /^[a-z]{2,4}1[02-9ac-hj-np-z]{6,}$/i.test(word) || /^[1-9A-HJ-NP-Za-km-z]{25,36}$/.test(word);
}

/** An "address label" line: the first word an address (or URI), the rest words that are not addresses. */
function addressAndLabel(content: string): { address: string; label: string } | null {
  if (/[,;]/.test(content)) return null;
  // The first word decides before the line is split (a line of a million words is no "address label" line).
  const first = /^\s*(\S+)/.exec(content)?.[1];
  if (first === undefined || !looksLikeAddress(first)) return null;
  const words = content.trim().split(/\s+/);
  if (words.length < 2) return null;
  if (words.slice(1).some(looksLikeAddress)) return null;
  return { address: words[0]!, label: content.trim().slice(words[0]!.length).trim() };
}

function isCommentOrBlank(line: string): boolean {
  const t = line.trim();
  return t === '' || t.startsWith('#');
}

/** Longest line read as a CSV header: 64 column names of 64 characters. */
const MAX_HEADER_CHARS = 4096;

/** Index of the `address` column when this line is a CSV header with one, else -1. */
function headerColumns(line: string): { delimiter: ReturnType<typeof sniffDelimiter>; address: number; label: number } | null {
  // A header names a few columns; a line this long is data (and is not split into cells twice).
  if (line.length > MAX_HEADER_CHARS) return null;
  const delimiter = sniffDelimiter(line);
  const header = parseCsv(line, { delimiter }).rows[0]?.cells.map((c) => c.trim().toLowerCase()) ?? [];
  const address = header.indexOf('address');
  return address === -1 ? null : { delimiter, address, label: header.indexOf('label') };
}

/**
 * Parses the addresses a user adds (see the module comment for the accepted forms). Apply the
 * result only when `errors` is empty; otherwise show every error and add nothing.
 */
export function parseAddressList(text: string, network: Network): AddressListResult {
  const out = new Collector(network);
  if (text.length > MAX_ADDRESS_LIST_CHARS) {
    out.error({
      line: 0,
      input: '',
      message: `${sizeProblem('addressList', text.length)} Split it into smaller files.`,
    });
    return out.result('list');
  }
  const lines = splitLines(text);
  const first = lines.findIndex((l) => !isCommentOrBlank(l));
  const header = first === -1 ? null : headerColumns(lines[first]!);
  if (header) {
    parseCsvList(lines, first, header, out);
    return out.result('csv');
  }
  for (let i = 0; i < lines.length && !out.stopped; i++) {
    const content = withoutComment(lines[i]!);
    const labelled = addressAndLabel(content);
    if (labelled) {
      out.entry(i + 1, labelled.address, labelled.label);
      continue;
    }
    // Token by token (not split up front): a line of a million words stops at the error limit.
    const tokens = /[^\s,;]+/g;
    for (let m = tokens.exec(content); m !== null; m = tokens.exec(content)) {
      const token = m[0];
      const label = bip21Label(token);
      if (label === null) out.warnings.push({ line: i + 1, message: 'The URI’s label is not valid percent-encoding; the address is added without it.' });
      out.entry(i + 1, token, label ?? undefined);
      if (out.stopped) break;
    }
  }
  return out.result('list');
}

function parseCsvList(
  lines: string[],
  headerIndex: number,
  header: NonNullable<ReturnType<typeof headerColumns>>,
  out: Collector,
): void {
  // Comments and blank lines may come before the header; the CSV itself has no comments.
  const body = lines.slice(headerIndex + 1).join('\n');
  const parsed = parseCsv(body, { delimiter: header.delimiter, firstLine: headerIndex + 2 });
  for (const e of parsed.errors) out.error({ line: e.line, input: '', message: e.message });
  for (const row of parsed.rows) {
    if (out.stopped) break;
    const line = row.line;
    if (row.cells.every((c) => c.trim() === '')) continue;
    const address = (row.cells[header.address] ?? '').trim();
    if (address === '') {
      out.error({ line, input: row.cells.join(header.delimiter), message: 'This row has no address in the address column.' });
      continue;
    }
    const label = header.label === -1 ? undefined : unguardFormula(row.cells[header.label] ?? '').trim();
    out.entry(line, address, label);
  }
  out.errors.sort((a, b) => a.line - b.line);
}
