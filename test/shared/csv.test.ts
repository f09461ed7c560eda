import { describe, expect, it } from 'vitest';
import {
  CSV_BOM,
  csvField,
  guardFormula,
  looksLikeFormula,
  parseCsv,
  sniffDelimiter,
  toCsv,
  unguardFormula,
} from '../../shared/csv';

describe('toCsv (RFC 4180 writer)', () => {
  it('separates with commas and ends every record with CRLF', () => {
    expect(toCsv([['a', 'b'], ['c', 'd']])).toBe('a,b\r\nc,d\r\n');
    expect(toCsv([])).toBe('');
    expect(toCsv([[]])).toBe('\r\n');
    expect(toCsv([['']])).toBe('\r\n');
  });

  it('quotes fields holding a comma, a quote, CR or LF, doubling inner quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('"')).toBe('""""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('line1\r\nline2')).toBe('"line1\r\nline2"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField(' padded ')).toBe(' padded ');
    expect(toCsv([['x', 'a,b', 'q"q']])).toBe('x,"a,b","q""q"\r\n');
  });

  it('writes numbers, bigints, booleans and empties as they are', () => {
    expect(toCsv([[1, 2.5, -3, 0, 12345678901234567890n, true, false, null, undefined]])).toBe(
      '1,2.5,-3,0,12345678901234567890,true,false,,\r\n',
    );
    expect(() => toCsv([[NaN]])).toThrow(RangeError);
    expect(() => toCsv([[Infinity]])).toThrow(RangeError);
  });

  it('keeps Unicode as is (UTF-16 string; written as UTF-8 by the caller), BOM on request', () => {
    const row = ['café', '日本語', '💰 savings', 'Ünïcödé, with comma'];
    expect(toCsv([row])).toBe('café,日本語,💰 savings,"Ünïcödé, with comma"\r\n');
    expect(toCsv([['x']], { bom: true })).toBe(`${CSV_BOM}x\r\n`);
    expect(new TextEncoder().encode(toCsv([['€']], { bom: true }))).toEqual(Uint8Array.of(0xef, 0xbb, 0xbf, 0xe2, 0x82, 0xac, 0x0d, 0x0a));
  });
});

describe('formula-injection guard', () => {
  it("prefixes text starting with = + - @ tab CR (and full-width forms) with '", () => {
    const cases: [string, string][] = [
      ['=HYPERLINK("http://evil","x")', `'=HYPERLINK("http://evil","x")`],
      ['+cmd|\' /C calc\'!A0', `'+cmd|' /C calc'!A0`],
      ['-2+3', "'-2+3"],
      ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
      ['\t=1', "'\t=1"],
      ['\r=1', "'\r=1"],
      ['  =1+1', "'  =1+1"],
      ['\uFF1D1+1', "'\uFF1D1+1"],
      ['＋1', "'＋1"],
      ['－1', "'－1"],
      ['＠x', "'＠x"],
    ];
    for (const [input, out] of cases) expect(guardFormula(input), JSON.stringify(input)).toBe(out);
  });

  it('leaves ordinary text and plain decimal numbers alone', () => {
    for (const s of ['savings', 'a=b', 'e-mail', '1+1', '', ' ', "'quoted", '-1', '+1', '-0.00010000', '12.5', 'bcrt1qxyz']) {
      expect(guardFormula(s), s).toBe(s);
      expect(looksLikeFormula(s), s).toBe(false);
    }
    // not plain numbers: guarded
    for (const s of ['-1e5', '-.5', '-1,5', '- 1', '+-1']) expect(looksLikeFormula(s), s).toBe(true);
  });

  it('applies in the writer (then quotes) and can be turned off', () => {
    expect(toCsv([['=1+1', '-1', '@a,b', '=x"y']])).toBe(`'=1+1,-1,"'@a,b","'=x""y"\r\n`);
    expect(toCsv([['=1+1']], { guardFormulas: false })).toBe('=1+1\r\n');
    // numbers are never guarded
    expect(toCsv([[-1.5, -2n]])).toBe('-1.5,-2\r\n');
  });

  it('unguardFormula undoes the guard and nothing else', () => {
    for (const s of ['=1+1', '+x', '-x', '@x', '\tx', 'plain', "'plain", "'-1", '-1']) {
      expect(unguardFormula(guardFormula(s)), s).toBe(s);
    }
    expect(unguardFormula("'plain")).toBe("'plain");
    expect(unguardFormula("''=1")).toBe("''=1");
  });
});

describe('parseCsv (reader)', () => {
  it('reads what toCsv writes, unicode and awkward fields included', () => {
    const rows = [
      ['address', 'label', 'amount'],
      ['bcrt1qabc', 'a, "quoted" label', '1.00000000'],
      ['x', 'multi\r\nline', ''],
      ['y', '日本語 💰', '-0.5'],
    ];
    const parsed = parseCsv(toCsv(rows));
    expect(parsed.errors).toEqual([]);
    expect(parsed.rows.map((r) => r.cells)).toEqual(rows);
    expect(parsed.rows.map((r) => r.line)).toEqual([1, 2, 3, 5]);
  });

  it('accepts LF, CRLF and lone CR line ends, a BOM, and no final line end', () => {
    const want = [['a', 'b'], ['c', 'd']];
    for (const text of ['a,b\nc,d', 'a,b\r\nc,d\r\n', 'a,b\rc,d\r', `${CSV_BOM}a,b\nc,d\n`]) {
      expect(parseCsv(text).rows.map((r) => r.cells), JSON.stringify(text)).toEqual(want);
    }
    expect(parseCsv('').rows).toEqual([]);
  });

  it('gives blank lines as one empty cell with their line numbers', () => {
    expect(parseCsv('a\n\nb\n')).toEqual({
      rows: [
        { line: 1, cells: ['a'] },
        { line: 2, cells: [''] },
        { line: 3, cells: ['b'] },
      ],
      errors: [],
    });
  });

  it('numbers lines from firstLine when the text is part of a larger input', () => {
    const r = parseCsv('a\n"b\nc"\n"open', { firstLine: 10 });
    expect(r.rows).toEqual([
      { line: 10, cells: ['a'] },
      { line: 11, cells: ['b\nc'] },
    ]);
    expect(r.errors).toEqual([{ line: 13, message: 'A quoted field opened on line 13 is never closed.' }]);
  });

  it('handles empty fields and empty quoted fields', () => {
    expect(parseCsv(',,\n"",x,""\n').rows.map((r) => r.cells)).toEqual([
      ['', '', ''],
      ['', 'x', ''],
    ]);
  });

  it('keeps a quote inside an unquoted field literally', () => {
    expect(parseCsv('12" pipe,x\n').rows[0]!.cells).toEqual(['12" pipe', 'x']);
  });

  it('reports an unterminated quoted field at the line it opens', () => {
    const r = parseCsv('a,b\nc,"never\nclosed\n');
    expect(r.errors).toEqual([{ line: 2, message: 'A quoted field opened on line 2 is never closed.' }]);
    expect(r.rows.map((x) => x.cells)).toEqual([['a', 'b']]);
  });

  it('reports text after a closing quote and keeps it', () => {
    const r = parseCsv('a\n"ab"c,d\n');
    expect(r.errors).toEqual([{ line: 2, message: 'Unexpected text after a closing quote (a " inside a quoted field is written "").' }]);
    expect(r.rows[1]!.cells).toEqual(['abc', 'd']);
  });

  it('reads other delimiters and sniffs them from a header', () => {
    expect(sniffDelimiter('address;label;amount')).toBe(';');
    expect(sniffDelimiter('address\tlabel')).toBe('\t');
    expect(sniffDelimiter('address,label')).toBe(',');
    expect(sniffDelimiter('address')).toBe(',');
    expect(sniffDelimiter('"a;b",c')).toBe(',');
    expect(parseCsv('a;"b;c"\r\n1;2\r\n', { delimiter: ';' }).rows.map((r) => r.cells)).toEqual([
      ['a', 'b;c'],
      ['1', '2'],
    ]);
    expect(parseCsv('a\tb\n', { delimiter: '\t' }).rows[0]!.cells).toEqual(['a', 'b']);
  });
});
