/**
 * Observable rescans (#17): with a delay per block (`rescanDelayMs`), an importdescriptors with a past
 * timestamp keeps rescanning while other calls are answered — getwalletinfo shows `scanning`
 * {duration, progress}, a second import or rescanblockchain is refused as Core refuses it, and
 * abortrescan stops it (the import then fails with Core's "Rescan aborted by user.") — and a rescan
 * left to finish finds the wallet's history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { TestRpc } from '../support/rpc';

type Info = { scanning: false | { duration: number; progress: number }; txcount: number };

describe('rescans that take time', () => {
  let devnet: Devnet;
  let rpc: TestRpc;
  let descs: Array<{ desc: string; active: boolean; internal?: boolean }>;

  beforeAll(async () => {
    devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', rescanDelayMs: 50 });
    rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
    await rpc.call('createwallet', ['hot']);
    const addr = await rpc.call<string>('getnewaddress', [], 'hot');
    await rpc.call('generatetoaddress', [40, addr]);
    descs = (await rpc.call<{ descriptors: typeof descs }>('listdescriptors', [], 'hot')).descriptors;
  });
  afterAll(async () => {
    await devnet?.close();
  });

  const importAll = (wallet: string): Promise<unknown> =>
    rpc.call('importdescriptors', [descs.map((d) => ({ desc: d.desc, active: d.active, internal: d.internal ?? false, timestamp: 0 }))], wallet);

  it('shows the rescan in getwalletinfo, refuses a second one, and stops on abortrescan', async () => {
    await rpc.call('createwallet', ['slow', true, true]);
    const running = importAll('slow').then(
      () => ({ ok: true }),
      (e: { code: number; message: string }) => ({ ok: false, code: e.code, message: e.message }),
    );
    // Polled until the rescan has gone some way (the import itself derives the keys first, which a
    // busy machine makes slow: no count of polls, only the import's end stops the wait).
    let settled = false;
    void running.then(() => (settled = true));
    let info = await rpc.call<Info>('getwalletinfo', [], 'slow');
    while (!settled && !(info.scanning && info.scanning.progress > 0)) {
      await new Promise((r) => setTimeout(r, 20));
      info = await rpc.call<Info>('getwalletinfo', [], 'slow');
    }
    expect(info.scanning).toMatchObject({ duration: expect.any(Number) as number, progress: expect.any(Number) as number });
    const { progress } = info.scanning as { progress: number };
    expect(progress).toBeGreaterThan(0);
    expect(progress).toBeLessThan(1);
    await expect(importAll('slow')).rejects.toMatchObject({ code: -4, message: 'Wallet is currently rescanning. Abort existing rescan or wait.' });
    await expect(rpc.call('rescanblockchain', [], 'slow')).rejects.toMatchObject({ code: -4 });
    expect(await rpc.call('abortrescan', [], 'slow')).toBe(true);
    expect(await rpc.call('abortrescan', [], 'slow')).toBe(false);
    expect(await running).toEqual({ ok: false, code: -1, message: 'Rescan aborted by user.' });
    expect((await rpc.call<Info>('getwalletinfo', [], 'slow')).scanning).toBe(false);
    // The descriptors were imported; the history was not all found.
    expect((await rpc.call<{ descriptors: unknown[] }>('listdescriptors', [], 'slow')).descriptors.length).toBe(descs.length);
    expect((await rpc.call<Info>('getwalletinfo', [], 'slow')).txcount).toBeLessThan(40);
  });

  it('a rescan left to finish finds every transaction; rescanblockchain too, and can be aborted', async () => {
    await rpc.call('createwallet', ['patient', true, true]);
    expect(await importAll('patient')).toMatchObject(descs.map(() => ({ success: true })));
    expect((await rpc.call<Info>('getwalletinfo', [], 'patient')).txcount).toBe(40);
    expect(await rpc.call('rescanblockchain', [30], 'patient')).toEqual({ start_height: 30, stop_height: 40 });
    const scan = rpc.call('rescanblockchain', [], 'patient').catch((e: { code: number; message: string }) => e);
    // aborted once it shows (not after a guessed time); its 40 blocks × 50 ms leave the abort ample room (one block per timer turn, however slow the machine)
    let ended = false;
    void scan.then(() => (ended = true));
    while (!ended && (await rpc.call<Info>('getwalletinfo', [], 'patient')).scanning === false) await new Promise((r) => setTimeout(r, 10));
    expect(await rpc.call('abortrescan', [], 'patient')).toBe(true);
    expect(await scan).toMatchObject({ code: -1, message: 'Rescan aborted.' });
  });
});
