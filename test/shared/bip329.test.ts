import { describe, expect, it } from 'vitest';
import { coreGroup } from '../fixtures';
import { decodeBase58Check, encodeBase58Check } from '../../shared/bitcoin/address';
import { MAINNET, REGTEST, SIGNET, TESTNET } from '../../shared/bitcoin/networks';
import { isCurveX } from '../../shared/bitcoin/secp';
import {
  LABEL_TYPES,
  MAX_BIP329_CHARS,
  MAX_BIP329_ERRORS,
  MAX_BIP329_LINES,
  MAX_LABEL_LENGTH,
  MERGE_RULES,
  labelKey,
  mergeLabels,
  parseBip329,
  serializeBip329,
  serializeRecord,
  type LabelRecord,
  type MergeResult,
  type MergeRule,
} from '../../shared/bip329';

// The test vector of BIP 329, as the BIP writes it.
const BIP_EXAMPLE = `{ "type": "tx", "ref": "f91d0a8a78462bc59398f2c5d7a84fcff491c26ba54c4833478b202796c8aafd", "label": "Transaction", "origin": "wpkh([d34db33f/84'/0'/0'])" }
{ "type": "addr", "ref": "bc1q34aq5drpuwy3wgl9lhup9892qp6svr8ldzyy7c", "label": "Address" }
{ "type": "pubkey", "ref": "0283409659355b6d1cc3c32decd5d561abaac86c37a353b52895a5e6c196d6f448", "label": "Public Key" }
{ "type": "input", "ref": "f91d0a8a78462bc59398f2c5d7a84fcff491c26ba54c4833478b202796c8aafd:0", "label": "Input" }
{ "type": "output", "ref": "f91d0a8a78462bc59398f2c5d7a84fcff491c26ba54c4833478b202796c8aafd:1", "label": "Output", "spendable": false }
{ "type": "xpub", "ref": "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8", "label": "Extended Public Key" }
{ "type": "tx", "ref": "f546156d9044844e02b181026a1a407abfca62e7ea1159f87bbeaa77b4286c74", "label": "Account #1 Transaction", "origin": "wpkh([d34db33f/84'/0'/1'])" }
`;

const TX1 = 'f91d0a8a78462bc59398f2c5d7a84fcff491c26ba54c4833478b202796c8aafd';
const TX2 = 'f546156d9044844e02b181026a1a407abfca62e7ea1159f87bbeaa77b4286c74';
const XPUB = 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8';
// BIP 32 test vector 1, master private key
const XPRV = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
const G_X = '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const G_Y = '483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';

const BIP_RECORDS: LabelRecord[] = [
  { type: 'tx', ref: TX1, label: 'Transaction', origin: "wpkh([d34db33f/84'/0'/0'])" },
  { type: 'addr', ref: 'bc1q34aq5drpuwy3wgl9lhup9892qp6svr8ldzyy7c', label: 'Address' },
  { type: 'pubkey', ref: '0283409659355b6d1cc3c32decd5d561abaac86c37a353b52895a5e6c196d6f448', label: 'Public Key' },
  { type: 'input', ref: `${TX1}:0`, label: 'Input' },
  { type: 'output', ref: `${TX1}:1`, label: 'Output', spendable: false },
  { type: 'xpub', ref: XPUB, label: 'Extended Public Key' },
  { type: 'tx', ref: TX2, label: 'Account #1 Transaction', origin: "wpkh([d34db33f/84'/0'/1'])" },
];

/** The xpub with another version (SLIP 132 / testnet) or other bytes changed. */
function reversion(xpub: string, version: number, patch?: (b: Uint8Array) => void): string {
  const data = decodeBase58Check(xpub, 78)!.slice();
  new DataView(data.buffer).setUint32(0, version);
  patch?.(data);
  return encodeBase58Check(data);
}

