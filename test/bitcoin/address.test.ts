import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { coreGroup } from '../fixtures';
import {
  bech32Encode,
  bech32LocateErrors,
  convertBits,
  decodeBase58,
  decodeBase58Check,
  decodeDestination,
  encodeBase58,
  encodeBase58Check,
  encodeDestination,
  extractDestination,
  extractDestinationWithPubkey,
  scriptForDestination,
  type Destination,
} from '../../shared/bitcoin/address';
import { fromHex, toHex } from '../../shared/bitcoin/hex';
import { inferDescriptor, type KeyOrigin, type SigningProviderLike } from '../../shared/bitcoin/infer';
import { MAINNET, REGTEST, TESTNET } from '../../shared/bitcoin/networks';

const hash160 = (b: Uint8Array): Uint8Array => ripemd160(sha256(b));

function errorOf(addr: string, net = REGTEST): string {
  const r = decodeDestination(addr, net);
  if (r.ok) throw new Error(`${addr} decoded`);
  return r.error;
}

function segwit(enc: 'bech32' | 'bech32m', hrp: string, version: number, program: Uint8Array): string {
  return bech32Encode(enc, hrp, [version, ...convertBits(program, 8, 5, true)!]);
}

describe('getaddressinfo recordings', () => {
  const recs = coreGroup('getaddressinfo');

  it('valid addresses decode to the recorded scriptPubKey and re-encode', () => {
    let n = 0;
    for (const r of recs) {
      const body = r.response.body as { result: { address: string; scriptPubKey: string } | null };
      if (!body.result) continue;
      const res = decodeDestination(body.result.address, REGTEST);
      expect(res.ok, r.name).toBe(true);
      if (!res.ok) continue;
      expect(toHex(res.script), r.name).toBe(body.result.scriptPubKey);
      expect(encodeDestination(res.dest, REGTEST)).toBe(body.result.address);
      const back = extractDestination(res.script);
      expect(back && encodeDestination(back, REGTEST)).toBe(body.result.address);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(8);
  });

  it('invalid address error messages match (code -5)', () => {
    let n = 0;
    for (const r of recs) {
      const body = r.response.body as { error: { code: number; message: string } | null };
      const params = (JSON.parse(r.request.body) as { params: unknown[] }).params;
      if (body.error?.code !== -5 || typeof params[0] !== 'string') continue;
      expect(errorOf(params[0]) || 'Invalid address', r.name).toBe(body.error.message);
      n++;
    }
    expect(n).toBe(3);
  });

  it('desc with a wallet-like signing provider matches InferDescriptor output', () => {
    let n = 0;
    for (const r of recs) {
      const res = (r.response.body as { result: Record<string, unknown> | null }).result;
      if (!res || typeof res.desc !== 'string') continue;
      const pubkeys = new Map<string, Uint8Array>();
      const origins = new Map<string, KeyOrigin>();
      const scripts = new Map<string, Uint8Array>();
      const fp = res.hdmasterfingerprint as string | undefined;
      const path = res.hdkeypath as string | undefined;
      const origin = (): KeyOrigin => ({
        fingerprint: fromHex(fp!),
        path: path!
          .split('/')
          .slice(1)
          .map((s) => (s.endsWith('h') ? (parseInt(s, 10) | 0x80000000) >>> 0 : parseInt(s, 10))),
      });
      let internal: Uint8Array | undefined;
      if (typeof res.pubkey === 'string') {
        const pk = fromHex(res.pubkey);
        pubkeys.set(toHex(hash160(pk)), pk);
        origins.set(res.pubkey, origin());
      }
      if (res.witness_version === 1) {
        // tr(): the recorded desc carries the internal key
        const m = /\]([0-9a-f]{64})\)/.exec(res.desc);
        internal = fromHex(m![1]!);
        origins.set('02' + m![1]!, origin());
      }
      if (typeof res.hex === 'string') {
        const s = fromHex(res.hex);
        scripts.set(toHex(hash160(s)), s);
        scripts.set(toHex(ripemd160(sha256(s))), s);
      }
      for (const k of (res.pubkeys as string[] | undefined) ?? []) {
        const pk = fromHex(k);
        origins.set(k, { fingerprint: hash160(pk).subarray(0, 4), path: [] });
      }
      const provider: SigningProviderLike = {
        getPubKeyByHash160: (h) => pubkeys.get(toHex(h)),
        getKeyOrigin: (pk) => origins.get(toHex(pk)),
        getScript: (h) => scripts.get(toHex(h)),
        getTaprootInternalKey: () => internal,
      };
      expect(inferDescriptor(fromHex(res.scriptPubKey as string), REGTEST, provider), r.name).toBe(res.desc);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(6);
  });

  it('without a provider, addresses give addr()/rawtr() like decodepsbt', () => {
    expect(inferDescriptor(fromHex('76a914823636b0cd82cb4de101c58828c364be0fbdb21688ac'), REGTEST)).toBe(
      'addr(msPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqE)#q3vgpwmg',
    );
    expect(inferDescriptor(fromHex('5120345cce5e59c2ddba732eb339eb4d53055d9778b1ae045a88d4e32a01e468242a'), REGTEST)).toBe(
      'rawtr(345cce5e59c2ddba732eb339eb4d53055d9778b1ae045a88d4e32a01e468242a)#q4lkfg3u',
    );
  });
});

