import { describe, expect, it } from 'vitest';
import { coreGroup } from '../fixtures';
import { AddressInfoError, addressInfo } from '../../shared/bitcoin/addressinfo';
import { parseDescriptor } from '../../shared/bitcoin/descriptor';
import { encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { REGTEST } from '../../shared/bitcoin/networks';

interface Body {
  result: Record<string, unknown> | null;
  error: { code: number; message: string } | null;
}

const recs = coreGroup('getaddressinfo').map((r) => ({
  name: r.name,
  wallet: r.request.path.replace('/wallet/', ''),
  address: (JSON.parse(r.request.body) as { params: unknown[] }).params[0],
  body: r.response.body as Body,
}));

const TIMESTAMPS: Record<string, number> = { watch: 1296688602, hot: 1795345214 };

describe('addressinfo: every recorded successful getaddressinfo result', () => {
  const ok = recs.filter((r) => r.body.result);
  it('has the recorded cases', () => {
    expect(ok.length).toBeGreaterThanOrEqual(9);
  });
  for (const r of ok) {
    it(r.name, () => {
      const res = r.body.result!;
      const labels = res.labels as string[];
      const label = labels.length ? labels[0]! : null;
      let wallet;
      if (typeof res.parent_desc === 'string') {
        const descriptor = parseDescriptor(res.parent_desc, REGTEST);
        let index: number | null = null;
        if (descriptor.isRange()) {
          for (let i = 0; i <= 20 && index === null; i++) {
            const dest = extractDestination(descriptor.expand(i)[0]!.script)!;
            if (encodeDestination(dest, REGTEST) === res.address) index = i;
          }
          expect(index).not.toBeNull();
        }
        wallet = { descriptor, index, timestamp: TIMESTAMPS[r.wallet]!, label };
      }
      const got = addressInfo({ address: r.address as string, network: REGTEST, wallet, label });
      expect(JSON.stringify(got)).toBe(JSON.stringify(res));
    });
  }
});

describe('addressinfo: errors and special cases', () => {
  for (const r of recs.filter((x) => x.body.error && x.body.error.code === -5)) {
    it(`invalid address: ${r.name}`, () => {
      try {
        addressInfo({ address: r.address as string, network: REGTEST });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(AddressInfoError);
        expect((e as AddressInfoError).code).toBe(-5);
        expect((e as Error).message).toBe(r.body.error!.message);
      }
    });
  }

  it('uppercase bech32 comes back lowercase', () => {
    const got = addressInfo({ address: 'BCRT1Q73AQJMLW6TWU5DM80G2EXG0URVP382UZVKPGEF', network: REGTEST });
    expect(got.address).toBe('bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef');
    expect(got.ismine).toBe(false);
  });

  it('sh(wsh(multi)) nests embedded detail; no metadata for scripts', () => {
    const keys = [
      '037627a4036bf4a36bc111a2045725bf91a81cd90b3045d18e22857363d2f4a367',
      '039d4853067b256650ae03c2fcd43c7677ec4a64f68e883b7daf04143959d27f15',
    ];
    const descriptor = parseDescriptor(`sh(wsh(multi(1,${keys.join(',')})))`, REGTEST);
    const address = encodeDestination(extractDestination(descriptor.expand(0)[0]!.script)!, REGTEST);
    const got = addressInfo({ address, network: REGTEST, wallet: { descriptor, index: null, timestamp: 1, label: 'x' } });
    expect(Object.keys(got)).toEqual([
      'address', 'scriptPubKey', 'ismine', 'solvable', 'desc', 'parent_desc', 'iswatchonly', 'isscript', 'iswitness',
      'script', 'hex', 'embedded', 'ischange', 'labels',
    ]);
    expect(got.script).toBe('witness_v0_scripthash');
    const emb = got.embedded as Record<string, unknown>;
    expect(Object.keys(emb)).toEqual([
      'isscript', 'iswitness', 'witness_version', 'witness_program', 'script', 'hex', 'sigsrequired', 'pubkeys', 'address', 'scriptPubKey',
    ]);
    expect(emb.pubkeys).toEqual(keys);
    expect(got.ischange).toBe(false);
    expect(got.labels).toEqual(['x']);
  });

  it('foreign address in the address book: labels, not change', () => {
    const got = addressInfo({ address: 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef', network: REGTEST, label: 'friend' });
    expect(got.ischange).toBe(false);
    expect(got.labels).toEqual(['friend']);
    expect('parent_desc' in got).toBe(false);
  });
});
