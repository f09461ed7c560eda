/**
 * Offline derivation equals Bitcoin Core: the recordings in ../shared/fixtures/core (deriveaddresses,
 * the vault's getnewaddress/getrawchangeaddress and listunspent desc), the frozen answers of a real
 * node for the test wallets (vectors.ts), BIP129's and SLIP-132's own vectors, and the project's
 * Core port of descriptors (shared/bitcoin/descriptor.ts) on many indices.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveAddresses, parseDescriptor } from '../../shared/bitcoin/descriptor';
import { MAINNET, REGTEST } from '../../shared/bitcoin/networks';
import { importWallet, WalletAddresses, type WalletDescription } from '../../shared/wallet/index';
import { FIXTURES_DIR } from '../fixtures';
import { FILES, KEY_INPUTS, NODE } from './vectors';

interface Rec {
  group: string;
  name: string;
  request: { path: string; body: string };
  response: { body: { result: unknown } };
}

const spend: Rec[] = readFileSync(join(FIXTURES_DIR, 'core', 'bitcoin-core-spend.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Rec);

function rec(group: string, name: string): Rec {
  const r = spend.find((x) => x.group === group && x.name === name);
  if (!r) throw new Error(`no recording ${group} / ${name}`);
  return r;
}

function params(r: Rec): unknown[] {
  return (JSON.parse(r.request.body) as { params: unknown[] }).params;
}

const VAULT = (params(rec('importdescriptors', 'multisig external + internal, active'))[0] as { desc: string }[]).map((d) => d.desc);

describe('derivation against the Core recordings', () => {
  it('deriveaddresses: wpkh 0–4, tr 0–5, wsh(sortedmulti) 0–2', () => {
    for (const name of ['wpkh range 0-4', 'tr range 5', 'sortedmulti range 0-2']) {
      const r = rec('deriveaddresses', name);
      const [desc, range] = params(r) as [string, number | [number, number]];
      const [lo, hi] = typeof range === 'number' ? [0, range] : range;
      const w = new WalletAddresses(desc, null, REGTEST);
      expect(w.addresses('receive', lo, hi - lo + 1)).toEqual(r.response.body.result);
    }
  });

  it("the vault's first receive and change addresses (getnewaddress, getrawchangeaddress) and its listunspent desc", () => {
    const w = new WalletAddresses(VAULT[0]!, VAULT[1]!, REGTEST);
    expect(w.address('receive', 0)).toBe(rec('getnewaddress', 'vault multisig').response.body.result);
    expect(w.address('change', 0)).toBe(rec('getrawchangeaddress', 'vault multisig').response.body.result);
    const utxo = (rec('listunspent', 'vault').response.body.result as { address: string; desc: string; witnessScript: string; scriptPubKey: string }[])[0]!;
    const d = w.details('receive', 0);
    expect(d.address).toBe(utxo.address);
    expect(d.descriptor).toBe(utxo.desc);
    expect(d.witnessScript).toBe(utxo.witnessScript);
    expect(d.scriptPubKey).toBe(utxo.scriptPubKey);
    expect(d.keys.map((k) => `${k.fingerprint} ${k.path}`)).toEqual(['a0ca0919 m/84h/1h/0h/0/0', '50fb541c m/84h/1h/0h/0/0', 'a33d23d8 m/84h/1h/0h/0/0']);
  });

  it("a watch-only wallet's listdescriptors (every single-key type) imported back derives what the Core port derives", () => {
    const text = JSON.stringify(rec('listdescriptors', 'watch-only wallet').response.body.result);
    for (const t of ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr'] as const) {
      const w = importWallet(text, REGTEST, { scriptType: t });
      const a = WalletAddresses.of(w);
      expect(a.addresses('receive', 0, 20)).toEqual(deriveAddresses(w.external, REGTEST, [0, 19]));
      expect(a.addresses('change', 5, 10)).toEqual(deriveAddresses(w.internal!, REGTEST, [5, 14]));
    }
  });
});

/** Imports one of the frozen test wallets the way a user would. */
function testWallet(name: string): WalletDescription {
  if (name in FILES) return importWallet(FILES[name as keyof typeof FILES], REGTEST);
  const k = KEY_INPUTS[name as keyof typeof KEY_INPUTS] as { xpub: string; fingerprint?: string; path?: string; scriptType?: 'p2tr' };
  return importWallet(k.xpub, REGTEST, { ...(k.fingerprint ? { fingerprint: k.fingerprint } : {}), ...(k.path ? { path: k.path } : {}), ...(k.scriptType ? { scriptType: k.scriptType } : {}) });
}