describe('DecodeDestination error messages (Core v30 key_io.cpp)', () => {
  const good = 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef';

  it('recorded cases', () => {
    expect(errorOf('not-an-address')).toBe('Invalid or unsupported Segwit (Bech32) or Base58 encoding.');
    expect(errorOf('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')).toBe('Invalid or unsupported Segwit (Bech32) or Base58 encoding.');
    expect(errorOf('bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgeq')).toBe('Invalid Bech32 checksum');
  });

  it('bech32 checksum errors with locations', () => {
    const flip = (s: string, i: number): string => s.slice(0, i) + (s[i] === 'q' ? 'p' : 'q') + s.slice(i + 1);
    const one = decodeDestination(flip(good, 10), REGTEST);
    expect(one).toEqual({ ok: false, error: 'Invalid Bech32 checksum', errorLocations: [10] });
    const two = decodeDestination(flip(flip(good, 8), 30), REGTEST);
    expect(two).toEqual({ ok: false, error: 'Invalid Bech32 checksum', errorLocations: [8, 30] });
    const tr = 'bcrt1pggux3e2nflwsdcr8kwajclk4wuhu82rsyqlxzuwz0t5jgzrs7kzq6kfkfk';
    expect(decodeDestination(flip(tr, 20), REGTEST)).toEqual({ ok: false, error: 'Invalid Bech32m checksum', errorLocations: [20] });
    // many errors: no location found
    const many = good.slice(0, 5) + 'qqqqqqqqqqqqqqq' + good.slice(20);
    expect(bech32LocateErrors(many).error).toMatch(/^Invalid (Bech32 |Bech32m )?checksum$/);
    expect(bech32LocateErrors(good)).toEqual({ error: '', locations: [] });
  });

  it('bech32 structural errors', () => {
    expect(errorOf('bcrt1qqqqq')).toBe('Invalid separator position');
    expect(decodeDestination('bcrt1qqqqq', REGTEST)).toMatchObject({ errorLocations: [4] });
    expect(errorOf('bcrtqqqqqqqqqqqq')).toBe('Missing separator');
    expect(errorOf('bcrt1qb3aqjmlw6twu5dm80g2exg0urvp382uzvkpgef')).toBe('Invalid Base 32 character');
    expect(decodeDestination('bcrt1qb3aqjmlw6twu5dm80g2exg0urvp382uzvkpgef', REGTEST)).toMatchObject({ errorLocations: [6] });
    expect(errorOf('bcrt1Q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef')).toBe('Invalid character or mixed case');
    expect(errorOf('bcrt1' + 'q'.repeat(90))).toBe('Bech32 string too long');
    expect(decodeDestination('bcrt1' + 'q'.repeat(90), REGTEST)).toMatchObject({ errorLocations: [90, 91, 92, 93, 94] });
  });

  it('segwit semantic errors', () => {
    const h = 'bcrt';
    expect(errorOf(bech32Encode('bech32', h, []))).toBe('Empty Bech32 data section');
    expect(errorOf(segwit('bech32', 'bcrtx', 0, new Uint8Array(20)))).toBe(
      'Invalid or unsupported prefix for Segwit (Bech32) address (expected bcrt, got bcrtx).',
    );
    expect(errorOf(segwit('bech32', h, 0, new Uint8Array(16)))).toBe('Invalid Bech32 v0 address program size (16 bytes), per BIP141');
    expect(errorOf(segwit('bech32', h, 0, new Uint8Array(21)))).toBe('Invalid Bech32 v0 address program size (21 bytes), per BIP141');
    expect(errorOf(segwit('bech32', h, 1, new Uint8Array(32)))).toBe('Version 1+ witness address must use Bech32m checksum');
    expect(errorOf(segwit('bech32m', h, 0, new Uint8Array(20)))).toBe('Version 0 witness address must use Bech32 checksum');
    expect(errorOf(segwit('bech32m', h, 1, new Uint8Array(41)))).toBe('Invalid Bech32 address program size (41 bytes)');
    expect(errorOf(segwit('bech32m', h, 2, new Uint8Array(1)))).toBe('Invalid Bech32 address program size (1 byte)');
    expect(errorOf(segwit('bech32m', h, 17, new Uint8Array(32)))).toBe('Invalid Bech32 address witness version');
    // v0 with a dangling non-zero 5-bit group
    expect(errorOf(bech32Encode('bech32', h, [0, ...convertBits(new Uint8Array(20), 8, 5, true)!, 1]))).toBe(
      'Invalid padding in Bech32 data section',
    );
  });

  it('base58 errors', () => {
    // mainnet P2PKH on regtest: valid Base58Check, wrong prefix
    expect(errorOf('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe('Invalid or unsupported Base58-encoded address.');
    expect(errorOf(encodeBase58Check(Uint8Array.of(0x6f, ...new Uint8Array(19))))).toBe('Invalid length for Base58 address (P2PKH or P2SH)');
    expect(errorOf(encodeBase58Check(Uint8Array.of(0xc4, ...new Uint8Array(10))))).toBe('Invalid length for Base58 address (P2PKH or P2SH)');
    // 22-byte payload exceeds DecodeBase58Check's 21-byte limit
    expect(errorOf(encodeBase58Check(Uint8Array.of(0xc4, ...new Uint8Array(21))))).toBe('Invalid checksum or length of Base58 address (P2PKH or P2SH)');
    expect(errorOf('msPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqF')).toBe('Invalid checksum or length of Base58 address (P2PKH or P2SH)');
    expect(errorOf('')).toBe('Invalid checksum or length of Base58 address (P2PKH or P2SH)');
    // too long for Base58Check(21) but fine as raw base58
    expect(errorOf(encodeBase58Check(Uint8Array.of(0x6f, ...new Uint8Array(40))))).toBe(
      'Invalid checksum or length of Base58 address (P2PKH or P2SH)',
    );
    expect(errorOf('0OIl')).toBe('Invalid or unsupported Segwit (Bech32) or Base58 encoding.');
  });
});

describe('DecodeDestination successes', () => {
  it('BIP173/BIP350 vectors (mainnet/testnet) and uppercase', () => {
    const cases: [string, string, typeof MAINNET][] = [
      ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', '0014751e76e8199196d454941c45d1b3a323f1433bd6', MAINNET],
      [
        'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
        '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262',
        TESTNET,
      ],
      [
        'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
        '5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6',
        MAINNET,
      ],
      ['BC1SW50QGDZ25J', '6002751e', MAINNET],
      ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', '5210751e76e8199196d454941c45d1b3a323', MAINNET],
      [
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
        '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
        MAINNET,
      ],
      ['bc1pfeessrawgf', '51024e73', MAINNET],
      ['BCRT1Q73AQJMLW6TWU5DM80G2EXG0URVP382UZVKPGEF', '0014f47a096feed2ddca37677a159321fc1b0313ab82', REGTEST],
      ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', '76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac', MAINNET],
      ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87', MAINNET],
      // Base58 decoding skips surrounding whitespace
      [' \tmsPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqE\n', '76a914823636b0cd82cb4de101c58828c364be0fbdb21688ac', REGTEST],
    ];
    for (const [addr, spk, net] of cases) {
      const r = decodeDestination(addr, net);
      expect(r.ok, addr).toBe(true);
      if (r.ok) expect(toHex(r.script), addr).toBe(spk);
    }
  });

  it('encode round trip and anchor', () => {
    expect(encodeDestination({ type: 'anchor' }, MAINNET)).toBe('bc1pfeessrawgf');
    expect(encodeDestination({ type: 'anchor' }, REGTEST)).toBe('bcrt1pfeesnyr2tx');
    expect(decodeDestination('bc1pfeessrawgf', MAINNET)).toMatchObject({ ok: true, dest: { type: 'anchor' } });
    expect(encodeDestination({ type: 'pubkey', pubkey: new Uint8Array(33) }, MAINNET)).toBe('');
    expect(encodeDestination({ type: 'witness_unknown', version: 1, program: new Uint8Array(1) }, MAINNET)).toBe('');
    const dests: Destination[] = [
      { type: 'pkhash', hash: new Uint8Array(20).fill(1) },
      { type: 'scripthash', hash: new Uint8Array(20).fill(2) },
      { type: 'witness_v0_keyhash', program: new Uint8Array(20).fill(3) },
      { type: 'witness_v0_scripthash', program: new Uint8Array(32).fill(4) },
      { type: 'witness_v1_taproot', program: new Uint8Array(32).fill(5) },
      { type: 'witness_unknown', version: 16, program: new Uint8Array(40).fill(6) },
    ];
    for (const d of dests) {
      for (const net of [MAINNET, TESTNET, REGTEST]) {
        const a = encodeDestination(d, net);
        const r = decodeDestination(a, net);
        expect(r.ok && r.dest, a).toEqual(d);
        expect(r.ok && toHex(r.script)).toBe(toHex(scriptForDestination(d)));
        expect(extractDestination(scriptForDestination(d))).toEqual(d);
      }
    }
  });

  it('ExtractDestination returns null for P2PK, multisig, nulldata, nonstandard', () => {
    const pk = '02' + '11'.repeat(32);
    expect(extractDestination(fromHex(`21${pk}ac`))).toBeNull();
    expect(extractDestinationWithPubkey(fromHex(`21${pk}ac`))).toEqual({ type: 'pubkey', pubkey: fromHex(pk) });
    expect(extractDestination(fromHex(`5121${pk}51ae`))).toBeNull();
    expect(extractDestination(fromHex('6a'))).toBeNull();
    expect(extractDestination(fromHex('0015' + '00'.repeat(21)))).toBeNull();
  });
});

describe('base58', () => {
  it('matches Core vectors and limits', () => {
    expect(encodeBase58(new Uint8Array(0))).toBe('');
    expect(encodeBase58(Uint8Array.of(0, 0, 0x61))).toBe('112g');
    expect(encodeBase58(fromHex('00eb15231dfceb60925886b67d065299925915aeb172c06647'))).toBe('1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L');
    expect(toHex(decodeBase58('1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L', 100)!)).toBe('00eb15231dfceb60925886b67d065299925915aeb172c06647');
    expect(decodeBase58('1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L', 24)).toBeNull();
    expect(decodeBase58(' 2g x', 100)).toBeNull();
    expect(decodeBase58('2g\0', 100)).toBeNull();
    expect(toHex(decodeBase58(' 112g ', 100)!)).toBe('000061');
    expect(decodeBase58Check('1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L', 21)).toBeNull(); // not a checksummed string
    const a = encodeBase58Check(Uint8Array.of(1, 2, 3));
    expect(toHex(decodeBase58Check(a, 3)!)).toBe('010203');
    expect(decodeBase58Check(a, 2)).toBeNull();
  });
});
