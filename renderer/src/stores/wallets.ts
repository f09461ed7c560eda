// The wallet switcher's state (#26): the active profile's wallets and which one every screen shows.
// A switch bumps `generation`, which the page view is keyed by (App.vue), so the page on screen is
// built again from the new wallet's data and nothing of the previous wallet stays on it.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ProfileWalletsView } from '../../../shared/ipc/contract';
import * as api from '../api/spyglass';
import { useWatchStore } from './watch';

export const useWalletsStore = defineStore('wallets', () => {
  const view = ref<ProfileWalletsView | null>(null);
  const switching = ref<string | null>(null);
  const error = ref<string | null>(null);
  /** Bumped by every switch (and by a change of profile): pages keyed by it are rebuilt. */
  const generation = ref(0);

  const active = computed(() => view.value?.wallets.find((w) => w.active) ?? null);
  /** The wallet every screen shows ('' while the profile names none). */
  const activeName = computed(() => active.value?.name ?? '');

  /**
   * Takes a wallet list in. When it names another active wallet (or profile) than the one on screen,
   * the previous wallet's rows go in the same tick as its name, the new one's cached overview is
   * asked, and the page is rebuilt: the name in the top bar never stands over another wallet's rows.
   */
  function apply(v: ProfileWalletsView): void {
    const before = view.value;
    view.value = v;
    if (before === null) return;
    const activeOf = (x: ProfileWalletsView) => x.wallets.find((w) => w.active)?.name ?? '';
    if (before.profileId === v.profileId && activeOf(before) === activeOf(v)) return;
    const watch = useWatchStore();
    watch.clearProfileState();
    void watch.load();
    generation.value++;
  }

  /** Bumped by each switch: a list asked before it may name the wallet left, and is dropped. */
  let switches = 0;
  let loading: { promise: Promise<void>; asked: number } | null = null;
  function load(): Promise<void> {
    if (loading !== null && loading.asked === switches) return loading.promise;
    const asked = switches;
    const promise: Promise<void> = api
      .walletList()
      .then((v) => {
        if (asked === switches) apply(v);
      })
      .catch(() => undefined)
      .finally(() => {
        if (loading?.promise === promise) loading = null;
      });
    loading = { promise, asked };
    return promise;
  }

  async function switchTo(name: string): Promise<void> {
    if (name === activeName.value || switching.value) return;
    switching.value = name;
    error.value = null;
    try {
      await api.walletSwitch(name);
      switches++;
      // The node names `name` now: the page is rebuilt on it at once; the list (balances, kinds) follows.
      if (view.value) apply({ ...view.value, wallets: view.value.wallets.map((w) => ({ ...w, active: w.name === name })) });
      await load();
    } catch (e) {
      error.value = api.asIpcError(e).message;
    } finally {
      switching.value = null;
    }
  }

  api.onConnectionChanged(() => {
    void load();
  });

  return { view, active, activeName, switching, error, generation, load, switchTo };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useWalletsStore, import.meta.hot));
