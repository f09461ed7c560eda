// Rescans that a node stop interrupts (#17): every rescan started here (importdescriptors with a past
// timestamp, or rescanblockchain run again) is recorded in SQLite before the call and cleared when the
// node answers. A record left behind — the connection dropped during the call, or the app itself was
// closed — means the wallet's past may be incomplete: the wallet says so, and "Run the rescan again"
// runs rescanblockchain from the recorded start height, with progress as for an import.
import { AppError, isAppError, type ErrorCode } from '../../../shared/errors';
import type { WalletRescanResult, WalletRescanStatus, WalletScanProgress } from '../../../shared/ipc/wallet';
import type { NodeRpc } from '../connection';
import { sleep } from '../net/http';
import type { ActiveConnection } from '../services';
import type { RescanRecord } from '../store/wallets';
import type { WalletServiceDeps } from './service';

const SCAN_POLL_MS = 500;
/** A rescan of a real chain takes long: the call may wait for it. */
export const RESCAN_TIMEOUT_MS = 6 * 60 * 60 * 1000;
/** Core's TIMESTAMP_WINDOW: a rescan from a time starts this much earlier (block times are loose). */
const TIMESTAMP_WINDOW = 2 * 60 * 60;
/**
 * How long after a scan's answer the node is asked whether it is still up. Real Core cut short by a
 * shutdown answers the scan call as its rescan thread sees the shutdown flag, and its HTTP server stops
 * taking calls only when the main thread gets to it: on a loaded machine one more call was answered in
 * between (Core 30.99 in CI), and an interrupted import passed for a finished one. A second is far
 * beyond that window, and nothing next to a rescan's own duration.
 */
export const RESCAN_SETTLE_MS = 1_000;

/** The failures that mean "the node (or the way to it) went away", not "the node refused". */
export function isConnectionDrop(e: unknown): boolean {
  if (!isAppError(e)) return false;
  const drops: ErrorCode[] = ['net.refused', 'net.reset', 'net.timeout', 'net.unreachable', 'rpc.warming_up', 'rpc.http'];
  return drops.includes(e.code);
}

/** rescanblockchain's answer when its rescan was cut short — by a shutdown (or abortrescan): Core's "Rescan aborted." */
function isAbortedRescan(e: unknown): boolean {
  return isAppError(e) && e.code === 'rpc.error' && e.detail?.coreMessage === 'Rescan aborted.';
}

/**
 * importdescriptors' reply when the descriptors went in but the rescan stopped short — a node shutting
 * down ends it so (wallet/rpc/backup.cpp: "Rescan failed for descriptor with timestamp …"): every
 * request either succeeded or failed with that message.
 */
export function isRescanFailure(results: Array<{ success: boolean; error?: { message: string } }>): boolean {
  return results.some((r) => !r.success) && results.every((r) => r.success || /^Rescan failed for descriptor with timestamp /.test(r.error?.message ?? ''));
}

/** The first block a rescan from UNIX time `time` must read (Core starts TIMESTAMP_WINDOW earlier); 0 for the whole chain. */
export async function startHeightFor(rpc: NodeRpc, time: number): Promise<number> {
  if (time <= 0) return 0;
  const target = time - TIMESTAMP_WINDOW;
  const blockTime = async (h: number): Promise<number> => {
    const hash = await rpc.call<string>('getblockhash', [h], { wallet: false });
    return (await rpc.call<{ time: number }>('getblockheader', [hash, true], { wallet: false })).time;
  };
  const tip = await rpc.call<number>('getblockcount', [], { wallet: false });
  // The lowest height whose block time reaches the target (block times mostly rise; an earlier start is harmless).
  let lo = 0;
  let hi = tip;
  if ((await blockTime(tip)) < target) return tip;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await blockTime(mid)) >= target) hi = mid;
    else lo = mid + 1;
  }
  return Math.max(0, lo - 1);
}

const day = (unix: number): string => new Date(unix * 1000).toISOString().slice(0, 10);
const minute = (iso: string): string => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** What the wallet says about a rescan the node stopped. */
export function interruptedMessage(r: Pick<RescanRecord, 'nodeWallet' | 'startHeight' | 'fromTime' | 'startedAt'>): string {
  const scope = r.fromTime > 0 ? `payments since ${day(r.fromTime)}` : 'payments since the start of the chain';
  return `The rescan of "${r.nodeWallet}" was interrupted by the node stopping — history before ${minute(r.startedAt)} may be missing (it looked for ${scope}, from block ${r.startHeight}). Run the rescan again.`;
}

/**
 * Polls getwalletinfo.scanning while a rescan call runs; returns the stop function, to call as soon as
 * the scan call has answered. An answer still on its way then is dropped: the caller's own last word
 * (done, or interrupted) stays the last progress shown.
 */
