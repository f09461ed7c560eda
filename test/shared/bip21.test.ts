import { describe, expect, it } from 'vitest';
import { formatBip21, isBip21, parseBip21, parseBip21Amount } from '../../shared/bip21';

const ok = (uri: string) => {
  const r = parseBip21(uri);
  if (!r.ok) throw new Error(`${uri}: ${r.error}`);
  return r.request;
};
const bad = (uri: string) => {
  const r = parseBip21(uri);
  if (r.ok) throw new Error(`${uri} was accepted`);
  return r;
};

describe('BIP21 payment requests', () => {
  it("reads BIP21's own examples (on a valid address: the BIP's own has a bad checksum)", () => {
    expect(ok('bitcoin:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toEqual({ address: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', chains: ['main'], amountSats: null, label: null, message: null, other: [] });
    expect(ok('bitcoin:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2?label=Luke-Jr').label).toBe('Luke-Jr');
    expect(ok('bitcoin:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2?amount=20.3&label=Luke-Jr').amountSats).toBe(2_030_000_000n);
    const full = ok('bitcoin:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2?amount=50&label=Luke-Jr&message=Donation%20for%20project%20xyz');
    expect(full).toMatchObject({ amountSats: 5_000_000_000n, label: 'Luke-Jr', message: 'Donation for project xyz' });
    // "somethingyoudontunderstand" is ignored (kept for display); "req-somethingyoudontunderstand" refuses.
    expect(ok('bitcoin:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2?somethingyoudontunderstand=50&somethingelseyoudontget=999').other).toEqual([
      { name: 'somethingyoudontunderstand', value: '50' },
      { name: 'somethingelseyoudontget', value: '999' },
    ]);
    const req = bad('bitcoin:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2?req-somethingyoudontunderstand=50&req-somethingelseyoudontget=999');
    expect(req).toEqual({ ok: false, field: 'parameter', error: 'The request requires "req-somethingyoudontunderstand", which Spyglass does not support; BIP21 says to refuse such a request' });
  });

  it('knows the chain from the address; capital bech32 (QR codes) is the same address', () => {
    expect(ok('bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4').chains).toEqual(['main']);
    expect(ok('BITCOIN:BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4?AMOUNT=0.001')).toMatchObject({ address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amountSats: 100_000n });
    expect(ok('bitcoin:tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx').chains).toEqual(['test']);
    expect(ok('bitcoin:bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef').chains).toEqual(['regtest']);
    // Base58 test addresses serve testnet, signet and regtest alike.
    expect(ok('bitcoin:msPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqE').chains).toEqual(['test', 'regtest']);
  });

  it('refuses what is not a payment request, each with its reason', () => {
    expect(bad('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toMatchObject({ field: 'uri', error: 'A payment request starts with bitcoin:' });
    expect(bad('bitcoin:')).toMatchObject({ field: 'address', error: 'The payment request has no address' });
    expect(bad('bitcoin:?amount=1')).toMatchObject({ field: 'address' });
    expect(bad('bitcoin:1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3').error).toMatch(/^"1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3" is not a Bitcoin address \(/);
    expect(bad('bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount=1&amount=2')).toMatchObject({ field: 'parameter', error: 'The parameter "amount" appears more than once' });
    expect(bad('bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?label=%E0%A4%A')).toMatchObject({ field: 'parameter' });
    expect(bad(`bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?message=${'x'.repeat(4300)}`)).toMatchObject({ field: 'uri' });
  });

  it('amounts: plain decimal BTC, at most 8 decimals, above zero, within the supply', () => {
    expect(parseBip21Amount('1')).toEqual({ ok: true, sats: 100_000_000n });
    expect(parseBip21Amount('.5')).toEqual({ ok: true, sats: 50_000_000n });
    expect(parseBip21Amount('0.00000001')).toEqual({ ok: true, sats: 1n });
    expect(parseBip21Amount('21000000')).toEqual({ ok: true, sats: 2_100_000_000_000_000n });
    for (const [text, why] of [
      ['0', 'The amount is zero'],
      ['0.000000001', 'has more than 8 decimals'],
      ['21000000.00000001', 'more than the 21,000,000 BTC'],
      ['1e3', 'is not an amount'],
      ['-1', 'is not an amount'],
      ['1,5', 'is not an amount'],
      ['.', 'is not an amount'],
      ['', 'is not an amount'],
    ] as const) {
      const r = parseBip21Amount(text);
      expect(r.ok, text).toBe(false);
      if (!r.ok) expect(r.error).toContain(why);
    }
  });

  it('writes a URI that reads back the same', () => {
    const uri = formatBip21({ address: 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef', amountSats: 1_500_000n, label: 'Rent & bills', message: 'März 100%' });
    expect(uri).toBe('bitcoin:bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef?amount=0.015&label=Rent%20%26%20bills&message=M%C3%A4rz%20100%25');
    expect(ok(uri)).toMatchObject({ amountSats: 1_500_000n, label: 'Rent & bills', message: 'März 100%' });
    expect(isBip21('  Bitcoin:x')).toBe(true);
  });
});