describe('derivation against a real node (frozen answers, vectors.ts)', () => {
  for (const [name, v] of Object.entries(NODE)) {
    it(`${name} (${v.scriptType}): descriptors with Core's checksums, addresses 0–2 and 9999 of both branches, getaddressinfo desc`, () => {
      const w = testWallet(name);
      expect(w.scriptType).toBe(v.scriptType);
      expect(w.external).toBe(v.external);
      expect(w.internal).toBe(v.internal);
      const a = WalletAddresses.of(w);
      for (const b of ['receive', 'change'] as const) {
        expect(a.addresses(b, 0, 3)).toEqual(v.node[b]['0-2']);
        expect(a.address(b, 9999)).toBe(v.node[b]['9999']);
        expect(a.addresses(b, 9998, 2)[1]).toBe(v.node[b]['9999']);
        const d = a.details(b, 2);
        const info = v.node.addressinfo[b];
        expect(d.address).toBe(info.address);
        expect(d.descriptor).toBe(info.desc);
        if (info.hdkeypath) expect(d.keys[0]!.path).toBe(info.hdkeypath);
      }
    });
  }
});

describe('derivation against published vectors', () => {
  it("BIP129's NO_ENCRYPTION descriptor record: its first address", () => {
    const record = [
      'BSMS 1.0',
      "wsh(sortedmulti(2,[1cf0bf7e/48'/0'/0'/2']xpub6FL8FhxNNUVnG64YurPd16AfGyvFLhh7S2uSsDqR3Qfcm6o9jtcMYwh6DvmcBF9qozxNQmTCVvWtxLpKTnhVLN3Pgnu2D3pAoXYFgVyd8Yz/**,[4fc1dd4a/48'/0'/0'/2']xpub6EebMbEps7ZcV3FYEnddRsvrFWDrt2tiPmCeM7pPXQEmphvq9ZfJ1LWFUDjf3vxCeBuPrfyGrMazWUsYsetrnHatQZVLJH7LsgCjtMqdzgj/**))",
      '/0/*,/1/*',
      'bc1qrgc6p3kylfztu06ysl752gwwuekhvtfh9vr7zg43jvu60mutamcsv948ej',
    ].join('\n');
    const w = importWallet(record, MAINNET);
    expect(WalletAddresses.of(w).address('receive', 0)).toBe('bc1qrgc6p3kylfztu06ysl752gwwuekhvtfh9vr7zg43jvu60mutamcsv948ej');
  });

  it("SLIP-132's test vectors: the m/…/0/0 address of the xpub, ypub and zpub of 'abandon … about'", () => {
    const cases: [string, string][] = [
      ['xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj', '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA'],
      ['ypub6Ww3ibxVfGzLrAH1PNcjyAWenMTbbAosGNB6VvmSEgytSER9azLDWCxoJwW7Ke7icmizBMXrzBx9979FfaHxHcrArf3zbeJJJUZPf663zsP', '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf'],
      ['zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'],
    ];
    for (const [key, address] of cases) expect(WalletAddresses.of(importWallet(key, MAINNET)).address('receive', 0)).toBe(address);
  });
});

describe('derivation against the Core port of descriptors (shared/bitcoin/descriptor.ts)', () => {
  it('agrees on scattered indices of every test wallet, both branches', () => {
    for (const name of Object.keys(NODE)) {
      const w = testWallet(name);
      const a = WalletAddresses.of(w);
      for (const [b, d] of [['receive', w.external], ['change', w.internal!]] as const) {
        const desc = parseDescriptor(d, REGTEST);
        for (const i of [0, 1, 63, 64, 65, 1023, 1024, 4096 + 7, 2 ** 31 - 1]) {
          expect(a.address(b, i)).toBe((deriveAddresses(d, REGTEST, [i, i]) as string[])[0]);
          expect(a.details(b, i).descriptor).toBe(desc.expandedString(i));
        }
      }
    }
  });

  it('ranges cross batch boundaries without a gap', () => {
    const w = testWallet('caravan');
    const a = WalletAddresses.of(w);
    const all = a.addresses('change', 1000, 60);
    expect(all).toEqual(deriveAddresses(w.internal!, REGTEST, [1000, 1059]));
    expect(a.addresses('change', 1020, 10)).toEqual(all.slice(20, 30));
  });
});

describe('derivation errors', () => {
  const w = testWallet('vpub');
  const a = WalletAddresses.of(w);
  it('refuses indices outside 0 … 2^31 − 1 and non-integers', () => {
    expect(() => a.address('receive', -1)).toThrow(RangeError);
    expect(() => a.address('receive', 2 ** 31)).toThrow(RangeError);
    expect(() => a.addresses('receive', 2 ** 31 - 1, 2)).toThrow(RangeError);
    expect(() => a.address('receive', 1.5)).toThrow(RangeError);
  });
  it('says when a wallet has no change branch', () => {
    const single = new WalletAddresses(w.external, null, REGTEST);
    expect(single.address('receive', 0)).toBe(a.address('receive', 0));
    expect(() => single.address('change', 0)).toThrow(/no change descriptor/);
  });
  it('refuses descriptors it cannot derive from alone (hardened wildcard, fixed key)', () => {
    const hardened = w.external.split('#')[0]!.replace('/0/*', '/0/*h');
    expect(() => new WalletAddresses(hardened, null, REGTEST)).toThrow(/unhardened path/);
    expect(() => new WalletAddresses('wpkh(02b1a651995c411ea36ee728ab261d26091c1d5c8e100d4be789dd03658899e1c5)', null, REGTEST)).toThrow(/extended public key/);
  });
});
