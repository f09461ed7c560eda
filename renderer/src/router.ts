// Hash history: the Electron window loads index.html from file://, where path URLs do not exist.
import { createRouter, createWebHashHistory, type Router } from 'vue-router';
import { useConnectionStore } from './stores/connection';
import DashboardView from './views/DashboardView.vue';
import ProfileFormView from './views/ProfileFormView.vue';
import SettingsView from './views/SettingsView.vue';
import WelcomeView from './views/WelcomeView.vue';
import { useProfilesStore } from './stores/profiles';

export function createAppRouter(): Router {
  const router = createRouter({
    history: createWebHashHistory(),
    routes: [
      { path: '/', name: 'dashboard', component: DashboardView, meta: { title: 'Dashboard' } },
      { path: '/welcome', name: 'welcome', component: WelcomeView, meta: { title: 'Welcome' } },
      { path: '/connect', name: 'connect', component: ProfileFormView, meta: { title: 'Connect your node' } },
      { path: '/profiles/:id/edit', name: 'edit-profile', component: ProfileFormView, props: true, meta: { title: 'Edit profile' } },
      { path: '/settings', name: 'settings', component: SettingsView, meta: { title: 'Settings' } },
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

  router.beforeEach(async (to) => {
    await ready();
    const state = useConnectionStore().state?.state;
    if (to.name === 'dashboard' && state === 'none') return { name: 'welcome' };
    if (to.name === 'welcome' && state !== undefined && state !== 'none') return { name: 'dashboard' };
    return true;
  });

  router.afterEach((to) => {
    const title = typeof to.meta.title === 'string' ? to.meta.title : '';
    document.title = title ? `${title} · Spyglass` : 'Spyglass';
  });

  return router;
}
