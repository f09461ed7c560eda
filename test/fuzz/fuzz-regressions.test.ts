/**
 * What `npm run fuzz` found (issue #27), kept as plain cases: each was an untyped failure, a broken
 * round trip, or an input under its cap that took seconds.
 */
import { describe, expect, it } from 'vitest';
import { formatBip21, parseBip21 } from '../../shared/bip21';
import { parseCsv } from '../../shared/csv';
import { REGTEST } from '../../shared/bitcoin/networks';
import { findSecrets } from '../../shared/wallet/keys';
import { parseAddressList } from '../../shared/watchlist';
import { master, testWif } from '../wallet/helpers';
import { COSIGNERS } from '../wallet/vectors';

describe('fuzz findings', () => {
  it('bip21: a lone surrogate in a parameter is refused (it cannot be written back), not accepted', () => {
    expect(parseBip21('bitcoin:2Mx6uYKYGW5J6sV59e5NsdtCTsJYRxednbx?message=\ud800donation')).toEqual({
      ok: false,
      field: 'parameter',
      error: '"message=\ud800donation" holds a broken character (half of a UTF-16 surrogate pair)',
    });
    const ok = parseBip21('bitcoin:2Mx6uYKYGW5J6sV59e5NsdtCTsJYRxednbx?message=%F0%9F%98%80');
    expect(ok.ok && ok.request.message).toBe('\ud83d\ude00');
  });

  it('bip21: the address is kept as Core writes it (spaces Base58 allows dropped), so the request writes back the same', () => {
    const r = parseBip21('bitcoin:2Mwx1WyFxTQFuugmePLpDMyfY1UervhL1Dn ?amount=1');
    expect(r.ok && r.request.address).toBe('2Mwx1WyFxTQFuugmePLpDMyfY1UervhL1Dn');
    const again = r.ok ? parseBip21(formatBip21(r.request)) : r;
    expect(again.ok && again.request).toMatchObject({ address: '2Mwx1WyFxTQFuugmePLpDMyfY1UervhL1Dn', amountSats: 100_000_000n });
  });

  it('csv: a field of megabytes (quoted or not) reads whole and the same as before', () => {
    const long = 'a"b'.repeat(400_000);
    const r = parseCsv(`address;label\r\n${long};"${'x""y\n'.repeat(200_000)}"\r\nz;w`, { delimiter: ';' });
    expect(r.errors).toEqual([]);
    expect(r.rows.map((row) => row.cells.map((c) => c.length))).toEqual([[7, 5], [long.length, 'x"y\n'.length * 200_000], [1, 1]]);
    expect(r.rows[1]!.cells[1]!.slice(0, 8)).toBe('x"y\nx"y\n');
    expect(r.rows[2]).toEqual({ line: 200_003, cells: ['z', 'w'] });
  });

  it('address list: a line of a million tokens stops at the error limit', () => {
    const r = parseAddressList('\tL'.repeat(1_000_000), REGTEST);
    expect(r.errors).toHaveLength(1001);
    expect(r.errors.at(-1)!.message).toBe('More than 1000 invalid entries: the list stops at line 1.');
  });

  it('findSecrets decodes only what can be a private key, and still finds each among thousands of xpubs', () => {
    const xpubs = Array.from({ length: 3000 }, (_, i) => `[a74008ce/48h/1h/0h/2h]${COSIGNERS[i % 3]!.p2wsh}`);
    expect(findSecrets(xpubs.join(''))).toEqual([]);
    const xprv = master('fuzz').privateExtendedKey;
    const wif = testWif('fuzz');
    const text = [...xpubs.slice(0, 1500), xprv, ...xpubs.slice(1500), wif].join(' ');
    expect(findSecrets(text).map((s) => s.kind)).toEqual(['extended private key', 'WIF private key']);
  });
});