export function pollScan(rpc: NodeRpc, walletName: string, onProgress: (p: WalletScanProgress) => void): () => void {
  let stopped = false;
  const timer = setInterval(() => {
    void rpc.call<{ scanning?: false | { duration: number; progress: number } }>('getwalletinfo', [], { wallet: walletName, timeoutMs: 5_000 }).then(
      (info) => {
        if (!stopped) onProgress({ walletName, scanning: !!info.scanning, progress: info.scanning ? info.scanning.progress : null, durationSeconds: info.scanning ? info.scanning.duration : null });
      },
      () => undefined,
    );
  }, SCAN_POLL_MS);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * Runs `scan` (the importdescriptors or rescanblockchain call) with its record: written first, removed
 * once the node is seen still up after its answer. Real Core cut short by a shutdown still answers —
 * importdescriptors with success (its log: "Rescan interrupted by shutdown request at block …"),
 * rescanblockchain with "Rescan aborted." — so a success proves nothing: `alive` asks the node once
 * more, RESCAN_SETTLE_MS after the answer, and a dropped connection there, or during the call, keeps the
 * record and becomes the "interrupted" error (its code the transport's, its detail saying so). So does
 * "Rescan aborted.", whether the node then stays up or not.
 */
export async function recorded<T>(
  deps: WalletServiceDeps,
  profileId: string,
  walletName: string,
  r: { startHeight: number; fromTime: number; kind: RescanRecord['kind'] },
  scan: () => Promise<T>,
  alive: () => Promise<unknown>,
  onDrop?: () => void,
): Promise<T> {
  const rec = deps.wallets.startRescan(profileId, walletName, r);
  const interrupted = (e: AppError, said = e.message): AppError => {
    onDrop?.();
    deps.log.warn(`wallet ${walletName}: the rescan was interrupted (${e.code})`);
    return new AppError(e.code, `${interruptedMessage(rec)} (${said})`, { walletName, rescanInterrupted: true, startHeight: rec.startHeight });
  };
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await scan() };
  } catch (e) {
    if (isConnectionDrop(e)) throw interrupted(e as AppError);
    if (isAbortedRescan(e)) throw interrupted(e as AppError, 'the node: Rescan aborted.');
    outcome = { ok: false, error: e };
  }
  await sleep(RESCAN_SETTLE_MS);
  try {
    await alive();
  } catch (e) {
    if (isConnectionDrop(e)) throw interrupted(e as AppError);
  }
  deps.wallets.clearRescan(profileId, walletName);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** The profile wallet's recorded rescan that has not finished, or null. */
export async function rescanStatus(deps: WalletServiceDeps, conn: ActiveConnection, runningHere: string | null): Promise<WalletRescanStatus | null> {
  const walletName = conn.report.node.wallet;
  if (!walletName) return null;
  const rec = deps.wallets.rescan(conn.profile.id, walletName);
  if (!rec) return null;
  let running = runningHere === walletName;
  if (!running) {
    const info = await conn.rpc.call<{ scanning?: false | { progress: number } }>('getwalletinfo', [], { wallet: walletName });
    running = !!info.scanning;
  }
  const base = { walletName, startHeight: rec.startHeight, fromTime: rec.fromTime, startedAt: rec.startedAt };
  return running
    ? { ...base, state: 'running', message: `The node is still rescanning "${walletName}" (started ${minute(rec.startedAt)}): its history fills in as it goes.` }
    : { ...base, state: 'interrupted', message: interruptedMessage(rec) };
}

/** "Run the rescan again": rescanblockchain from the recorded start height, recorded the same way. */
export async function rescanAgain(deps: WalletServiceDeps, conn: ActiveConnection, onProgress: (p: WalletScanProgress) => void): Promise<WalletRescanResult> {
  const walletName = conn.report.node.wallet;
  const rec = walletName ? deps.wallets.rescan(conn.profile.id, walletName) : null;
  if (!walletName || !rec) throw new AppError('input.invalid', 'This wallet has no interrupted rescan to run again.', { walletName });
  const info = await conn.rpc.call<{ scanning?: false | { progress: number } }>('getwalletinfo', [], { wallet: walletName });
  if (info.scanning) throw new AppError('input.invalid', `The node is still rescanning "${walletName}": wait for it to finish, or stop it first.`, { walletName });
  const stop = pollScan(conn.rpc, walletName, onProgress);
  try {
    const res = await recorded(
      deps,
      conn.profile.id,
      walletName,
      { startHeight: rec.startHeight, fromTime: rec.fromTime, kind: 'rescan' },
      () => conn.rpc.call<{ start_height: number; stop_height: number }>('rescanblockchain', [rec.startHeight], { wallet: walletName, timeoutMs: RESCAN_TIMEOUT_MS }).finally(stop),
      () => conn.rpc.call('getwalletinfo', [], { wallet: walletName }),
    );
    onProgress({ walletName, scanning: false, progress: 1, durationSeconds: null });
    deps.log.info(`wallet ${walletName}: rescanned blocks ${res.start_height}–${res.stop_height}`);
    return { walletName, startHeight: res.start_height, stopHeight: res.stop_height };
  } finally {
    stop();
  }
}
