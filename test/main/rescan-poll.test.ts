/**
 * The rescan progress poll (electron/main/wallet/rescan.ts pollScan): once stopped — as soon as the
 * scan call has answered — an answer still on its way is dropped, so the caller's own last word
 * ("done", or "interrupted") stays the last progress shown. On a busy machine real Core answered a poll
 * sent just before the scan's end after the import's "done", and the wallet showed the rescan's
 * progress as unknown (wallet-core, CI).
 *
 * The node here is a stand-in whose answers the test releases one by one (the order is the point:
 * no timing); the poll's timer is vitest's fake clock.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { pollScan } from '../../electron/main/wallet/rescan';
import type { NodeRpc } from '../../electron/main/connection';
import type { WalletScanProgress } from '../../shared/ipc/contract';

afterEach(() => {
  vi.useRealTimers();
});

/** A node whose getwalletinfo answers wait until the test releases them. */
function heldNode(): { rpc: NodeRpc; calls: Array<(scanning: false | { duration: number; progress: number }) => void> } {
  const calls: Array<(scanning: false | { duration: number; progress: number }) => void> = [];
  const rpc = {
    call: (method: string) => {
      expect(method).toBe('getwalletinfo');
      return new Promise((resolve) => calls.push((scanning) => resolve({ scanning })));
    },
  } as unknown as NodeRpc;
  return { rpc, calls };
}

it('reports progress while it runs, and drops an answer that comes back after it was stopped', async () => {
  vi.useFakeTimers();
  const { rpc, calls } = heldNode();
  const seen: WalletScanProgress[] = [];
  const stop = pollScan(rpc, 'vault', (p) => seen.push(p));

  await vi.advanceTimersByTimeAsync(500);
  expect(calls).toHaveLength(1);
  calls[0]!({ duration: 3, progress: 0.25 });
  await vi.advanceTimersByTimeAsync(0);
  expect(seen).toEqual([{ walletName: 'vault', scanning: true, progress: 0.25, durationSeconds: 3 }]);

  await vi.advanceTimersByTimeAsync(500);
  expect(calls).toHaveLength(2);
  stop(); // the scan call answered while this poll was on its way
  calls[1]!(false);
  await vi.advanceTimersByTimeAsync(2_000);
  expect(seen).toHaveLength(1);
  expect(calls).toHaveLength(2); // and no poll after the stop
});
