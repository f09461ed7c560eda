// What the desktop shell sends the window: a bitcoin: link to show (taken from main once, at start and
// whenever main says one is waiting) and the application menu's commands.
import type { Router } from 'vue-router';
import type { MenuAction } from '../../../shared/ipc/contract';
import { onEventsOpen, onMenuAction, onUriOpened, takeUri } from '../api/spyglass';

const ROUTES: Record<Exclude<MenuAction, 'refresh'>, string> = {
  'go:dashboard': 'dashboard',
  'go:balances': 'balances',
  'go:history': 'history',
  'go:labels': 'labels',
  'go:reconcile': 'reconcile',
  'go:psbt': 'psbt',
  'go:settings': 'settings',
};

export function installShell(router: Router, refresh: () => void): () => void {
  let taking = false;
  const take = async (): Promise<void> => {
    if (taking) return;
    taking = true;
    try {
      const { uri } = await takeUri();
      if (uri) await router.push({ name: 'pay', query: { uri } });
    } catch {
      // Main is unreachable: nothing to show; the link stays with the OS.
    } finally {
      taking = false;
    }
  };
  const offs = [
    onUriOpened(() => void take()),
    // Events missed while the bridge's stream was down (a reconnect).
    onEventsOpen(() => void take()),
    onMenuAction((action) => {
      if (action === 'refresh') refresh();
      else void router.push({ name: ROUTES[action] });
    }),
  ];
  // A link that arrived before this window subscribed (the app was started by the link).
  void take();
  return () => offs.forEach((off) => off());
}
