/**
 * The policy the wallet pages show (shared/wallet/policy-view.ts): the import preview's `policy`
 * (computed in main from the wallet's receive descriptor) and the view of any descriptor.
 */
import { describe, expect, it } from 'vitest';
import { REGTEST } from '../../shared/bitcoin/networks';
import { walletPolicyView } from '../../shared/wallet/policy-view';
import { walletPreviewJob } from '../../electron/main/wallet/preview';
import { FILES } from './vectors';

const XA = 'tpubDEw4nZ7PYWjNb8hsDquhRUdQ7HesUBeUwdJSCFkQ91ok6nRtBwY3YSMox6iFB4iWcDwAUVCV9zdio6HQKEGU7xe2RnHqrWqKvRdRA76s9Jr';
const XB = 'tpubDEVLDZmVHbHSdU9xzaMV6tLPEbFZCoXm7MLW5VkLTpx3rZKwPr1PvbTfFcAwvKBHYwmBuGxyrhE1dVdVVVC8fcHQ85ut49Ut6vzd1tVXBup';

describe('the policy the wallet pages show', () => {
  it("the import preview of a 2-of-3 vault: in words, each key's fingerprint and origin", () => {
    const p = walletPreviewJob({ text: FILES.caravan, chain: 'regtest' });
    expect(p.policy).toEqual({
      words: '2 of A, B, C',
      keyPath: 'none',
      keys: [
        { name: 'A', fingerprint: 'a74008ce', originPath: 'm/48h/1h/0h/1h' },
        { name: 'B', fingerprint: '3eaaf796', originPath: 'm/48h/1h/0h/1h' },
        { name: 'C', fingerprint: '77863c36', originPath: 'm/48h/1h/0h/1h' },
      ],
      paths: [{ id: 'p0', kind: 'script', words: '2 of A, B, C', older: null, after: null }],
    });
    // the same keys as the preview's own key list
    expect(p.policy!.keys.map((k) => k.fingerprint)).toEqual(p.keys.map((k) => k.fingerprint));
  });

  it('a miniscript wallet (as the node lists it, with checksum): the paths and their timelocks', () => {
    const v = walletPolicyView(`wsh(or_d(pk([e11d7cc1/48h/1h/0h/2h]${XA}/<0;1>/*),and_v(v:pkh([e0975ead/48h/1h/0h/2h]${XB}/<0;1>/*),after(200))))`, REGTEST);
    expect(v!.words).toBe('Key A, or key B after block 200');
    expect(v!.paths.map((p) => [p.words, p.older, p.after])).toEqual([
      ['key A', null, null],
      ['key B after block 200', null, { value: 200, unit: 'height' }],
    ]);
  });

  it('addr() has no policy: null, not an error', () => {
    expect(walletPolicyView('addr(bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080)', REGTEST)).toBeNull();
  });
});
