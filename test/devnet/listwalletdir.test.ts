/**
 * listwalletdir (#17, attach to a wallet already on the node): every wallet of the wallets directory,
 * loaded or not, as Core answers — {"wallets":[{"name":…,"warnings":[]}]} (checked against real Core
 * 31.99 and 30.99: the same shape; their order is the directory's, so compared as a set) — and an
 * argument refused with -1 and Core's help text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { HELP_LISTWALLETDIR } from '../../devnet/rpc/help';
import { TestRpc } from '../support/rpc';

describe('listwalletdir', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'u', rpcPassword: 'p', scenario: 'empty' });
    rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
  });
  afterAll(async () => {
    await devnet?.close();
  });

  it('lists loaded and unloaded wallets alike, each with an empty warnings array', async () => {
    expect(await rpc.call('listwalletdir')).toEqual({ wallets: [] });
    await rpc.call('createwallet', ['zz', true, true]);
    await rpc.call('createwallet', ['aa']);
    await rpc.call('createwallet', ['mm']);
    await rpc.call('unloadwallet', ['mm']);
    const r = await rpc.call<{ wallets: Array<{ name: string; warnings: string[] }> }>('listwalletdir');
    expect(Object.keys(r)).toEqual(['wallets']);
    expect(r.wallets.map((w) => Object.keys(w))).toEqual([['name', 'warnings'], ['name', 'warnings'], ['name', 'warnings']]);
    expect(r.wallets.map((w) => w.name).sort()).toEqual(['aa', 'mm', 'zz']);
    expect(r.wallets.every((w) => w.warnings.length === 0)).toBe(true);
    expect(await rpc.call<string[]>('listwallets')).not.toContain('mm');
    // On a wallet's endpoint too (it is not a wallet method).
    expect((await rpc.call<{ wallets: unknown[] }>('listwalletdir', [], 'aa')).wallets).toHaveLength(3);
  });

  it('an argument: -1 with Core’s help text', async () => {
    await expect(rpc.call('listwalletdir', [1])).rejects.toMatchObject({ code: -1, message: HELP_LISTWALLETDIR });
    expect(HELP_LISTWALLETDIR.startsWith('listwalletdir\n\nReturns a list of wallets in the wallet directory.\n')).toBe(true);
  });
});
