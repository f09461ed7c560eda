/**
 * Verify on device for a multisig address (electron/main/signer/wallet-descriptor.ts): the wallet's own
 * descriptor at the address — xpubs with their origins, sortedmulti or multi as the wallet is, the
 * `<0;1>` or /0/* and /1/* branch resolved to the address's and * to its index — derived by Spyglass's
 * descriptor code and refused when it is not the address. What the node's getaddressinfo `desc` is made
 * of here comes from Spyglass's port of Core's InferDescriptor (Descriptor.expandedString), the form
 * recorded from Core in ../shared/fixtures/core (getaddressinfo "imported wsh multisig"). The Ledger's
 * rules are the test HWI program's (test/support/hwi-multisig.ts, from HWI 3.2.0's ledger.py).
 */
import { describe, expect, it } from 'vitest';
import { deriveAddresses, parseDescriptor } from '../../shared/bitcoin/descriptor';
import { REGTEST } from '../../shared/bitcoin/networks';
import { indexOfAddress, isMultisig, walletDescriptorAt } from '../../electron/main/signer/wallet-descriptor';
import { SignerError } from '../../electron/main/signer/errors';
import { cosignerKeyOf, withChecksum } from '../support/hwi-devices';
import { checkMultisigFor, readMultisig } from '../support/hwi-multisig';

const keys = ['A', 'B', 'C'].map((k) => cosignerKeyOf(k, 'regtest'));
const wallet = (fn: string, suffix: string, wrap = (s: string) => `wsh(${s})`) => withChecksum(wrap(`${fn}(2,${keys.map((k) => `${k}${suffix}`).join(',')})`));
const addressAt = (desc: string, index: number): string => (deriveAddresses(desc, REGTEST, [index, index]) as string[])[0]!;
/** getaddressinfo's `desc` of the address (Core's InferDescriptor: derived keys in script order, `multi`). */
const nodeDesc = (desc: string, index: number): string => parseDescriptor(desc, REGTEST).expandedString(index);

