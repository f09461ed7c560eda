/**
 * CSV (RFC 4180) for files that people open in spreadsheets: a writer for exports (the balances
 * table) and a small reader for imports (the watched-address list).
 *
 * Writer: fields separated by `,`, every record ended by CRLF, a field quoted when it holds `"`,
 * `,`, CR or LF (inner quotes doubled). Because the file is meant for Excel, LibreOffice or Google
 * Sheets, text that a spreadsheet would run as a formula (a cell starting with `=`, `+`, `-`, `@`,
 * a tab or a carriage return — OWASP's list — or their full-width forms) is written with a leading
 * `'`, so a label such as `=HYPERLINK(…)` shows as text instead of running. Plain decimal numbers
 * (`-0.5`, `+3`) cannot run anything and are left alone so that they stay numbers.
 *
 * Reader: the inverse, tolerant of LF-only or lone-CR line ends, a leading byte order mark, and
 * `"` inside an unquoted field (kept literally); it reports an unterminated quoted field and text
 * after a closing quote with the line they are on.
 */

export type CsvCell = string | number | bigint | boolean | null | undefined;

export interface CsvWriteOptions {
  /** Prefix formula-like text with `'` (default true). Turn off only for files no spreadsheet opens. */
  guardFormulas?: boolean;
  /** Start the text with U+FEFF so that Excel reads the file as UTF-8 (default false). */
  bom?: boolean;
}

/** The byte order mark Excel needs to read a CSV as UTF-8 rather than the ANSI code page. */
export const CSV_BOM = '\uFEFF';

const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);
const PLAIN_NUMBER = /^[+-]?\d+(?:\.\d+)?$/;

/** True when a spreadsheet could take this text for a formula (leading spaces are skipped first). */
export function looksLikeFormula(text: string): boolean {
  if (PLAIN_NUMBER.test(text)) return false;
  let i = 0;
  while (i < text.length && text[i] === ' ') i++;
  const c = text[i];
  return c !== undefined && FORMULA_TRIGGERS.has(c);
}

/** `'` + text when the text looks like a formula, else the text unchanged. */
export function guardFormula(text: string): string {
  return looksLikeFormula(text) ? `'${text}` : text;
}

/** Undoes {@link guardFormula}: drops a leading `'` that is followed by formula-like text. */
export function unguardFormula(text: string): string {
  return text.startsWith("'") && looksLikeFormula(text.slice(1)) ? text.slice(1) : text;
}

function cellText(cell: CsvCell, guard: boolean): string {
  switch (typeof cell) {
    case 'string':
      return guard ? guardFormula(cell) : cell;
    case 'number':
      if (!Number.isFinite(cell)) throw new RangeError(`CSV cell is not a finite number: ${cell}`);
      return String(cell);
    case 'bigint':
      return cell.toString();
    case 'boolean':
      return cell ? 'true' : 'false';
    default:
      return '';
  }
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One field as written in the file (guarded, then quoted if needed). */
export function csvField(cell: CsvCell, opts: CsvWriteOptions = {}): string {
  const text = cellText(cell, opts.guardFormulas ?? true);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Rows to CSV text: RFC 4180, CRLF after every record (the last one too). Numbers, bigints and
 * booleans are written as they are; `null`/`undefined` as an empty field. Throws a RangeError on
 * NaN or ±Infinity rather than writing them.
 */
export function toCsv(rows: readonly (readonly CsvCell[])[], opts: CsvWriteOptions = {}): string {
  const parts: string[] = opts.bom ? [CSV_BOM] : [];
  for (const row of rows) {
    parts.push(row.map((c) => csvField(c, opts)).join(','), '\r\n');
  }
  return parts.join('');
}

// ---------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------

export type CsvDelimiter = ',' | ';' | '\t';

export interface CsvRow {
  /** 1-based line on which the record starts (a quoted field may span several lines). */
  line: number;
  cells: string[];
}

export interface CsvParseResult {
  rows: CsvRow[];
  errors: { line: number; message: string }[];
}

/**
 * The delimiter a header line uses: the most frequent of `,` `;` and tab outside quotes (comma when
 * none or tied). Spreadsheets in many European locales save with `;`.
 */
export function sniffDelimiter(headerLine: string): CsvDelimiter {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const c of headerLine) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === ',' || c === ';' || c === '\t')) counts[c]++;
  }
  let best: CsvDelimiter = ',';
  for (const d of [';', '\t'] as const) if (counts[d] > counts[best]) best = d;
  return best;
}

