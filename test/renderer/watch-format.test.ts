import { describe, expect, it } from 'vitest';
import { groupAddressInfo, multisigOf } from '../../renderer/src/lib/addressinfo';
import { formatAmount, formatAmountWithUnit, groupSats, middle, sats } from '../../renderer/src/lib/format';

describe('amount formatting', () => {
  it('groups satoshis exactly, beyond 2^53 too', () => {
    expect(groupSats(0n)).toBe('0');
    expect(groupSats(999n)).toBe('999');
    expect(groupSats(1000n)).toBe('1,000');
    expect(groupSats(2_100_000_000_000_000n)).toBe('2,100,000,000,000,000');
    expect(groupSats(-1234567n)).toBe('-1,234,567');
    expect(groupSats(9_007_199_254_740_993n)).toBe('9,007,199,254,740,993');
  });

  it('BTC with 8 decimals, sats grouped', () => {
    expect(formatAmount(sats('123456789')!, 'btc')).toBe('1.23456789');
    expect(formatAmount(sats('1')!, 'btc')).toBe('0.00000001');
    expect(formatAmount(sats('123456789')!, 'sats')).toBe('123,456,789');
    expect(formatAmountWithUnit(5000n, 'sats')).toBe('5,000 sats');
    expect(formatAmountWithUnit(5000n, 'btc')).toBe('0.00005000 BTC');
    expect(sats(null)).toBeNull();
  });

  it('shortens in the middle', () => {
    expect(middle('abcdef', 10)).toBe('abcdef');
    const s = middle('bcrt1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqp3mvzv', 21);
    expect(s).toHaveLength(21);
    expect(s.startsWith('bcrt1p5cyx')).toBe(true);
    expect(s.endsWith('qp3mvzv')).toBe(true);
  });
});

describe('getaddressinfo grouping', () => {
  it('a P2SH-P2WSH 2-of-3: every field shown, multisig from the embedded script', () => {
    const info = {
      address: '2N…',
      scriptPubKey: 'a914…87',
      ismine: false,
      solvable: true,
      desc: 'sh(wsh(multi(2,[d34db33f/48h/1h/0h/1h]02…,03…,02…)))#abcd1234',
      parent_desc: 'sh(wsh(multi(2,tpub…/0/*)))#xyz',
      iswatchonly: true,
      isscript: true,
      iswitness: false,
      script: 'witness_v0_scripthash',
      hex: '0020…',
      embedded: { isscript: true, iswitness: true, witness_version: 0, witness_program: 'ab…', script: 'multisig', hex: '5221…53ae', sigsrequired: 2, pubkeys: ['02a', '03b', '02c'], address: 'bcrt1q…', scriptPubKey: '0020…' },
      ischange: false,
      timestamp: 1700000000,
      hdkeypath: 'm/48h/1h/0h/1h/0/5',
      hdmasterfingerprint: 'd34db33f',
      labels: ['Vault'],
      somethingNew: { a: 1 },
    };
    expect(multisigOf(info)).toEqual({ m: 2, n: 3 });
    const groups = groupAddressInfo(info);
    const ids = groups.map((g) => g.id);
    expect(ids).toEqual(['script', 'embedded', 'descriptor', 'hd', 'keys', 'wallet', 'other']);
    // The m-of-n of the embedded script is told under Keys.
    expect(groups.find((g) => g.id === 'keys')!.fields).toEqual([{ key: 'multisig', label: 'Multisig', value: '2 of 3', mono: true, hint: 'sigsrequired of pubkeys' }]);
    const keys = groups.flatMap((g) => g.fields.map((f) => f.key));
    for (const k of Object.keys(info)) if (k !== 'address' && k !== 'embedded') expect(keys).toContain(k);
    for (const k of Object.keys(info.embedded)) expect(keys).toContain(`embedded.${k}`);
    const wallet = groups.find((g) => g.id === 'wallet')!;
    expect(wallet.fields.find((f) => f.key === 'iswatchonly')?.value).toBe('yes');
    expect(wallet.fields.find((f) => f.key === 'labels')?.value).toEqual(['Vault']);
    expect(String(wallet.fields.find((f) => f.key === 'timestamp')?.value)).toContain('(1700000000)');
    expect(groups.find((g) => g.id === 'other')?.fields[0]).toMatchObject({ key: 'somethingNew', value: '{"a":1}' });
  });

  it('bare multisig keys at the top level', () => {
    const groups = groupAddressInfo({ pubkeys: ['02a', '03b'], sigsrequired: 1, pubkey: '02a' });
    const keys = groups.find((g) => g.id === 'keys')!;
    expect(keys.fields[0]).toMatchObject({ key: 'multisig', value: '1 of 2' });
    expect(keys.fields.map((f) => f.key)).toEqual(['multisig', 'pubkey', 'pubkeys', 'sigsrequired']);
  });
});