/** Regtest labels as Spyglass would export them, from the recorded node. */
function regtestRecords(): LabelRecord[] {
  const rec = coreGroup('listreceivedbyaddress').find((r) => r.name === 'minconf 0')!;
  const rows = (rec.response.body as { result: { address: string; label: string; txids: string[] }[] }).result;
  const out: LabelRecord[] = [];
  for (const [i, row] of rows.entries()) {
    if (row.label) out.push({ type: 'addr', ref: row.address, label: row.label });
    out.push({ type: 'tx', ref: row.txids[0]!, label: `payment ${i} — ünïcode 💰` });
    out.push({ type: 'output', ref: `${row.txids[0]!}:${i}`, label: `coin ${i}`, spendable: i % 2 === 0 });
  }
  return out;
}

describe('parseBip329: the BIP’s test vector', () => {
  it('reads every line of the example', () => {
    expect(parseBip329(BIP_EXAMPLE, { network: MAINNET })).toEqual({ records: BIP_RECORDS, errors: [], warnings: [] });
  });

  it('checks the example’s address against the chain: on regtest the addr line is an error', () => {
    const r = parseBip329(BIP_EXAMPLE, { network: REGTEST });
    expect(r.errors).toEqual([
      {
        line: 2,
        message:
          'Invalid address: Invalid or unsupported Segwit (Bech32) or Base58 encoding. This is a mainnet address, but the node runs regtest.',
      },
      { line: 6, message: 'This is an extended public key for mainnet, but the node runs regtest.' },
    ]);
    expect(r.records).toHaveLength(5);
  });
});

describe('serializeBip329', () => {
  it('writes one compact object per line, keys in the BIP’s order, \\n after each', () => {
    const text = serializeBip329([{ label: 'L', spendable: true, ref: `${TX1}:1`, type: 'output', origin: 'wpkh([d34db33f])' } as LabelRecord]);
    expect(text).toBe(`{"type":"output","ref":"${TX1}:1","label":"L","origin":"wpkh([d34db33f])","spendable":true}\n`);
    expect(serializeBip329([])).toBe('');
    expect(serializeRecord({ type: 'addr', ref: 'x' })).toBe('{"type":"addr","ref":"x"}');
    expect(serializeRecord({ type: 'addr', ref: 'x', label: '' })).toBe('{"type":"addr","ref":"x","label":""}');
  });

  it('never writes spendable on a non-output record, even if one slips through', () => {
    const bad = { type: 'addr', ref: 'x', label: 'y', spendable: false } as unknown as LabelRecord;
    expect(serializeRecord(bad)).toBe('{"type":"addr","ref":"x","label":"y"}');
  });

  it('sorts by type in the BIP’s order, then ref, outpoint indexes as numbers; stable for ties', () => {
    const recs: LabelRecord[] = [
      { type: 'xpub', ref: XPUB },
      { type: 'output', ref: `${TX1}:10` },
      { type: 'output', ref: `${TX1}:2` },
      { type: 'output', ref: `${TX2}:0` },
      { type: 'addr', ref: 'bcrt1b' },
      { type: 'addr', ref: 'bcrt1a', label: 'first' },
      { type: 'tx', ref: TX1 },
      { type: 'input', ref: `${TX1}:0` },
      { type: 'pubkey', ref: `02${G_X}` },
      { type: 'addr', ref: 'bcrt1a', label: 'second' },
    ];
    const lines = serializeBip329(recs)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; ref: string; label?: string });
    expect(lines.map((l) => `${l.type} ${l.ref.slice(-3)}${l.label ? ` ${l.label}` : ''}`)).toEqual([
      'tx afd',
      'addr t1a first',
      'addr t1a second',
      'addr t1b',
      `pubkey ${G_X.slice(-3)}`,
      'input d:0',
      'output 4:0', // TX2 (f546…) sorts before TX1 (f91d…)
      'output d:2',
      'output :10',
      `xpub ${XPUB.slice(-3)}`,
    ]);
    expect(serializeBip329([...recs].reverse()).split('\n').filter((l) => !l.includes('bcrt1a'))).toEqual(
      serializeBip329(recs).split('\n').filter((l) => !l.includes('bcrt1a')),
    );
  });

  it('keeps Unicode, escapes quotes, control characters and U+2028/U+2029 so that each record is one line', () => {
    const label = 'a "quoted"\nnew line\ttab \u2028 sep \u2029 para — 日本語 💰 \\ back';
    const text = serializeBip329([{ type: 'tx', ref: TX1, label }]);
    expect(text.split('\n')).toHaveLength(2);
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(text).toContain('\\u2028');
    expect(text).toContain('日本語 💰');
    expect(parseBip329(text, { network: REGTEST }).records[0]!.label).toBe(label);
    // UTF-8 safe: the text encodes and decodes unchanged
    expect(new TextDecoder('utf-8', { fatal: true }).decode(new TextEncoder().encode(text))).toBe(text);
  });
});

