import { describe, expect, it } from 'vitest';
import { coreGroup } from '../fixtures';
import {
  DescriptorRpcError,
  deriveAddresses,
  getDescriptorInfo,
  parseDescriptor,
} from '../../shared/bitcoin/descriptor';
import { encodeDestination, extractDestination } from '../../shared/bitcoin/address';
import { MAINNET, REGTEST } from '../../shared/bitcoin/networks';
import { toHex } from '../../shared/bitcoin/hex';

interface AddrInfo {
  address: string;
  scriptPubKey: string;
  desc?: string;
  parent_desc?: string;
  pubkey?: string;
  hdkeypath?: string;
}

const results = coreGroup('getaddressinfo')
  .map((r) => ({ name: r.name, res: (r.response.body as { result: AddrInfo | null }).result }))
  .filter((r): r is { name: string; res: AddrInfo } => !!r.res?.parent_desc);

const PKH = 'pkh([ac9d42e0/44h/1h/0h]tpubDCzqCp2HLNSCMLhJY36gJHaNMHo5ApjBE4ry2sUo2rP3yQND5qPiSwUzaGcXYjNiFLmwwPemJdZ2hoNtgz6jYqs7ee45djc8d4ECmuHgQVS/0/*)#a2eswr2j';

describe('descriptor: recorded parent descriptors', () => {
  it('has the recorded cases', () => {
    expect(results.length).toBeGreaterThanOrEqual(7);
  });
  for (const { name, res } of results) {
    it(`${name}: index 0 gives the recorded address, script, desc, pubkey, hdkeypath`, () => {
      const d = parseDescriptor(res.parent_desc!, REGTEST);
      expect(d.toString()).toBe(res.parent_desc);
      const [e] = d.expand(0);
      expect(e).toBeDefined();
      expect(toHex(e!.script)).toBe(res.scriptPubKey);
      expect(encodeDestination(extractDestination(e!.script)!, REGTEST)).toBe(res.address);
      if (res.desc) expect(d.expandedString(0)).toBe(res.desc);
      if (res.pubkey) expect(e!.pubkeys.map((k) => toHex(k.pubkey))).toContain(res.pubkey);
      if (res.hdkeypath) {
        const o = e!.pubkeys[0]!.origin!;
        expect(toHex(o.fingerprint)).toBe('ac9d42e0');
        const path = 'm' + o.path.map((s) => '/' + (s & 0x7fffffff) + (s >>> 31 ? 'h' : '')).join('');
        expect(path).toBe(res.hdkeypath);
      }
    });
  }
});

