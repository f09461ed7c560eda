// Hash history: the Electron window loads index.html from file://, where path URLs do not exist.
import { START_LOCATION, createRouter, createWebHashHistory, type Router } from 'vue-router';
import { useConnectionStore } from './stores/connection';
import { useWatchStore } from './stores/watch';
import BalancesView from './views/BalancesView.vue';
import DashboardView from './views/DashboardView.vue';
import WelcomeView from './views/WelcomeView.vue';
import { useProfilesStore } from './stores/profiles';

// The screens the app opens on are in the main bundle; every other one is its own chunk, loaded on
// its first visit, so that starting the app evaluates only what the first screen needs (the PSBT
// review, the profile form with its schema validation, the charts…).
const AddressView = () => import('./views/AddressView.vue');
const HistoryView = () => import('./views/HistoryView.vue');
const LabelsView = () => import('./views/LabelsView.vue');
const ReconcileView = () => import('./views/ReconcileView.vue');
const TransactionView = () => import('./views/TransactionView.vue');
const ProfileFormView = () => import('./views/ProfileFormView.vue');
const PsbtView = () => import('./views/PsbtView.vue');
const SettingsView = () => import('./views/SettingsView.vue');
const PaymentRequestView = () => import('./views/PaymentRequestView.vue');
const ImportWalletView = () => import('./views/ImportWalletView.vue');
const ReceiveView = () => import('./views/ReceiveView.vue');
const TransactionsView = () => import('./views/TransactionsView.vue');
const SendView = () => import('./views/SendView.vue');
const DraftsView = () => import('./views/DraftsView.vue');
const DraftView = () => import('./views/DraftView.vue');
const SignersView = () => import('./views/SignersView.vue');

/** The screens of the active profile's watched addresses: nothing to show without a profile. */
const WATCH_ROUTES = new Set(['balances', 'address', 'tx', 'history', 'reconcile', 'labels', 'receive', 'transactions', 'send', 'drafts', 'draft']);

export function createAppRouter(): Router {
  const router = createRouter({
    history: createWebHashHistory(),
    routes: [
      { path: '/', name: 'dashboard', component: DashboardView, meta: { title: 'Dashboard' } },
      { path: '/welcome', name: 'welcome', component: WelcomeView, meta: { title: 'Welcome' } },
      { path: '/connect', name: 'connect', component: ProfileFormView, meta: { title: 'Connect your node' } },
      { path: '/profiles/:id/edit', name: 'edit-profile', component: ProfileFormView, props: true, meta: { title: 'Edit profile' } },
      { path: '/settings', name: 'settings', component: SettingsView, meta: { title: 'Settings' } },
      { path: '/balances', name: 'balances', component: BalancesView, meta: { title: 'Balances' } },
      { path: '/address/:address', name: 'address', component: AddressView, props: true, meta: { title: 'Address' } },
      { path: '/tx/:txid', name: 'tx', component: TransactionView, props: true, meta: { title: 'Transaction' } },
      { path: '/history', name: 'history', component: HistoryView, meta: { title: 'History' } },
      { path: '/reconcile', name: 'reconcile', component: ReconcileView, meta: { title: 'Reconciliation' } },
      { path: '/labels', name: 'labels', component: LabelsView, meta: { title: 'Labels' } },
      // No profile or connection needed: PSBTs are reviewed offline.
      { path: '/psbt', name: 'psbt', component: PsbtView, meta: { title: 'Review PSBT' } },
      // A bitcoin: link (?uri=…), shown with or without a profile.
      { path: '/pay', name: 'pay', component: PaymentRequestView, meta: { title: 'Payment request' } },
      { path: '/import', name: 'import', component: ImportWalletView, meta: { title: 'Watch a wallet' } },
      { path: '/receive', name: 'receive', component: ReceiveView, meta: { title: 'Receive' } },
      { path: '/transactions', name: 'transactions', component: TransactionsView, meta: { title: 'Transactions' } },
      { path: '/send', name: 'send', component: SendView, meta: { title: 'Send' } },
      { path: '/drafts', name: 'drafts', component: DraftsView, meta: { title: 'Drafts' } },
      { path: '/drafts/:id', name: 'draft', component: DraftView, props: true, meta: { title: 'Draft' } },
      { path: '/signers', name: 'signers', component: SignersView, meta: { title: 'Signers' } },
      { path: '/:rest(.*)*', redirect: '/' },
    ],
  });

  // The first navigation waits for the connection state and the profile list (once); a failure to
  // load them is shown by the dashboard, so it never blocks navigation.
  let initial: Promise<void> | null = null;
  const ready = (): Promise<void> => {
    if (initial === null) {
      const conn = useConnectionStore();
      const profiles = useProfilesStore();
      initial = Promise.all([conn.loaded ? true : conn.load(), profiles.loaded ? true : profiles.load()]).then(() => undefined);
    }
    return initial;
  };

  /**
   * Where the app opens: the balances when connected, or when not connected but a snapshot exists
   * (offline mode); the dashboard otherwise (connecting for the first time, a failure to fix).
   */
  async function opensOnBalances(state: string | undefined): Promise<boolean> {
    if (state === 'connected') return true;
    if (state === undefined || state === 'none') return false;
    const watch = useWatchStore();
    if (!watch.loaded) await watch.load({ join: true });
    return watch.snapshot !== null;
  }

  // vue-router listens to the address bar only once its first navigation has ended, and that one waits
  // for the state above: an address asked for meanwhile (typed, a link, a hash set by a test) would be
  // overwritten by where the first navigation lands. The address asked for last wins instead.
  let firstHash: string | null = typeof window === 'undefined' ? null : window.location.hash;

  router.beforeEach(async (to, from) => {
    await ready();
    if (from === START_LOCATION && firstHash !== null && window.location.hash !== firstHash) {
      firstHash = window.location.hash;
      return firstHash.replace(/^#/, '') || '/';
    }
    const state = useConnectionStore().state?.state;
    if (to.name === 'dashboard' && state === 'none') return { name: 'welcome' };
    if (to.name === 'welcome' && state !== undefined && state !== 'none') return { name: 'dashboard' };
    if (state === 'none' && typeof to.name === 'string' && WATCH_ROUTES.has(to.name)) return { name: 'welcome' };
    // Only the first navigation: the Dashboard link must still lead to the dashboard.
    if (to.name === 'dashboard' && from === START_LOCATION && (await opensOnBalances(state))) return { name: 'balances' };
    return true;
  });

  router.afterEach((to) => {
    const title = typeof to.meta.title === 'string' ? to.meta.title : '';
    document.title = title ? `${title} · Spyglass` : 'Spyglass';
  });

  return router;
}