describe('the wallet’s descriptor at a multisig address', () => {
  it('a `<0;1>` wallet: the branch and index of the address, keys and sortedmulti as written; it derives the address', () => {
    const multipath = wallet('sortedmulti', '/<0;1>/*');
    const receive = addressAt(wallet('sortedmulti', '/0/*'), 5);
    const change = addressAt(wallet('sortedmulti', '/1/*'), 3);
    expect(walletDescriptorAt([multipath], 5, receive, REGTEST)).toBe(wallet('sortedmulti', '/0/5'));
    expect(walletDescriptorAt([multipath], 3, change, REGTEST)).toBe(wallet('sortedmulti', '/1/3'));
    // the stored (or Core's listdescriptors) form: one descriptor per branch
    expect(walletDescriptorAt([wallet('sortedmulti', '/0/*'), wallet('sortedmulti', '/1/*')], 3, change, REGTEST)).toBe(wallet('sortedmulti', '/1/3'));
    expect(deriveAddresses(walletDescriptorAt([multipath], 5, receive, REGTEST)!, REGTEST)).toEqual([receive]);
  });

  it('multi stays multi in the written key order; sh(wsh()) is kept', () => {
    const multi = wallet('multi', '/0/*');
    expect(walletDescriptorAt([multi], 2, addressAt(multi, 2), REGTEST)).toBe(wallet('multi', '/0/2'));
    const nested = wallet('sortedmulti', '/0/*', (s) => `sh(wsh(${s}))`);
    expect(walletDescriptorAt([nested], 7, addressAt(nested, 7), REGTEST)).toBe(wallet('sortedmulti', '/0/7', (s) => `sh(wsh(${s}))`));
  });

  it('the node’s descriptor of the address names its index; the Ledger refuses that descriptor and takes the wallet’s', () => {
    const receive = wallet('sortedmulti', '/0/*');
    const desc = nodeDesc(receive, 5);
    expect(desc).toMatch(/^wsh\(multi\(2,\[[0-9a-f]{8}\/48h\/1h\/0h\/2h\/0\/5\]0[23][0-9a-f]{64},/);
    expect(isMultisig(desc)).toBe(true);
    expect(indexOfAddress(desc)).toBe(5);
    // what HWI 3.2.0's ledger.py and bitbox02.py / coldcard.py ask (the test device's rules)
    expect(() => checkMultisigFor('ledger', readMultisig(desc)!)).toThrow(/requires derivation paths ending with \/0\/\* or \/1\/\*/);
    expect(() => checkMultisigFor('coldcard', readMultisig(desc)!)).toThrow(/only allow sortedmulti/);
    expect(() => checkMultisigFor('bitbox02', readMultisig(desc)!)).toThrow(/only supports sortedmulti/);
    const sent = walletDescriptorAt([receive], indexOfAddress(desc)!, addressAt(receive, 5), REGTEST)!;
    for (const type of ['ledger', 'bitbox02', 'coldcard', 'jade', 'trezor']) expect(() => checkMultisigFor(type, readMultisig(sent)!, [wallet('sortedmulti', '/<0;1>/*')])).not.toThrow();
    // a Ledger that registered the wallet as multi refuses the sortedmulti policy (and the other way round)
    expect(() => checkMultisigFor('ledger', readMultisig(sent)!, [wallet('multi', '/<0;1>/*')])).toThrow(/2-of-3 sortedmulti policy is not the wallet registered on this Ledger \(2-of-3 multi\)/);
  });

  it('no index in the node’s descriptor (keys without a path, or two different last steps): none', () => {
    // recorded from Core 30.99: getaddressinfo "imported wsh multisig"
    expect(indexOfAddress('wsh(multi(2,[ba63029a]037627a4036bf4a36bc111a2045725bf91a81cd90b3045d18e22857363d2f4a367,[93f2a915]039d4853067b256650ae03c2fcd43c7677ec4a64f68e883b7daf04143959d27f15))')).toBeNull();
    expect(indexOfAddress('wsh(multi(1,[00000001/48h/1h/0h/2h/0/5]02aa,[00000002/48h/1h/0h/2h/0/6]02bb))')).toBeNull();
    expect(indexOfAddress('wsh(multi(1,[00000001/48h/1h/0h/2h/0/5h]02aa))')).toBeNull();
  });

  it('no ranged multisig among the candidates (none, single-key, not ranged, unreadable): none, the node’s descriptor is used', () => {
    const addr = addressAt(wallet('sortedmulti', '/0/*'), 1);
    expect(walletDescriptorAt([], 1, addr, REGTEST)).toBeNull();
    expect(walletDescriptorAt([`wpkh(${keys[0]}/0/*)`], 1, addr, REGTEST)).toBeNull();
    expect(walletDescriptorAt([wallet('sortedmulti', '/0/1')], 1, addr, REGTEST)).toBeNull();
    expect(walletDescriptorAt(['wsh(sortedmulti(2,nonsense))'], 1, addr, REGTEST)).toBeNull();
  });

  it('a wallet descriptor that does not give the address at that index is refused: nothing goes to the device', () => {
    const receive = wallet('sortedmulti', '/0/*');
    const addr = addressAt(receive, 4);
    let e: unknown;
    try {
      walletDescriptorAt([receive, wallet('sortedmulti', '/1/*')], 5, addr, REGTEST);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(SignerError);
    expect((e as SignerError).failure).toBe('wrong-descriptor');
    expect((e as SignerError).message).toContain(`does not give ${addr} at index 5 (it gives ${addressAt(receive, 5)}, `);
    // the same keys as multi give other addresses: not taken for the sortedmulti wallet's
    expect(() => walletDescriptorAt([wallet('multi', '/0/*')], 4, addr, REGTEST)).toThrow(SignerError);
  });
});
