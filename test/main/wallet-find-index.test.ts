/**
 * The receive-index search (#17, 5,000-address gaps without freezing): the index of an address far
 * ahead is found, in chunks with the event loop let run between them — timers and I/O of the main
 * process keep being served while thousands of addresses are derived — and an address of another
 * wallet is refused with a clear message.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { findReceiveIndex } from '../../electron/main/wallet/service';
import { NETWORKS } from '../../shared/bitcoin/networks';
import { WalletAddresses, importWallet } from '../../shared/wallet/index';
import { KEY_INPUTS, NODE } from '../wallet/vectors';

const k = KEY_INPUTS.tr86;
const wallet = importWallet(k.xpub, NETWORKS.regtest, { fingerprint: k.fingerprint, path: k.path, scriptType: k.scriptType });

describe('findReceiveIndex', () => {
  it('finds index 4,900 from 0, yielding to the event loop between chunks', async () => {
    const derive = WalletAddresses.of(wallet);
    const target = WalletAddresses.of(wallet).address('receive', 4900);
    let ticks = 0;
    let running = true;
    const spin = (): void => {
      ticks++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const index = await findReceiveIndex(derive, target, 0);
    const elapsed = performance.now() - started;
    delay.disable();
    running = false;
    expect(index).toBe(4900);
    // Five chunks of 1,000 searched: other work ran between them.
    expect(ticks).toBeGreaterThanOrEqual(4);
    // The longest stall is about one chunk, far from the whole search (a search in one go stalls for all of it).
    expect(delay.max / 1e6).toBeLessThan(elapsed * 0.6);
  }, 60_000);

  it('an address of another wallet: refused, after a bounded search', async () => {
    const derive = WalletAddresses.of(wallet);
    await expect(findReceiveIndex(derive, NODE['caravan']!.node.receive['0-2'][0]!, 0, 2000)).rejects.toThrow(/is not one of this wallet's receive addresses/);
  }, 60_000);
});
