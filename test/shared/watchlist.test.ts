import { describe, expect, it } from 'vitest';
import { coreGroup } from '../fixtures';
import { decodeDestination, encodeDestination } from '../../shared/bitcoin/address';
import { toHex } from '../../shared/bitcoin/hex';
import { MAINNET, REGTEST, SIGNET, TESTNET, TESTNET4, type Network } from '../../shared/bitcoin/networks';
import { toCsv } from '../../shared/csv';
import {
  MAX_ADDRESSES,
  MAX_ADDRESS_LIST_CHARS,
  MAX_LISTED_ERRORS,
  bip21Address,
  checkAddress,
  otherChainHint,
  parseAddressList,
  truncateLabel,
} from '../../shared/watchlist';

interface Info {
  address: string;
  scriptPubKey: string;
  iswitness: boolean;
  witness_version?: number;
  isscript: boolean;
}

/** Every address type the recorded node reported (getaddressinfo), with its scriptPubKey. */
function recordedAddresses(): Info[] {
  const seen = new Map<string, Info>();
  for (const r of coreGroup('getaddressinfo')) {
    const res = (r.response.body as { result: Info | null }).result;
    if (res) seen.set(res.address, res);
  }
  return [...seen.values()];
}

const REG = recordedAddresses();
const byKind = (pred: (i: Info) => boolean): string => REG.find(pred)!.address;
const REGTEST_SAMPLES = {
  p2pkh: byKind((i) => !i.iswitness && !i.isscript && i.address.startsWith('m')),
  p2sh: byKind((i) => !i.iswitness && i.isscript),
  p2wpkh: byKind((i) => i.witness_version === 0 && i.scriptPubKey.length === 44),
  p2wsh: byKind((i) => i.witness_version === 0 && i.scriptPubKey.length === 68),
  p2tr: byKind((i) => i.witness_version === 1),
  anchor: 'bcrt1pfeesnyr2tx',
};

/** The same scripts as addresses of another chain. */
function reencode(addr: string, from: Network, to: Network): string {
  const d = decodeDestination(addr, from);
  if (!d.ok) throw new Error(addr);
  return encodeDestination(d.dest, to);
}
const MAINNET_SAMPLES = Object.fromEntries(Object.entries(REGTEST_SAMPLES).map(([k, a]) => [k, reencode(a, REGTEST, MAINNET)])) as Record<
  keyof typeof REGTEST_SAMPLES,
  string
>;

const coreMessage = (addr: string, net: Network): string => {
  const r = decodeDestination(addr, net);
  if (r.ok) throw new Error(`${addr} is valid`);
  return r.error || 'Invalid address';
};

