// './boot' first: the first screen's IPC calls leave before the rest of the renderer is evaluated.
import './boot';
import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { dropEarlyCalls, hasEarly } from './api/early';
import { createAppRouter } from './router';
import { installShell } from './lib/shell';
import { installNotices } from './lib/notices';
import { useSettingsStore } from './stores/settings';
import { useWatchStore } from './stores/watch';

const app = createApp(App);
const pinia = createPinia();
app.use(pinia);
// The balances overview is on its way (early.ts): the store takes it now, so that Balances, when the
// app opens on it, is rendered with its rows at once rather than first as "Loading…".
const watch = useWatchStore(pinia);
if (hasEarly('watch:overview')) void watch.loadAtStart();
const router = createAppRouter();
app.use(router);
app.mount('#app');
// bitcoin: links and the application menu (Electron); links also from `npm run web -- bitcoin:…`.
installShell(router, () => void watch.refresh());
// Payment notices, and the settings (theme, unit) applied as soon as they are read.
installNotices();
void useSettingsStore(pinia).load();
// The first screen has taken what it needed once its view has mounted (the task after the first
// navigation); a reply nobody took is not kept for later.
const startDone = (): void => {
  setTimeout(() => {
    dropEarlyCalls();
    watch.startDone();
  }, 0);
};
void router.isReady().then(startDone, startDone);