/**
 * Parses CSV text into records. A blank line gives a record with one empty cell (as RFC 4180 reads
 * it); callers skip those. A record whose quoted field never closes is reported and dropped.
 * `firstLine` numbers the text's first line (default 1) when it is part of a larger input.
 */
export function parseCsv(text: string, opts: { delimiter?: CsvDelimiter; firstLine?: number } = {}): CsvParseResult {
  const delim = opts.delimiter ?? ',';
  const rows: CsvRow[] = [];
  const errors: CsvParseResult['errors'] = [];
  let i = text.startsWith(CSV_BOM) ? 1 : 0;
  const n = text.length;
  let line = opts.firstLine ?? 1;
  let rowLine = line;
  let cells: string[] = [];
  let field = '';
  let fieldStarted = false; // something (possibly an empty quoted field) was read for this record

  const endField = (): void => {
    cells.push(field);
    field = '';
  };
  const endRow = (): void => {
    endField();
    rows.push({ line: rowLine, cells });
    cells = [];
    fieldStarted = false;
  };
  /** Consumes a line break at i if there is one; returns whether it did. */
  const lineBreak = (): boolean => {
    const c = text[i];
    if (c === '\n') {
      i++;
    } else if (c === '\r') {
      i += text[i + 1] === '\n' ? 2 : 1;
    } else {
      return false;
    }
    line++;
    return true;
  };

  while (i < n) {
    if (!fieldStarted) {
      rowLine = line;
      fieldStarted = true;
    }
    const c = text[i]!;
    if (c === '"' && field === '') {
      // quoted field
      const openLine = line;
      i++;
      let closed = false;
      while (i < n) {
        // the run up to the next quote or line break in one slice (not a character at a time: a
        // field of megabytes would build a string of millions of pieces)
        let j = i;
        while (j < n && text[j] !== '"' && text[j] !== '\r' && text[j] !== '\n') j++;
        if (j > i) {
          field += text.slice(i, j);
          i = j;
          continue;
        }
        const q = text[i]!;
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          closed = true;
          break;
        }
        if (q === '\r' || q === '\n') {
          const start = i;
          lineBreak();
          field += text.slice(start, i);
          continue;
        }
        field += q;
        i++;
      }
      if (!closed) {
        errors.push({ line: openLine, message: `A quoted field opened on line ${openLine} is never closed.` });
        return { rows, errors };
      }
      // after the closing quote: delimiter, line break or end; anything else is kept but reported
      if (i < n && text[i] !== delim && text[i] !== '\r' && text[i] !== '\n') {
        errors.push({ line, message: 'Unexpected text after a closing quote (a " inside a quoted field is written "").' });
        while (i < n && text[i] !== delim && text[i] !== '\r' && text[i] !== '\n') field += text[i++];
      }
      continue;
    }
    if (c === delim) {
      endField();
      i++;
      continue;
    }
    if (lineBreak()) {
      endRow();
      continue;
    }
    // an unquoted run up to the next delimiter or line break, in one slice
    let j = i + 1;
    while (j < n && text[j] !== delim && text[j] !== '\r' && text[j] !== '\n') j++;
    field += text.slice(i, j);
    i = j;
  }
  if (fieldStarted) endRow();
  return { rows, errors };
}