describe('checkAddress', () => {
  it('accepts every recorded regtest address type and returns Core’s own text for it', () => {
    expect(REG.length).toBeGreaterThanOrEqual(6);
    for (const info of REG) {
      const r = checkAddress(info.address, REGTEST);
      expect(r, info.address).toEqual({ ok: true, address: info.address });
      const d = decodeDestination(info.address, REGTEST);
      expect(d.ok && toHex(d.script)).toBe(info.scriptPubKey);
    }
    expect(Object.values(REGTEST_SAMPLES).every((a) => checkAddress(a, REGTEST).ok)).toBe(true);
  });

  it('accepts every mainnet address type (BIP173/350 vectors too)', () => {
    const mainnet = [
      ...Object.values(MAINNET_SAMPLES),
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      'bc1pfeessrawgf',
      'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs',
    ];
    expect(MAINNET_SAMPLES.p2pkh.startsWith('1')).toBe(true);
    expect(MAINNET_SAMPLES.p2sh.startsWith('3')).toBe(true);
    expect(MAINNET_SAMPLES.p2wsh.startsWith('bc1q')).toBe(true);
    expect(MAINNET_SAMPLES.p2tr.startsWith('bc1p')).toBe(true);
    for (const a of mainnet) expect(checkAddress(a, MAINNET), a).toEqual({ ok: true, address: a });
  });

  it('normalizes Bech32 to lowercase and Base58 to its trimmed text', () => {
    expect(checkAddress('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', MAINNET)).toEqual({
      ok: true,
      address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    });
    expect(checkAddress(REGTEST_SAMPLES.p2tr.toUpperCase(), REGTEST)).toEqual({ ok: true, address: REGTEST_SAMPLES.p2tr });
    expect(checkAddress('BC1SW50QGDZ25J', MAINNET)).toEqual({ ok: true, address: 'bc1sw50qgdz25j' });
    expect(checkAddress(` ${REGTEST_SAMPLES.p2pkh}\t`, REGTEST)).toEqual({ ok: true, address: REGTEST_SAMPLES.p2pkh });
  });

  it('rejects other chains’ addresses with Core’s message (recorded: mainnet on regtest) and a hint', () => {
    // the recorded Core v30 reply for getaddressinfo bc1qar0s… on regtest
    const rec = coreGroup('getaddressinfo').find((r) => r.name === 'mainnet address on regtest')!;
    const recorded = (rec.response.body as { error: { message: string } }).error.message;
    expect(checkAddress('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', REGTEST)).toEqual({
      ok: false,
      message: recorded,
      hint: 'This is a mainnet address, but the node runs regtest.',
    });
    for (const a of Object.values(MAINNET_SAMPLES)) {
      expect(checkAddress(a, REGTEST), a).toEqual({ ok: false, message: coreMessage(a, REGTEST), hint: 'This is a mainnet address, but the node runs regtest.' });
    }
    for (const a of Object.values(REGTEST_SAMPLES)) {
      const r = checkAddress(a, MAINNET);
      expect(r.ok, a).toBe(false);
      if (r.ok) continue;
      expect(r.message).toBe(coreMessage(a, MAINNET));
      // regtest Base58 shares testnet's prefixes: those read as testnet/signet addresses
      expect(r.hint).toMatch(/^This is a (regtest|testnet or signet) address, but the node runs mainnet\.$/);
    }
    expect(checkAddress(REGTEST_SAMPLES.p2wpkh, MAINNET)).toMatchObject({
      message: 'Invalid or unsupported prefix for Segwit (Bech32) address (expected bc, got bcrt).',
      hint: 'This is a regtest address, but the node runs mainnet.',
    });
    expect(checkAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', REGTEST)).toMatchObject({ message: 'Invalid or unsupported Base58-encoded address.' });
  });

  it('testnet3, testnet4 and signet share addresses; regtest Base58 is testnet Base58', () => {
    const tb = 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7';
    for (const net of [TESTNET, TESTNET4, SIGNET]) expect(checkAddress(tb, net).ok).toBe(true);
    expect(checkAddress(tb, REGTEST)).toEqual({
      ok: false,
      message: coreMessage(tb, REGTEST),
      hint: 'This is a testnet or signet address, but the node runs regtest.',
    });
    expect(checkAddress(REGTEST_SAMPLES.p2wpkh, SIGNET)).toMatchObject({ ok: false, hint: 'This is a regtest address, but the node runs signet.' });
    expect(checkAddress(REGTEST_SAMPLES.p2pkh, TESTNET4)).toEqual({ ok: true, address: REGTEST_SAMPLES.p2pkh });
    expect(otherChainHint('garbage', REGTEST)).toBeUndefined();
  });

  it('gives Core’s message for broken addresses', () => {
    expect(checkAddress('not-an-address', REGTEST)).toEqual({ ok: false, message: 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.' });
    expect(checkAddress('bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgeq', REGTEST)).toEqual({ ok: false, message: 'Invalid Bech32 checksum' });
    expect(checkAddress('msPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqF', REGTEST)).toEqual({
      ok: false,
      message: 'Invalid checksum or length of Base58 address (P2PKH or P2SH)',
    });
    expect(checkAddress('', REGTEST)).toEqual({ ok: false, message: 'Invalid checksum or length of Base58 address (P2PKH or P2SH)' });
  });
});

describe('bip21Address', () => {
  it('takes the address part of bitcoin: URIs in any case', () => {
    expect(bip21Address('bitcoin:bcrt1qxyz')).toBe('bcrt1qxyz');
    expect(bip21Address('BITCOIN:BCRT1QXYZ?amount=1')).toBe('BCRT1QXYZ');
    expect(bip21Address('bitcoin:abc?label=Luke-Jr&message=Donation%20for%20project%20xyz')).toBe('abc');
    expect(bip21Address('bitcoin://abc?amount=1')).toBe('abc');
    expect(bip21Address('bitcoin:abc#frag')).toBe('abc');
    expect(bip21Address('bitcoin:?lightning=lnbc1')).toBe('');
    expect(bip21Address('bcrt1qxyz')).toBeNull();
    expect(bip21Address('litecoin:abc')).toBeNull();
  });
});

describe('parseAddressList: plain lists', () => {
  const R = REGTEST_SAMPLES;

  it('reads one per line, every address type, in order', () => {
    const text = Object.values(R).join('\n');
    expect(parseAddressList(text, REGTEST)).toEqual({
      format: 'list',
      addresses: Object.values(R),
      labels: new Map(),
      errors: [],
      warnings: [],
      duplicates: 0,
    });
    const m = parseAddressList(Object.values(MAINNET_SAMPLES).join('\n'), MAINNET);
    expect(m.errors).toEqual([]);
    expect(m.addresses).toEqual(Object.values(MAINNET_SAMPLES));
  });

  it('reads "address label" lines; a line whose other words look like addresses stays a list', () => {
    const text = [
      `${R.p2wpkh} Cold storage`,
      `${R.p2tr}\tinvoice #1043  # paid in March`,
      `bitcoin:${R.p2sh}?label=ignored  Rent deposit`,
      `${R.p2pkh} ${R.p2wsh}`,
    ].join('\n');
    const r = parseAddressList(text, REGTEST);
    expect(r.errors).toEqual([]);
    expect(r.addresses).toEqual([R.p2wpkh, R.p2tr, R.p2sh, R.p2pkh, R.p2wsh]);
    expect([...r.labels]).toEqual([
      [R.p2wpkh, 'Cold storage'],
      [R.p2tr, 'invoice #1043'],
      [R.p2sh, 'Rent deposit'],
    ]);
    // A mistyped second address is reported, not taken for a label.
    const typo = parseAddressList(`${R.p2pkh} ${R.p2wsh.slice(0, -1)}x`, REGTEST);
    expect(typo.addresses).toEqual([R.p2pkh]);
    expect(typo.errors).toHaveLength(1);
    expect(typo.errors[0]).toMatchObject({ line: 1, input: `${R.p2wsh.slice(0, -1)}x` });
    // With a comma the line is a list: "label" is a bad address there.
    expect(parseAddressList(`${R.p2pkh}, label`, REGTEST).errors[0]).toMatchObject({ line: 1, input: 'label' });
  });

  it('splits on commas, semicolons, spaces and tabs; trims; skips blank lines and # comments', () => {
    const text = [
      '# my cold storage',
      '',
      `   ${R.p2pkh} , ${R.p2sh},${R.p2wpkh}   `,
      `\t${R.p2wsh}\t${R.p2tr};${R.anchor}  # trailing comment`,
      '   # indented comment',
      '   ',
    ].join('\r\n');
    const r = parseAddressList(text, REGTEST);
    expect(r.errors).toEqual([]);
    expect(r.addresses).toEqual([R.p2pkh, R.p2sh, R.p2wpkh, R.p2wsh, R.p2tr, R.anchor]);
  });

  it('accepts bitcoin: URIs: the address, and its label= labels it (amount and message ignored)', () => {
    const text = [
      `bitcoin:${R.p2wpkh}?amount=0.1&label=Payroll`,
      `BITCOIN:${R.p2tr.toUpperCase()}`,
      `bitcoin:${R.p2pkh}?label=a%20b`,
      `bitcoin://${R.p2sh}`,
    ].join('\n');
    const r = parseAddressList(text, REGTEST);
    expect(r.errors).toEqual([]);
    expect(r.addresses).toEqual([R.p2wpkh, R.p2tr, R.p2pkh, R.p2sh]);
    expect([...r.labels]).toEqual([
      [R.p2wpkh, 'Payroll'],
      [R.p2pkh, 'a b'],
    ]);
    expect(r.warnings).toEqual([]);
  });

  it('a URI label that is not valid percent-encoding: the address is added, a warning says the label was not', () => {
    const r = parseAddressList(`bitcoin:${R.p2wpkh}?message=x&label=100%\nbitcoin:${R.p2tr}?label=Caf%C3%A9%20%E2%82%BF`, REGTEST);
    expect(r.errors).toEqual([]);
    expect(r.addresses).toEqual([R.p2wpkh, R.p2tr]);
    expect([...r.labels]).toEqual([[R.p2tr, 'Café ₿']]);
    expect(r.warnings).toEqual([{ line: 1, message: 'The URI’s label is not valid percent-encoding; the address is added without it.' }]);
  });

  it('normalizes Bech32 case and dedupes keeping the first occurrence', () => {
    const text = [R.p2wpkh, R.p2tr, R.p2wpkh.toUpperCase(), `bitcoin:${R.p2tr}?amount=1`, R.p2pkh, R.p2wpkh].join('\n');
    const r = parseAddressList(text, REGTEST);
    expect(r.addresses).toEqual([R.p2wpkh, R.p2tr, R.p2pkh]);
    expect(r.duplicates).toBe(3);
    expect(r.errors).toEqual([]);
  });

  it('reports every invalid entry with its line, its text and Core’s message', () => {
    const main = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const text = [
      R.p2wpkh, // 1
      'not-an-address', // 2
      '', // 3
      `${R.p2tr} bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgeq`, // 4
      `bitcoin:${main}?amount=1`, // 5
      'bitcoin:?lightning=lnbcrt1', // 6
      '# bcrt1-not-checked', // 7
      'payroll', // 8
    ].join('\n');
    const r = parseAddressList(text, REGTEST);
    expect(r.errors).toEqual([
      { line: 2, input: 'not-an-address', message: 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.' },
      { line: 4, input: 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgeq', message: 'Invalid Bech32 checksum' },
      {
        line: 5,
        input: `bitcoin:${main}?amount=1`,
        message: 'Invalid or unsupported Segwit (Bech32) or Base58 encoding.',
        hint: 'This is a mainnet address, but the node runs regtest.',
      },
      { line: 6, input: 'bitcoin:?lightning=lnbcrt1', message: 'This bitcoin: URI has no address.' },
      { line: 8, input: 'payroll', message: coreMessage('payroll', REGTEST) },
    ]);
    // the valid ones are still listed, but the caller applies nothing while errors is non-empty
    expect(r.addresses).toEqual([R.p2wpkh, R.p2tr]);
  });

  it('mainnet addresses on regtest, regtest addresses on mainnet', () => {
    const onReg = parseAddressList(Object.values(MAINNET_SAMPLES).join('\n'), REGTEST);
    expect(onReg.addresses).toEqual([]);
    expect(onReg.errors.map((e) => e.line)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const e of onReg.errors) {
      expect(e.message).toBe(coreMessage(e.input, REGTEST));
      expect(e.hint).toBe('This is a mainnet address, but the node runs regtest.');
    }
    const onMain = parseAddressList(Object.values(REGTEST_SAMPLES).join(','), MAINNET);
    expect(onMain.errors.map((e) => [e.line, e.input])).toEqual(Object.values(REGTEST_SAMPLES).map((a) => [1, a]));
  });

  it('reads the empty input, a BOM, lone CRs', () => {
    expect(parseAddressList('', REGTEST)).toMatchObject({ addresses: [], errors: [], duplicates: 0 });
    expect(parseAddressList('\n\n# only comments\n', REGTEST)).toMatchObject({ format: 'list', addresses: [], errors: [] });
    expect(parseAddressList(`\uFEFF${R.p2pkh}\r${R.p2tr}\rbad`, REGTEST)).toMatchObject({
      addresses: [R.p2pkh, R.p2tr],
      errors: [{ line: 3, input: 'bad' }],
    });
  });

  it('refuses too much text at once, and lists at most MAX_LISTED_ERRORS errors', () => {
    const big = parseAddressList('x'.repeat(MAX_ADDRESS_LIST_CHARS + 1), REGTEST);
    expect(big.addresses).toEqual([]);
    expect(big.errors).toHaveLength(1);
    expect(big.errors[0]).toMatchObject({ line: 0, input: '' });
    expect(big.errors[0]!.message).toBe('This text is more than 10 MB; address lists are limited to 10 MB. Split it into smaller files.');

    const many = parseAddressList(Array.from({ length: MAX_LISTED_ERRORS + 50 }, (_, i) => `bad${i}`).join('\n'), REGTEST);
    expect(many.errors).toHaveLength(MAX_LISTED_ERRORS + 1);
    expect(many.errors.at(-1)).toEqual({
      line: MAX_LISTED_ERRORS + 1,
      input: '',
      message: `More than ${MAX_LISTED_ERRORS} invalid entries: the list stops at line ${MAX_LISTED_ERRORS + 1}.`,
    });
  });

  it(`stops at ${MAX_ADDRESSES} addresses`, () => {
    const addrs = Array.from({ length: MAX_ADDRESSES + 2 }, (_, i) => {
      const program = new Uint8Array(20);
      new DataView(program.buffer).setUint32(0, i);
      return encodeDestination({ type: 'witness_v0_keyhash', program }, REGTEST);
    });
    const r = parseAddressList(addrs.join('\n'), REGTEST);
    expect(r.addresses).toHaveLength(MAX_ADDRESSES);
    expect(r.errors).toEqual([
      { line: MAX_ADDRESSES + 1, input: addrs[MAX_ADDRESSES], message: 'Too many addresses: at most 100,000 can be added at once.' },
    ]);
  });
});

describe('parseAddressList: CSV', () => {
  const R = REGTEST_SAMPLES;

  it('reads an address column and a label column (any order, any case), ignoring other columns', () => {
    const text = toCsv([
      ['Label', 'Type', 'ADDRESS', 'Balance (BTC)'],
      ['Payroll', 'p2wpkh', R.p2wpkh, '1.25000000'],
      ['', 'p2tr', R.p2tr, '0.00000000'],
      ['Cold, "deep" storage', 'p2pkh', R.p2pkh, '2'],
      ['日本語 💰', 'p2sh', R.p2sh, ''],
    ]);
    const r = parseAddressList(text, REGTEST);
    expect(r.format).toBe('csv');
    expect(r.errors).toEqual([]);
    expect(r.addresses).toEqual([R.p2wpkh, R.p2tr, R.p2pkh, R.p2sh]);
    expect(r.labels).toEqual(
      new Map([
        [R.p2wpkh, 'Payroll'],
        [R.p2pkh, 'Cold, "deep" storage'],
        [R.p2sh, '日本語 💰'],
      ]),
    );
  });

  it('reads an address-only CSV, semicolon and tab separated files, comments before the header', () => {
    expect(parseAddressList(`address\n${R.p2wpkh}\n\n${R.p2tr}\n`, REGTEST)).toMatchObject({ format: 'csv', addresses: [R.p2wpkh, R.p2tr], errors: [] });
    const semi = parseAddressList(`# exported\n\naddress;label\r\n${R.p2wpkh};"a;b"\r\n${R.p2tr};x\r\n`, REGTEST);
    expect(semi).toMatchObject({ format: 'csv', addresses: [R.p2wpkh, R.p2tr], errors: [] });
    expect(semi.labels.get(R.p2wpkh)).toBe('a;b');
    const tab = parseAddressList(`label\taddress\nL1\t${R.p2pkh}\n`, REGTEST);
    expect(tab.labels).toEqual(new Map([[R.p2pkh, 'L1']]));
  });

  it('undoes the formula guard of our own export and trims cells', () => {
    const text = toCsv([
      ['address', 'label'],
      [R.p2wpkh, '=SUM(A1)'],
      [` ${R.p2tr} `, '  -minus  '],
    ]);
    expect(text).toContain("'=SUM(A1)");
    const r = parseAddressList(text, REGTEST);
    expect(r.labels).toEqual(
      new Map([
        [R.p2wpkh, '=SUM(A1)'],
        [R.p2tr, '-minus'],
      ]),
    );
  });

  it('accepts URIs and uppercase Bech32 in the address column; dedupes keeping the first row and its label', () => {
    const text = toCsv([
      ['address', 'label'],
      [`bitcoin:${R.p2wpkh}?amount=1`, 'first'],
      [R.p2wpkh.toUpperCase(), 'second'],
      [R.p2tr, ''],
      [R.p2tr, 'late label'],
    ]);
    const r = parseAddressList(text, REGTEST);
    expect(r.addresses).toEqual([R.p2wpkh, R.p2tr]);
    expect(r.duplicates).toBe(2);
    expect(r.labels).toEqual(new Map([[R.p2wpkh, 'first']]));
  });

  it('reports invalid rows with their line (multi-line quoted cells counted), rows without address, broken quotes', () => {
    const main = MAINNET_SAMPLES.p2wpkh;
    const text = [
      'address,label', // 1
      `${R.p2wpkh},"two`, // 2
      `lines"`, // 3
      `${main},mainnet`, // 4
      ',orphan label', // 5
      ',', // 6 (empty row: skipped)
      `bad-address,x`, // 7
      `${R.p2tr},"unterminated`, // 8
    ].join('\n');
    const r = parseAddressList(text, REGTEST);
    expect(r.format).toBe('csv');
    expect(r.errors).toEqual([
      { line: 4, input: main, message: coreMessage(main, REGTEST), hint: 'This is a mainnet address, but the node runs regtest.' },
      { line: 5, input: ',orphan label', message: 'This row has no address in the address column.' },
      { line: 7, input: 'bad-address', message: coreMessage('bad-address', REGTEST) },
      { line: 8, input: '', message: 'A quoted field opened on line 8 is never closed.' },
    ]);
    expect(r.labels.get(R.p2wpkh)).toBe('two\nlines');
  });

  it('cuts labels longer than 255 characters, with a warning', () => {
    const long = '💰'.repeat(300);
    const r = parseAddressList(toCsv([['address', 'label'], [R.p2wpkh, long], [R.p2tr, 'a'.repeat(255)]]), REGTEST);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([{ line: 2, message: 'The label was cut to 255 characters.' }]);
    expect(Array.from(r.labels.get(R.p2wpkh)!)).toHaveLength(255);
    expect(r.labels.get(R.p2wpkh)).toBe('💰'.repeat(255));
    expect(r.labels.get(R.p2tr)).toBe('a'.repeat(255));
  });

  it('a column named address is needed to read a file as CSV', () => {
    const r = parseAddressList(`addr,label\n${R.p2wpkh},x\n`, REGTEST);
    expect(r.format).toBe('list');
    expect(r.errors.map((e) => [e.line, e.input])).toEqual([
      [1, 'addr'],
      [1, 'label'],
      [2, 'x'],
    ]);
  });
});

describe('truncateLabel', () => {
  it('counts code points and never splits a surrogate pair', () => {
    expect(truncateLabel('abc', 2)).toEqual({ label: 'ab', truncated: true });
    expect(truncateLabel('abc', 3)).toEqual({ label: 'abc', truncated: false });
    expect(truncateLabel('💰💰💰', 2)).toEqual({ label: '💰💰', truncated: true });
    expect(truncateLabel('💰💰', 2)).toEqual({ label: '💰💰', truncated: false }); // 4 UTF-16 units, 2 code points
  });
});
