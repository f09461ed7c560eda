/**
 * Issue #32: a miniscript wallet through the import service on the devnet (which imports descriptors
 * through the shared descriptor code): the preview shows the policy in words and the first addresses
 * Bitcoin Core 31.99 derives (test/fixtures/miniscript/core-31.99.jsonl), the import creates a blank
 * watch-only wallet holding the receive and change descriptors, and Receive hands out address 0 —
 * the node's own, equal to Core's recording — with each key's path.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import type { SpyglassApp } from '../../electron/main/app';
import type { ReceiveAddressView, WalletImportResult, WalletPreview } from '../../shared/ipc/contract';
import { dispatchOk, startProfiledApp } from '../support/app';
import { POLICIES, watchDescriptor } from '../support/miniscript-policies';
import { TestRpc } from '../support/rpc';

const DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'miniscript');
const policy = POLICIES.find((p) => p.name === 'A, or B after 10 blocks')!;
const descriptor = watchDescriptor(policy);
const recorded = readFileSync(join(DIR, 'core-31.99.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { descriptor: string; range?: [number, number]; addresses?: string[] })
  .find((r) => r.addresses && r.range?.[0] === 0 && r.descriptor.split('#')[0] === descriptor.split('#')[0])!;

describe('a miniscript wallet through the import service (devnet)', () => {
  let devnet: Devnet;
  let app: SpyglassApp;
  let dir: string;
  let rpc: TestRpc;

  beforeAll(async () => {
    devnet = await startDevnet({ scenario: 'demo', rpcUser: 'u', rpcPassword: 'p' });
    rpc = new TestRpc(devnet.rpcUrl, 'u', 'p');
    ({ app, dir } = await startProfiledApp({ prefix: 'policy', name: 'Node', nodeUrl: devnet.rpcUrl, indexUrl: devnet.indexUrl, rpcUser: 'u', password: 'p' }));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await devnet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('preview: the policy in words, its two keys, the first addresses Core derives', async () => {
    expect(recorded.addresses!.length).toBeGreaterThanOrEqual(3);
    const p = await dispatchOk<WalletPreview>(app, 'wallet:preview', { text: descriptor });
    expect({ format: p.format, scriptType: p.scriptType, name: p.scriptTypeName, policyWallet: p.policyWallet, keys: p.keys.length, external: p.external }).toEqual({
      format: 'descriptor',
      scriptType: 'p2wsh',
      name: 'Miniscript policy (P2WSH)',
      policyWallet: true,
      keys: 2,
      external: descriptor,
    });
    expect(p.internal?.split('#')[0]).toBe(descriptor.split('#')[0]!.replaceAll('/0/*', '/1/*'));
    expect(p.firstAddresses.map((a) => a.address)).toEqual(recorded.addresses!.slice(0, 3));
    expect(p.policy?.words).toMatch(/after 10 blocks/);
    expect(p.policy?.keys.map((k) => k.fingerprint)).toEqual(p.keys.map((k) => k.fingerprint));
  });

  it('import: a blank watch-only wallet with the receive and change descriptors; Receive hands out address 0', async () => {
    const r = await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: descriptor, walletName: 'policy', rescan: { from: 'now' } });
    expect(r).toMatchObject({ walletName: 'policy', descriptors: 2 });
    const listed = await rpc.call<{ descriptors: Array<{ desc: string; active: boolean; internal: boolean }> }>('listdescriptors', [], 'policy');
    expect(listed.descriptors.map((d) => [d.desc.split('#')[0], d.active, d.internal]).sort()).toEqual(
      [
        [descriptor.split('#')[0], true, false],
        [descriptor.split('#')[0]!.replaceAll('/0/*', '/1/*'), true, true],
      ].sort(),
    );
    const s = app.services.connectionState();
    expect(s.state === 'connected' && s.report.node.wallet).toBe('policy');
    const a = await dispatchOk<ReceiveAddressView>(app, 'wallet:receive', {});
    expect({ address: a.address, index: a.index, source: a.source }).toEqual({ address: recorded.addresses![0], index: 0, source: 'node' });
    expect(a.paths.map((k) => k.path)).toEqual(['m/48h/1h/0h/2h/0/0', 'm/48h/1h/0h/2h/0/0']);
    expect(a.policy?.words).toMatch(/after 10 blocks/);
  });
});