describe('descriptor: strings', () => {
  it('keeps apostrophes in ToString, normalizes to h', () => {
    const body = PKH.split('#')[0]!.replace('/44h/1h/0h]', "/44'/1'/0']");
    const d = parseDescriptor(body, REGTEST);
    expect(d.toPublicString()).toBe(`${body}#${getDescriptorInfo(body, REGTEST).checksum}`);
    expect(d.toString()).toBe(PKH);
    expect(d.expand(0)[0]!.pubkeys[0]!.origin!.path.length).toBe(5);
  });

  it('getdescriptorinfo shape and key order', () => {
    const info = getDescriptorInfo(PKH.split('#')[0]!, REGTEST);
    expect(Object.keys(info)).toEqual(['descriptor', 'checksum', 'isrange', 'issolvable', 'hasprivatekeys']);
    expect(info).toEqual({ descriptor: PKH, checksum: 'a2eswr2j', isrange: true, issolvable: true, hasprivatekeys: false });
  });

  it('xprv: derives public keys, never prints the private key, normalizes to the last hardened xpub', () => {
    const tprv = 'tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK';
    const d = parseDescriptor(`wpkh(${tprv}/84h/1h/0h/0/*)`, REGTEST);
    expect(d.hasPrivateKeys).toBe(true);
    expect(d.toString()).not.toContain('tprv');
    expect(d.toString()).toMatch(/^wpkh\(\[[0-9a-f]{8}\/84h\/1h\/0h\]tpub[1-9A-Za-z]+\/0\/\*\)#[a-z0-9]{8}$/);
    expect(d.toPublicString()).not.toContain('tprv');
    // the normalized form derives the same addresses without the private key
    const pub = parseDescriptor(d.toString(), REGTEST);
    expect(toHex(pub.expand(5)[0]!.script)).toBe(toHex(d.expand(5)[0]!.script));
    expect(getDescriptorInfo(`wpkh(${tprv}/84h/1h/0h/0/*)`, REGTEST).hasprivatekeys).toBe(true);
  });

  it('multipath <0;1> expands to receive and change', () => {
    const text = 'wpkh([ac9d42e0/84h/1h/0h]tpubDCzt74oEsfYCfuq6vB6f5x5hwzWVnDBUGVP3pHgxBjHU1xs5CiFTuGPpyfMURAd6i3XuWfkmaMDBHghyucevsWmUQp7eL7wGtXSbmQ1gzNF/<0;1>/*)';
    const d = parseDescriptor(text, REGTEST);
    const e = d.expand(0);
    expect(e.length).toBe(2);
    expect(encodeDestination(extractDestination(e[0]!.script)!, REGTEST)).toBe('bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef');
    expect(encodeDestination(extractDestination(e[1]!.script)!, REGTEST)).toBe('bcrt1qwqle5hlhu9zjeu4g8nn6wnq75mqsec900e56jr');
    const info = getDescriptorInfo(text, REGTEST);
    expect(info.multipath_expansion?.length).toBe(2);
    expect(info.multipath_expansion?.[1]).toBe('wpkh([ac9d42e0/84h/1h/0h]tpubDCzt74oEsfYCfuq6vB6f5x5hwzWVnDBUGVP3pHgxBjHU1xs5CiFTuGPpyfMURAd6i3XuWfkmaMDBHghyucevsWmUQp7eL7wGtXSbmQ1gzNF/1/*)#yw6zk0nv');
    const addrs = deriveAddresses(info.descriptor.replace('/0/*', '/<0;1>/*').split('#')[0]! + '#' + info.checksum, REGTEST, 0) as string[][];
    expect(addrs).toEqual([['bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef'], ['bcrt1qwqle5hlhu9zjeu4g8nn6wnq75mqsec900e56jr']]);
  });

  it('sortedmulti sorts keys; expanded string is multi() in script order', () => {
    const keys = ['03ceb19276fcfb515e672c7455d60d81189d4608f7dc239a692779995d1436cc54', '037627a4036bf4a36bc111a2045725bf91a81cd90b3045d18e22857363d2f4a367'];
    const d = parseDescriptor(`sh(sortedmulti(1,${keys.join(',')}))`, REGTEST);
    const e = d.expand(0)[0]!;
    expect(toHex(e.redeemScript!)).toBe(`5121${keys[1]}21${keys[0]}52ae`);
    expect(d.expandedString(0)).toMatch(/^sh\(multi\(1,\[[0-9a-f]{8}\]037627.*,\[[0-9a-f]{8}\]03ceb1.*\)\)#/);
  });
});

describe('descriptor: Core descriptor_tests.cpp vectors (mainnet)', () => {
  it('wpkh([ffffffff/13\']xprv/1/2/*)', () => {
    const xprv = 'xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM1fwqWpWkeS3v86pgKt';
    const xpub = 'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH';
    const d = parseDescriptor(`wpkh([ffffffff/13']${xprv}/1/2/*)`, MAINNET);
    expect([0, 1, 2].map((i) => toHex(d.expand(i)[0]!.script))).toEqual([
      '0014326b2249e3a25d5dc60935f044ee835d090ba859',
      '0014af0bd98abc2f2cae66e36896a39ffe2d32984fb7',
      '00141fa798efd1cbf95cebf912c031b8a4a6e9fb9f27',
    ]);
    expect(d.toPublicString().split('#')[0]).toBe(`wpkh([ffffffff/13']${xpub}/1/2/*)`);
    expect(d.toString().split('#')[0]).toBe(`wpkh([ffffffff/13h]${xpub}/1/2/*)`);
    expect(d.expand(1)[0]!.pubkeys[0]!.origin!.path).toEqual([0x8000000d, 1, 2, 1]);
  });
  it("pkh(xprv/2147483647'/0) normalizes to the last hardened xpub", () => {
    const d = parseDescriptor(
      "pkh(xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U/2147483647'/0)",
      MAINNET,
    );
    expect(toHex(d.expand(0)[0]!.script)).toBe('76a914ebdc90806a9c4356c1c88e42216611e1cb4c1c1788ac');
    expect(d.toPublicString().split('#')[0]).toBe(
      "pkh(xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB/2147483647'/0)",
    );
    expect(d.toString().split('#')[0]).toBe(
      'pkh([bd16bee5/2147483647h]xpub69H7F5dQzmVd3vPuLKtcXJziMEQByuDidnX3YdwgtNsecY5HRGtAAQC5mXTt4dsv9RzyjgDjAQs9VGVV6ydYCHnprc9vvaA5YtqWyL6hyds/0)',
    );
  });
  it('BIP386 tr(xonly) key-path output', () => {
    const d = parseDescriptor('tr(a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd)', MAINNET);
    expect(toHex(d.expand(0)[0]!.script)).toBe('512077aab6e066f8a7419c5ab714c12c67d25007ed55a43cadcacb4d7a970a093f11');
  });
  it('BIP382 wpkh(WIF) equals wpkh(hex)', () => {
    const d = parseDescriptor('wpkh(L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1)', MAINNET);
    expect(toHex(d.expand(0)[0]!.script)).toBe('00149a1c78a507689f6f54b847ad1cef1e614ee23f1e');
    expect(d.toString()).not.toContain('L4rK');
  });
});

describe('descriptor: errors', () => {
  const bad = (text: string, msg: string) => expect(() => parseDescriptor(text, REGTEST)).toThrow(msg);
  it('checksum errors', () => {
    bad(PKH.slice(0, -1) + 'x', `Provided checksum '${PKH.slice(-8, -1)}x' does not match computed checksum 'a2eswr2j'`);
    bad(PKH + '#abc', "Multiple '#' symbols");
    bad(PKH.slice(0, -2), 'Expected 8 character checksum, not 6 characters');
    expect(() => parseDescriptor(PKH.split('#')[0]!, REGTEST, { requireChecksum: true })).toThrow('Missing checksum');
  });
  it('parse errors with Core messages', () => {
    bad('foo(02)', "'foo(02)' is not a valid descriptor function");
    bad('wpkh(02aa)', "wpkh(): Pubkey '02aa' is invalid");
    bad('sh(sh(wpkh(02aa)))', 'Can only have sh() at top level');
    bad('wsh(wpkh(03ceb19276fcfb515e672c7455d60d81189d4608f7dc239a692779995d1436cc54))', 'Can only have wpkh() at top level or inside sh()');
    bad('wpkh([ac9d42e/0]03ceb19276fcfb515e672c7455d60d81189d4608f7dc239a692779995d1436cc54)', 'wpkh(): Fingerprint is not 4 bytes (7 characters instead of 8 characters)');
    bad('multi(3,03ceb19276fcfb515e672c7455d60d81189d4608f7dc239a692779995d1436cc54)', 'Multisig threshold cannot be larger than the number of keys; threshold is 3 but only 1 keys specified');
    bad('addr(bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq)', 'Address is not valid');
    bad('raw(zz)', 'Raw script is not hex');
    bad('wpkh(tpubfoo/0)', "wpkh(): key 'tpubfoo' is not valid");
  });
});

describe('descriptor: deriveaddresses', () => {
  it('derives a range', () => {
    expect(deriveAddresses(PKH, REGTEST, [0, 0])).toEqual(['msPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqE']);
    expect((deriveAddresses(PKH, REGTEST, 2) as string[]).length).toBe(3);
  });
  it('errors like Core', () => {
    const err = (f: () => unknown, code: number, msg: string) => {
      try {
        f();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(DescriptorRpcError);
        expect((e as DescriptorRpcError).code).toBe(code);
        expect((e as Error).message).toBe(msg);
      }
    };
    err(() => deriveAddresses(PKH, REGTEST), -8, 'Range must be specified for a ranged descriptor');
    err(() => deriveAddresses(PKH.split('#')[0]!, REGTEST, 1), -5, 'Missing checksum');
    err(() => deriveAddresses(PKH, REGTEST, [2, 1]), -8, 'Range specified as [begin,end] must not have begin after end');
    err(() => deriveAddresses(PKH, REGTEST, [-1, 10]), -8, 'Range should be greater or equal than 0');
    err(() => deriveAddresses(PKH, REGTEST, -1), -8, 'End of range is too high');
    err(() => deriveAddresses(PKH, REGTEST, [0, 1000001]), -8, 'Range is too large');
    const addr = 'addr(bcrt1qwzycpzzkr5gpz4qfulhhe9e57rd9fv0decm5s5)#k0u2wt4z';
    expect(deriveAddresses(addr, REGTEST)).toEqual(['bcrt1qwzycpzzkr5gpz4qfulhhe9e57rd9fv0decm5s5']);
    err(() => deriveAddresses(addr, REGTEST, 1), -8, 'Range should not be specified for an un-ranged descriptor');
    const pk = 'pk(03ceb19276fcfb515e672c7455d60d81189d4608f7dc239a692779995d1436cc54)';
    err(() => deriveAddresses(`${pk}#${getDescriptorInfo(pk, REGTEST).checksum}`, REGTEST), -5, 'Descriptor does not have a corresponding address');
    const hard = 'wpkh(tpubDCzt74oEsfYCfuq6vB6f5x5hwzWVnDBUGVP3pHgxBjHU1xs5CiFTuGPpyfMURAd6i3XuWfkmaMDBHghyucevsWmUQp7eL7wGtXSbmQ1gzNF/1h/0)';
    err(() => deriveAddresses(`${hard}#${getDescriptorInfo(hard, REGTEST).checksum}`, REGTEST), -5, 'Cannot derive script without private keys');
  });
});
