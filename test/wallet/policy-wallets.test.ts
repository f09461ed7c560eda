/**
 * Issue #32: the wallet layer watches policy wallets — miniscript in wsh() and sh(wsh()), tr() with
 * multi_a/sortedmulti_a and miniscript leaves, script trees (shared/wallet/shape.ts kind 'policy',
 * policy-wallet.ts). Addresses are checked against Bitcoin Core's deriveaddresses, recorded with the
 * shipped Core builds (test/fixtures/miniscript/core-*.jsonl, scripts/record-miniscript.ts); what Core
 * refuses is refused in Core's words; the descriptors export and import back unchanged; BSMS 1.0,
 * which cannot express a policy, is refused saying so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { deriveAddresses } from '../../shared/bitcoin/descriptor';
import { REGTEST } from '../../shared/bitcoin/networks';
import { exportBsms, exportDescriptors, importWallet, WalletAddresses, WalletImportError } from '../../shared/wallet/index';
import { importDescriptors } from '../../shared/wallet/descriptors';
import { walletPolicyView } from '../../shared/wallet/policy-view';
import { POLICIES, watchDescriptor } from '../support/miniscript-policies';
import { expectImportError, fingerprint, master } from './helpers';

const DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'miniscript');
interface Recording {
  core: string;
  note: string;
  descriptor: string;
  range?: [number, number] | null;
  addresses?: string[] | string[][];
  info?: { descriptor: string; multipath_expansion?: string[] };
  info_error?: string;
  error?: string;
}
const recordings = (v: string): Recording[] =>
  readFileSync(join(DIR, `core-${v}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Recording);

const strip = (d: string): string => d.split('#')[0]!;
const ISSUE_POLICIES = POLICIES.slice(0, 4).map((p) => p.name).concat('tr key path A plus a leaf: B after 10 blocks');

describe.each(['31.99', '30.99'])('policy wallets: addresses equal Bitcoin Core %s', (v) => {
  const all = recordings(v);

  it.each(POLICIES.map((p) => [p.name, p] as const))('%s: watched, receive addresses as Core derives them, change on /1/*, export round trip', (_, p) => {
    const text = watchDescriptor(p);
    const rec = all.find((r) => r.addresses && r.range && strip(r.descriptor) === strip(text));
    // the issue's five policies are in the address recordings; the later ones only in the fill and
    // finalize recordings, so their addresses are checked against the descriptor port (itself Core-exact)
    if (ISSUE_POLICIES.includes(p.name)) expect(rec).toBeDefined();
    const w = importWallet(text, REGTEST);
    expect(w.policy).toBe(true);
    expect(w.format).toBe('descriptor');
    expect(w.keys.length).toBe(new Set(w.keys.map((k) => k.xpub)).size);
    const addr = WalletAddresses.of(w);
    const [a, b] = rec?.range ?? [0, 2];
    const expected = rec?.addresses ?? deriveAddresses(text, REGTEST, [a, b]);
    expect(addr.addresses('receive', a, b - a + 1)).toEqual(expected);
    expect([addr.address('receive', a), addr.details('receive', b).address]).toEqual([expected[0], expected[b - a]]);
    // change: the same policy on /1/* (Core reads it; its address is the descriptor port's)
    expect(w.internal).toBe(importWallet(text.split('#')[0]!.replaceAll('/0/*', '/1/*'), REGTEST).external);
    // export: the multipath form imports back to the same wallet
    const out = exportDescriptors(w);
    expect(out.multipath).toMatch(/\/<0;1>\/\*/);
    const back = importWallet(out.multipath!, REGTEST);
    expect({ external: back.external, internal: back.internal, keys: back.keys }).toEqual({ external: w.external, internal: w.internal, keys: w.keys });
    expect(importWallet(out.text, REGTEST).external).toBe(w.external);
    // BSMS 1.0 cannot express it
    expectImportError(() => exportBsms(w), 'script-type', 'wallet', /BSMS 1\.0 cannot express/);
    // the policy in words, from the stored receive descriptor
    expect(walletPolicyView(w.external, REGTEST)?.words).toBeTruthy();
  });

  it('every ranged policy Core derived is watched with its addresses; every one Core refused is refused in its words', () => {
    let watched = 0;
    let refused = 0;
    for (const r of all) {
      if (!/^(wsh|sh\(wsh|tr)\(/.test(r.descriptor) || !r.descriptor.includes('*')) continue;
      if (r.info_error) {
        const e = (() => {
          try {
            importDescriptors([{ text: r.descriptor, field: 'descriptor' }], REGTEST);
          } catch (x) {
            return x;
          }
          return null;
        })();
        expect(e, r.note).toBeInstanceOf(WalletImportError);
        expect((e as WalletImportError).message, r.note).toBe(r.info_error);
        refused++;
      } else if (r.addresses && r.range) {
        const w = importDescriptors([{ text: r.descriptor, field: 'descriptor' }], REGTEST);
        const [a, b] = r.range;
        const multi = r.info?.multipath_expansion !== undefined;
        const addr = WalletAddresses.of(w);
        const ours = multi ? [addr.addresses('receive', a, b - a + 1), addr.addresses('change', a, b - a + 1)] : addr.addresses('receive', a, b - a + 1);
        expect(ours, r.note).toEqual(r.addresses);
        watched++;
      }
    }
    expect({ watched: watched > 10, refused: refused > 3 }).toEqual({ watched: true, refused: true });
  });
});

describe('policy wallets: what the wallet layer refuses', () => {
  const acct = (label: string): string => {
    const m = master(label);
    return `[${fingerprint(m)}/48h/1h/0h/2h]${m.derive("m/48'/1'/0'/2'").publicExtendedKey}`;
  };
  const [a, b] = [acct('policy a'), acct('policy b')];

  it('a hardened step after an xpub: only the private key derives it', () => {
    expectImportError(() => importWallet(`wsh(or_d(pk(${a}/0/*),and_v(v:pkh(${b}/0h/*),older(10))))`, REGTEST), 'derivation', 'descriptor', /hardened step after it/);
  });

  it('sh(miniscript) and descriptors that are not one wallet: refused', () => {
    // Core: miniscript only inside wsh() or tr() — its parser's words
    expect(() => importWallet(`sh(or_d(pk(${a}/0/*),and_v(v:pkh(${b}/0/*),older(10))))`, REGTEST)).toThrow(WalletImportError);
    // receive and change of two different policies
    expectImportError(
      () => importWallet(`wsh(or_d(pk(${a}/0/*),and_v(v:pkh(${b}/0/*),older(10))))\nwsh(or_d(pk(${a}/1/*),and_v(v:pkh(${b}/1/*),older(11))))`, REGTEST),
      'derivation',
      'line 2',
      /not the receive and change halves/,
    );
  });

  it('sh(wsh(miniscript)) is watched (Core reads it), change from /1/*', () => {
    const w = importWallet(`sh(wsh(or_d(pk(${a}/0/*),and_v(v:pkh(${b}/0/*),older(10)))))`, REGTEST);
    expect({ type: w.scriptType, policy: w.policy, first: WalletAddresses.of(w).address('receive', 0).startsWith('2') }).toEqual({ type: 'p2sh-p2wsh', policy: true, first: true });
  });
});