describe('round trip serialize → parse', () => {
  it('gives the same records (in export order) for the BIP example and for regtest labels', () => {
    const sortedBip = parseBip329(serializeBip329(BIP_RECORDS), { network: MAINNET });
    expect(sortedBip.errors).toEqual([]);
    expect(new Set(sortedBip.records.map((r) => JSON.stringify(r)))).toEqual(new Set(BIP_RECORDS.map((r) => JSON.stringify(r))));

    const reg = regtestRecords();
    expect(reg.length).toBeGreaterThan(15);
    const text = serializeBip329(reg);
    const back = parseBip329(text, { network: REGTEST });
    expect(back).toMatchObject({ errors: [], warnings: [] });
    expect(back.records).toHaveLength(reg.length);
    expect(serializeBip329(back.records)).toBe(text);
    const want = new Map(reg.map((r) => [labelKey(r), r]));
    for (const r of back.records) expect(r).toEqual(want.get(labelKey(r)));
  });
});

describe('parseBip329: tolerated input', () => {
  it('blank lines, whitespace-only lines, CRLF, a BOM and a missing final newline', () => {
    const lines = BIP_EXAMPLE.trimEnd().split('\n');
    const text = `\uFEFF\r\n${lines[0]}\r\n   \r\n\t\r\n${lines.slice(1).join('\r\n')}`;
    const r = parseBip329(text, { network: MAINNET });
    expect(r).toEqual({ records: BIP_RECORDS, errors: [], warnings: [] });
  });

  it('ignores the BIP’s additional fields and any other keys', () => {
    const line = JSON.stringify({
      type: 'tx',
      ref: TX1,
      label: 'rent',
      height: 800000,
      time: '2025-01-23T11:40:35Z',
      fee: 1410,
      value: -100000,
      rate: { USD: 105620.0 },
      heights: [1, 2],
      keypath: '/1/123',
      fmv: { USD: 1233.45 },
      whatever: null,
    }).replace(/^\{/, '{"__proto__":{"label":"polluted"},');
    expect(parseBip329(line, { network: REGTEST })).toEqual({ records: [{ type: 'tx', ref: TX1, label: 'rent' }], errors: [], warnings: [] });
  });

  it('label, origin and spendable are optional; null counts as absent', () => {
    const text = [
      `{"type":"output","ref":"${TX1}:3","spendable":true}`,
      `{"type":"addr","ref":"bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef"}`,
      `{"type":"tx","ref":"${TX2}","label":null,"origin":null}`,
      `{"type":"output","ref":"${TX1}:4","label":"x","spendable":null}`,
    ].join('\n');
    expect(parseBip329(text, { network: REGTEST }).records).toEqual([
      { type: 'output', ref: `${TX1}:3`, spendable: true },
      { type: 'addr', ref: 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef' },
      { type: 'tx', ref: TX2 },
      { type: 'output', ref: `${TX1}:4`, label: 'x' },
    ]);
  });

  it('normalizes refs: txids and pubkeys to lowercase, addresses to Core’s form, outpoint indexes to decimal', () => {
    const text = [
      `{"type":"tx","ref":"${TX1.toUpperCase()}"}`,
      `{"type":"output","ref":"${TX1.toUpperCase()}:7"}`,
      `{"type":"addr","ref":"BCRT1Q73AQJMLW6TWU5DM80G2EXG0URVP382UZVKPGEF"}`,
      `{"type":"pubkey","ref":"02${G_X.toUpperCase()}"}`,
    ].join('\n');
    expect(parseBip329(text, { network: REGTEST }).records.map((r) => r.ref)).toEqual([
      TX1,
      `${TX1}:7`,
      'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef',
      `02${G_X}`,
    ]);
  });

  it('accepts every public key form (x-only, compressed, uncompressed, hybrid) that is on the curve', () => {
    const yOdd = (BigInt(`0x${G_Y}`) & 1n) === 1n;
    const ok = [G_X, `02${G_X}`, `03${G_X}`, `04${G_X}${G_Y}`, `${yOdd ? '07' : '06'}${G_X}${G_Y}`];
    const text = ok.map((k) => JSON.stringify({ type: 'pubkey', ref: k })).join('\n');
    expect(parseBip329(text, { network: REGTEST })).toMatchObject({ errors: [], warnings: [] });
  });

  it('accepts xpubs of the chain: SLIP 132 forms on mainnet, tpub/vpub on regtest and testnet', () => {
    const zpub = reversion(XPUB, 0x04b24746);
    const tpub = reversion(XPUB, 0x043587cf);
    const vpub = reversion(XPUB, 0x045f1cf6);
    expect(zpub.startsWith('zpub') && tpub.startsWith('tpub') && vpub.startsWith('vpub')).toBe(true);
    const line = (x: string): string => JSON.stringify({ type: 'xpub', ref: x, label: 'k' });
    expect(parseBip329([XPUB, zpub].map(line).join('\n'), { network: MAINNET }).errors).toEqual([]);
    expect(parseBip329([tpub, vpub].map(line).join('\n'), { network: REGTEST }).errors).toEqual([]);
    expect(parseBip329(line(tpub), { network: TESTNET }).errors).toEqual([]);
    expect(parseBip329(line(zpub), { network: SIGNET }).errors).toEqual([
      { line: 1, message: 'This is an extended public key for mainnet, but the node runs signet.' },
    ]);
    expect(parseBip329(line(tpub), { network: MAINNET }).errors).toEqual([
      { line: 1, message: 'This is an extended public key for testnet, signet or regtest, but the node runs mainnet.' },
    ]);
  });
});

describe('parseBip329: every error, with its line', () => {
  const notOnCurveX = (() => {
    for (let x = 1n; ; x++) if (!isCurveX(x)) return x.toString(16).padStart(64, '0');
  })();
  const lines: [string, string | null][] = [
    /* 1 */ [`{"type":"tx","ref":"${TX1}","label":"ok"}`, null],
    /* 2 */ ['not json', 'Not valid JSON: unexpected character at column 1.'],
    /* 3 */ [`{"type":"tx","ref":"${TX1}","label":"x"`, 'Not valid JSON: expected , or } at column 98.'],
    /* 4 */ ['[1,2]', 'Each line must be a JSON object, not an array.'],
    /* 5 */ ['"tx"', 'Each line must be a JSON object, not a string.'],
    /* 6 */ [`{"ref":"${TX1}","label":"x"}`, 'The record has no "type".'],
    /* 7 */ [`{"type":5,"ref":"${TX1}"}`, '"type" must be a string, not a number.'],
    /* 8 */ ['{"type":"tx","label":"x"}', 'The tx record has no "ref".'],
    /* 9 */ ['{"type":"tx","ref":123}', '"ref" must be a string, not a number.'],
    /* 10 */ ['{"type":"tx","ref":"abc"}', 'A tx ref must be a transaction id: 64 hexadecimal characters.'],
    /* 11 */ [`{"type":"tx","ref":"${TX1}:0"}`, 'A tx ref must be a transaction id: 64 hexadecimal characters.'],
    /* 12 */ [
      '{"type":"addr","ref":"bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"}',
      'Invalid address: Invalid or unsupported Segwit (Bech32) or Base58 encoding. This is a mainnet address, but the node runs regtest.',
    ],
    /* 13 */ ['{"type":"addr","ref":"bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgeq"}', 'Invalid address: Invalid Bech32 checksum'],
    /* 14 */ [
      `{"type":"input","ref":"${TX1}"}`,
      'An input ref must be a transaction id (64 hexadecimal characters), a colon and an input index, e.g. "…8aafd:1".',
    ],
    /* 15 */ [
      `{"type":"output","ref":"${TX1}:01"}`,
      'An output ref must be a transaction id (64 hexadecimal characters), a colon and an output index, e.g. "…8aafd:1".',
    ],
    /* 16 */ [`{"type":"output","ref":"${TX1}:4294967296"}`, 'The output index 4294967296 is out of range (at most 4294967295).'],
    /* 17 */ [`{"type":"output","ref":"${TX1}:-1"}`, 'An output ref must be a transaction id (64 hexadecimal characters), a colon and an output index, e.g. "…8aafd:1".'],
    /* 18 */ ['{"type":"pubkey","ref":"02abcd"}', 'A pubkey ref must be a 32-, 33- or 65-byte public key in hexadecimal.'],
    /* 19 */ [`{"type":"pubkey","ref":"05${G_X}"}`, 'A pubkey ref must be a 32-, 33- or 65-byte public key in hexadecimal.'],
    /* 20 */ [`{"type":"pubkey","ref":"02${notOnCurveX}"}`, 'This public key is not a point on secp256k1.'],
    /* 21 */ [`{"type":"pubkey","ref":"04${G_X}${G_X}"}`, 'This public key is not a point on secp256k1.'],
    /* 22 */ [`{"type":"xpub","ref":"${XPRV}"}`, 'This is an extended PRIVATE key. Spyglass never imports private keys: remove this line and keep the file safe.'],
    /* 23 */ [`{"type":"xpub","ref":"${XPUB}"}`, 'This is an extended public key for mainnet, but the node runs regtest.'],
    /* 24 */ [`{"type":"xpub","ref":"${XPUB.slice(0, -1)}9"}`, 'An xpub ref must be a BIP 32 extended public key (Base58Check, 78 bytes).'],
    /* 25 */ [`{"type":"xpub","ref":"${reversion(XPUB, 0x01020304)}"}`, 'Unknown extended key version 0x01020304.'],
    /* 26 */ [
      `{"type":"xpub","ref":"${reversion(XPUB, 0x043587cf, (b) => (b[5] = 1))}"}`,
      'Invalid extended public key: depth 0 with a parent fingerprint or child number.',
    ],
    /* 27 */ [
      `{"type":"xpub","ref":"${reversion(XPUB, 0x043587cf, (b) => (b[45] = 4))}"}`,
      'Invalid extended public key: its key is not a point on secp256k1.',
    ],
    /* 28 */ [`{"type":"tx","ref":"${TX2}","label":42}`, '"label" must be a string, not a number.'],
    /* 29 */ [`{"type":"tx","ref":"${TX2}","label":["a"]}`, '"label" must be a string, not an array.'],
    /* 30 */ [`{"type":"tx","ref":"${TX2}","origin":{}}`, '"origin" must be a string, not an object.'],
    /* 31 */ [`{"type":"tx","ref":"${TX2}","spendable":false}`, 'Only output records can have "spendable"; this is a tx record.'],
    /* 32 */ [`{"type":"output","ref":"${TX1}:1","spendable":"false"}`, '"spendable" must be true or false, not a string (write false without quotes).'],
    /* 33 */ [`{"type":"output","ref":"${TX1}:1","spendable":0}`, '"spendable" must be true or false, not a number.'],
    /* 34 */ [`{"type":"tx","ref":"${TX2}","label":"a","label":"b"}`, '"label" appears twice in this record.'],
    /* 35 */ [`{"type":"addr","type":"tx","ref":"${TX2}"}`, '"type" appears twice in this record.'],
    /* 36 */ ['', null],
    /* 37 */ [`{"type":"output","ref":"${TX1}:1","label":"ok","spendable":true}`, null],
  ];

  it('reports each invalid line once, with its number and message, and keeps the valid lines', () => {
    const r = parseBip329(lines.map(([l]) => l).join('\n'), { network: REGTEST });
    const want = lines.flatMap(([, msg], i) => (msg === null ? [] : [{ line: i + 1, message: msg }]));
    expect(r.errors).toEqual(want);
    expect(r.records).toEqual([
      { type: 'tx', ref: TX1, label: 'ok' },
      { type: 'output', ref: `${TX1}:1`, label: 'ok', spendable: true },
    ]);
    expect(r.warnings).toEqual([]);
  });

  it('refuses a file that is too large or has too many lines, saying so once', () => {
    const big = parseBip329('x'.repeat(MAX_BIP329_CHARS + 1), { network: REGTEST });
    expect(big).toEqual({
      records: [],
      warnings: [],
      errors: [{ line: 0, message: 'This file is more than 20 MB; label files are limited to 20 MB. Split it into smaller files.' }],
    });
    const many = parseBip329('\n'.repeat(MAX_BIP329_LINES), { network: REGTEST });
    expect(many.errors).toEqual([
      { line: 0, message: 'This file has too many lines to import (1,000,001; the limit is 1,000,000). Split it into smaller files.' },
    ]);
    expect(parseBip329('\n'.repeat(MAX_BIP329_LINES - 1), { network: REGTEST })).toEqual({ records: [], errors: [], warnings: [] });
  });

  it(`lists at most ${MAX_BIP329_ERRORS} errors, then says where it stopped`, () => {
    const r = parseBip329(Array.from({ length: MAX_BIP329_ERRORS + 10 }, () => 'oops').join('\n'), { network: REGTEST });
    expect(r.errors).toHaveLength(MAX_BIP329_ERRORS + 1);
    expect(r.errors.at(-1)).toEqual({
      line: MAX_BIP329_ERRORS + 1,
      message: `More than ${MAX_BIP329_ERRORS} invalid lines: stopped reading at line ${MAX_BIP329_ERRORS + 1}.`,
    });
  });
});

describe('parseBip329: warnings (not blocking)', () => {
  it(`cuts labels longer than ${MAX_LABEL_LENGTH} code points and says so`, () => {
    const exact = 'é'.repeat(MAX_LABEL_LENGTH);
    const long = '💰'.repeat(MAX_LABEL_LENGTH + 1);
    const text = [
      JSON.stringify({ type: 'tx', ref: TX1, label: exact }),
      JSON.stringify({ type: 'tx', ref: TX2, label: long }),
    ].join('\n');
    const r = parseBip329(text, { network: REGTEST });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([{ line: 2, message: 'The label is longer than 255 characters and was cut to 255.' }]);
    expect(r.records[0]!.label).toBe(exact);
    expect(r.records[1]!.label).toBe('💰'.repeat(MAX_LABEL_LENGTH));
  });

  it('skips unknown types (e.g. spscan) as the BIP asks', () => {
    const r = parseBip329(`{"type":"spscan","ref":"spscan1q…","label":"sp"}\n{"type":"tx","ref":"${TX1}","label":"a"}`, { network: REGTEST });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([{ line: 1, message: `Record type "spscan" is not one Spyglass reads (${LABEL_TYPES.join(', ')}): skipped.` }]);
    expect(r.records).toEqual([{ type: 'tx', ref: TX1, label: 'a' }]);
  });

  it('folds a ref given twice: the later line wins for the values it gives, at the first line’s place', () => {
    const text = [
      `{"type":"output","ref":"${TX1}:1","label":"first","origin":"wpkh([aa])"}`,
      `{"type":"tx","ref":"${TX1}","label":"tx"}`,
      `{"type":"output","ref":"${TX1.toUpperCase()}:1","spendable":false}`,
      `{"type":"output","ref":"${TX1}:1","label":"third"}`,
      `{"type":"input","ref":"${TX1}:1","label":"an input is another record"}`,
    ].join('\n');
    const r = parseBip329(text, { network: REGTEST });
    expect(r.errors).toEqual([]);
    expect(r.records).toEqual([
      { type: 'output', ref: `${TX1}:1`, label: 'third', origin: 'wpkh([aa])', spendable: false },
      { type: 'tx', ref: TX1, label: 'tx' },
      { type: 'input', ref: `${TX1}:1`, label: 'an input is another record' },
    ]);
    expect(r.warnings).toEqual([
      { line: 3, message: `Repeats the output ${TX1}:1 of line 1: where both lines give a value, this line's is used.` },
      { line: 4, message: `Repeats the output ${TX1}:1 of line 1: where both lines give a value, this line's is used.` },
    ]);
  });
});

describe('mergeLabels', () => {
  const A = 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef';
  const B = 'bcrt1pggux3e2nflwsdcr8kwajclk4wuhu82rsyqlxzuwz0t5jgzrs7kzq6kfkfk';
  const C = 'msPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqE';
  const D = '2N9YZhZvwKiwzEd6DiisrwF3qKUAdxcfTmS';
  const O1 = `${TX1}:0`;
  const O2 = `${TX1}:1`;
  const existing: LabelRecord[] = [
    { type: 'addr', ref: A, label: 'mine' },
    { type: 'addr', ref: B, label: '' }, // an empty record counts as nothing
    { type: 'output', ref: O1, label: 'coin' },
    { type: 'output', ref: O2, spendable: true },
    { type: 'tx', ref: TX1, label: 'rent', origin: 'wpkh([aa/84h/1h/0h])' },
    { type: 'tx', ref: TX2, label: 'same' },
  ];
  const imported: LabelRecord[] = [
    { type: 'addr', ref: A, label: 'theirs' },
    { type: 'addr', ref: B, label: 'filled' },
    { type: 'output', ref: O1, label: 'coin', spendable: false },
    { type: 'output', ref: O2, label: 'frozen coin', spendable: false },
    { type: 'tx', ref: TX1, label: '', origin: 'wpkh([bb/84h/1h/0h])' }, // empty label: never erases
    { type: 'tx', ref: TX2, label: 'same' },
    { type: 'addr', ref: C, label: 'new' },
    { type: 'tx', ref: 'ab'.repeat(32), label: '' }, // nothing to add
    { type: 'addr', ref: D }, // nothing to add
  ];
  const nothing = [imported[7]!, imported[8]!];
  const conflicts = (kept: 'existing' | 'imported'): MergeResult['conflicts'] => [
    { type: 'addr', ref: A, field: 'label', existing: 'mine', imported: 'theirs', kept },
    { type: 'output', ref: O2, field: 'spendable', existing: true, imported: false, kept },
    { type: 'tx', ref: TX1, field: 'origin', existing: 'wpkh([aa/84h/1h/0h])', imported: 'wpkh([bb/84h/1h/0h])', kept },
  ];
  const table: Record<MergeRule, MergeResult> = {
    replace: {
      added: [{ type: 'addr', ref: C, label: 'new' }],
      updated: [
        { before: existing[0]!, after: { type: 'addr', ref: A, label: 'theirs' } },
        { before: existing[1]!, after: { type: 'addr', ref: B, label: 'filled' } },
        { before: existing[2]!, after: { type: 'output', ref: O1, label: 'coin', spendable: false } },
        { before: existing[3]!, after: { type: 'output', ref: O2, label: 'frozen coin', spendable: false } },
        { before: existing[4]!, after: { type: 'tx', ref: TX1, label: 'rent', origin: 'wpkh([bb/84h/1h/0h])' } },
      ],
      unchanged: [imported[5]!, ...nothing],
      conflicts: conflicts('imported'),
    },
    'keep-existing': {
      added: [{ type: 'addr', ref: C, label: 'new' }],
      updated: [{ before: existing[1]!, after: { type: 'addr', ref: B, label: 'filled' } }],
      unchanged: [imported[0]!, imported[2]!, imported[3]!, imported[4]!, imported[5]!, ...nothing],
      conflicts: conflicts('existing'),
    },
    'fill-empty': {
      added: [{ type: 'addr', ref: C, label: 'new' }],
      updated: [
        { before: existing[1]!, after: { type: 'addr', ref: B, label: 'filled' } },
        { before: existing[2]!, after: { type: 'output', ref: O1, label: 'coin', spendable: false } },
        { before: existing[3]!, after: { type: 'output', ref: O2, label: 'frozen coin', spendable: true } },
      ],
      unchanged: [imported[0]!, imported[4]!, imported[5]!, ...nothing],
      conflicts: conflicts('existing'),
    },
  };

  /** What the store would hold after applying the result (for idempotence). */
  function apply(before: readonly LabelRecord[], m: MergeResult): LabelRecord[] {
    const map = new Map(before.map((r) => [labelKey(r), r]));
    for (const u of m.updated) map.set(labelKey(u.after), u.after);
    for (const a of m.added) map.set(labelKey(a), a);
    return [...map.values()];
  }

  for (const rule of ['replace', 'keep-existing', 'fill-empty'] as const) {
    it(`${rule}: added / updated / unchanged / conflicts`, () => {
      const m = mergeLabels(existing, imported, rule);
      expect(m).toEqual(table[rule]);
      // every imported record lands in exactly one of added / updated / unchanged
      expect(m.added.length + m.updated.length + m.unchanged.length).toBe(imported.length);
      // applying it and merging again changes nothing more
      const after = apply(existing, m);
      const again = mergeLabels(after, imported, rule);
      expect(again.added).toEqual([]);
      expect(again.updated).toEqual([]);
      // the inputs are not modified
      expect(existing[0]).toEqual({ type: 'addr', ref: A, label: 'mine' });
    });
  }

  it('merges into nothing: every record with content is added, empty ones are unchanged', () => {
    const m = mergeLabels([], imported, 'keep-existing');
    expect(m.added).toHaveLength(7);
    expect(m.added).toContainEqual({ type: 'tx', ref: TX1, origin: 'wpkh([bb/84h/1h/0h])' }); // the empty label is dropped
    expect(m.unchanged).toEqual(nothing);
    expect(m.conflicts).toEqual([]);
  });

  it('folds repeated refs in either input, the later wins', () => {
    const m = mergeLabels(
      [
        { type: 'addr', ref: A, label: 'old' },
        { type: 'addr', ref: A, label: 'mine' },
      ],
      [
        { type: 'addr', ref: A, label: 'x' },
        { type: 'addr', ref: A, label: 'mine' },
      ],
      'replace',
    );
    expect(m).toEqual({ added: [], updated: [], unchanged: [{ type: 'addr', ref: A, label: 'mine' }], conflicts: [] });
  });

  it('matches by type and ref: the same ref under another type is another item', () => {
    const m = mergeLabels([{ type: 'output', ref: O1, label: 'coin' }], [{ type: 'input', ref: O1, label: 'spent here' }], 'keep-existing');
    expect(m.added).toEqual([{ type: 'input', ref: O1, label: 'spent here' }]);
  });

  it('an import of the file Spyglass exported changes nothing under any rule', () => {
    const mine = regtestRecords();
    const back = parseBip329(serializeBip329(mine), { network: REGTEST }).records;
    for (const rule of ['replace', 'keep-existing', 'fill-empty'] as const) {
      const m = mergeLabels(mine, back, rule);
      expect(m.added.length + m.updated.length + m.conflicts.length, rule).toBe(0);
      expect(m.unchanged).toHaveLength(mine.length);
    }
  });

  it('has UI wording for every rule', () => {
    for (const rule of ['replace', 'keep-existing', 'fill-empty'] as const) {
      expect(MERGE_RULES[rule].title.length).toBeGreaterThan(5);
      expect(MERGE_RULES[rule].description.length).toBeGreaterThan(40);
    }
    expect(MERGE_RULES.replace.description).toMatch(/never erases/);
  });
});
