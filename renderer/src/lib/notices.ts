// Payment notices from main (an incoming payment, its first confirmation): a toast in the window, and
// in a browser (`npm run web`) the page's own desktop notification when the person allowed them. In
// Electron, main shows the OS notification itself.
import type { PaymentNotice } from '../../../shared/ipc/contract';
import { onNotify } from '../api/spyglass';
import { useToastStore } from '../stores/toast';
import { useWalletsStore } from '../stores/wallets';

/** In a browser over the bridge (no preload's window.api). */
export function inBrowser(): boolean {
  return typeof window !== 'undefined' && (window as { api?: unknown }).api === undefined;
}

export function showNotice(n: PaymentNotice): void {
  // Only the wallet on screen speaks (#26): a payment of another wallet waits for its own refresh.
  const view = useWalletsStore().view;
  if (view && (view.profileId !== n.profileId || (view.wallets.find((w) => w.active)?.name ?? '') !== n.wallet)) return;
  useToastStore().info(`${n.title}: ${n.body}`);
  if (inBrowser() && typeof Notification === 'function' && Notification.permission === 'granted') {
    new Notification(n.title, { body: n.body, tag: `${n.kind}:${n.txid}` });
  }
}

export function installNotices(): () => void {
  return onNotify(showNotice);
}

/** Asks the browser for permission (from a click: browsers ask only then); true when granted. */
export async function askBrowserPermission(): Promise<boolean> {
  if (!inBrowser() || typeof Notification !== 'function') return true;
  if (Notification.permission === 'granted') return true;
  if (Notification.permission === 'denied') return false;
  return (await Notification.requestPermission()) === 'granted';
}
