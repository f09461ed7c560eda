// The person's settings (main keeps them in SQLite): loaded once, changed through main, and followed
// when another window changes them. Applied live here: the theme (data-theme on <html>) and the unit
// (the watch store's toggle). The refresh interval and fee warnings are applied by main.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { SettingsView } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/errors';
import type { AppSettings, ProfileSettings, Theme } from '../../../shared/settings';
import * as api from '../api/spyglass';
import { useWatchStore } from './watch';

/** The theme to show: 'system' follows the OS (prefers-color-scheme). */
export function resolvedTheme(theme: Theme, prefersDark: boolean): 'light' | 'dark' {
  return theme === 'system' ? (prefersDark ? 'dark' : 'light') : theme;
}

function prefersDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

export const useSettingsStore = defineStore('settings', () => {
  const view = shallowRef<SettingsView | null>(null);
  const saving = ref(false);
  const error = ref<IpcError | null>(null);

  function apply(v: SettingsView): void {
    view.value = v;
    if (typeof document !== 'undefined') document.documentElement.dataset['theme'] = resolvedTheme(v.app.theme, prefersDark());
    const watch = useWatchStore();
    if (watch.unit !== v.app.unit) watch.setUnit(v.app.unit, { persist: false });
  }

  async function load(): Promise<void> {
    try {
      apply(await api.getSettings());
      error.value = null;
    } catch (e) {
      error.value = api.asIpcError(e);
    }
  }

  async function set(change: { app?: Partial<AppSettings>; profile?: Partial<ProfileSettings> }): Promise<boolean> {
    saving.value = true;
    try {
      apply(await api.setSettings(change));
      error.value = null;
      return true;
    } catch (e) {
      error.value = api.asIpcError(e);
      return false;
    } finally {
      saving.value = false;
    }
  }

  api.onSettingsChanged(apply);
  // Each profile has its own (notifications): read them again for another profile.
  api.onConnectionChanged((st) => {
    const pid = st.state === 'none' ? null : st.profileId;
    if (view.value && view.value.profileId !== pid) void load();
  });
  // The OS switching between light and dark while the theme is 'system'.
  if (typeof matchMedia === 'function') {
    matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
      if (view.value) apply(view.value);
    });
  }

  return { view, saving, error, load, set };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useSettingsStore, import.meta.hot));
