// Connection profiles (never a password: main keeps those), the keychain status, and the test /
// list-wallets actions of the profile form.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ConnectionReport, KeychainStatus, PasswordStorage, ProfileInput, ProfileView, Remember } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/errors';
import * as api from '../api/spyglass';

/** The fields of the profile form; what ProfileInputSchema accepts (lib/profile-draft.ts checks them). */
export type ProfileDraft = { [K in keyof ProfileInput]: ProfileInput[K] };

export function emptyDraft(): ProfileDraft {
  return { name: '', nodeUrl: '', auth: 'password', rpcUser: '', cookiePath: '', wallet: '', indexUrl: '' };
}

export function draftOf(p: ProfileView): ProfileDraft {
  return { name: p.name, nodeUrl: p.nodeUrl, auth: p.auth, rpcUser: p.rpcUser, cookiePath: p.cookiePath, wallet: p.wallet, indexUrl: p.indexUrl };
}

export type { FieldErrors } from '../lib/profile-draft';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True for http:// to anything but this machine: the RPC password would cross the network in clear. */
export function isPlainHttpRemote(url: string): boolean {
  try {
    const u = new URL(url.trim());
    return u.protocol === 'http:' && !LOOPBACK.has(u.hostname.toLowerCase());
  } catch {
    return false;
  }
}

export function passwordStorageLabel(p: Pick<ProfileView, 'auth' | 'passwordStorage'>): string {
  if (p.auth === 'cookie') return 'cookie file';
  const labels: Record<PasswordStorage, string> = { keychain: 'OS keychain', session: 'this session only', none: 'not stored' };
  return labels[p.passwordStorage];
}

export interface SaveArgs {
  id?: string;
  profile: ProfileInput;
  /** Empty or absent: keep the stored password (on update) / no password (cookie auth). */
  password?: string;
  remember: Remember;
}

export interface TestArgs {
  id?: string;
  profile: ProfileInput;
  password?: string;
}

function withPassword<T extends object>(base: T, password: string | undefined): T & { password?: string } {
  return password === undefined || password === '' ? base : { ...base, password };
}

export const useProfilesStore = defineStore('profiles', () => {
  const profiles = ref<ProfileView[]>([]);
  const activeId = ref<string | null>(null);
  const keychain = ref<KeychainStatus | null>(null);
  const loaded = ref(false);
  const loading = ref(false);
  const saving = ref(false);
  const removing = ref<string | null>(null);
  const error = ref<IpcError | null>(null);

  const testing = ref(false);
  const testReport = ref<ConnectionReport | null>(null);
  const testError = ref<IpcError | null>(null);

  const listingWallets = ref(false);
  const wallets = ref<string[] | null>(null);
  const walletsError = ref<IpcError | null>(null);

  const activeProfile = computed(() => profiles.value.find((p) => p.id === activeId.value) ?? null);
  /** False only when main said so; unknown (not loaded yet) counts as available. */
  const keychainAvailable = computed(() => keychain.value?.available !== false);

  function byId(id: string): ProfileView | null {
    return profiles.value.find((p) => p.id === id) ?? null;
  }

  function upsert(p: ProfileView): void {
    const i = profiles.value.findIndex((x) => x.id === p.id);
    if (i === -1) profiles.value = [...profiles.value, p];
    else profiles.value = profiles.value.map((x) => (x.id === p.id ? p : x));
  }

  async function load(): Promise<boolean> {
    loading.value = true;
    error.value = null;
    try {
      const [list, status] = await Promise.all([api.listProfiles(), api.keychainStatus()]);
      profiles.value = list.profiles;
      activeId.value = list.activeId;
      keychain.value = status;
      loaded.value = true;
      return true;
    } catch (e) {
      error.value = api.asIpcError(e);
      return false;
    } finally {
      loading.value = false;
    }
  }

  async function save(args: SaveArgs): Promise<ProfileView | null> {
    error.value = null;
    const hasPassword = args.password !== undefined && args.password !== '';
    if (hasPassword && args.remember === 'keychain' && keychain.value?.available === false) {
      // The form switches to "Only for this session" when the keychain is unavailable; never
      // send a request that can only fail.
      error.value = {
        code: 'keychain.unavailable',
        message: `${keychain.value.reason ?? 'The OS keychain is not available.'} Choose "Only for this session" to keep the password until Spyglass quits.`,
      };
      return null;
    }
    saving.value = true;
    try {
      const base = args.id === undefined ? { profile: args.profile } : { id: args.id, profile: args.profile };
      const req = hasPassword ? { ...base, password: args.password, remember: args.remember } : base;
      const { profile } = await api.saveProfile(req);
      upsert(profile);
      return profile;
    } catch (e) {
      error.value = api.asIpcError(e);
      return null;
    } finally {
      saving.value = false;
    }
  }

  async function remove(id: string): Promise<boolean> {
    error.value = null;
    removing.value = id;
    try {
      await api.deleteProfile(id);
      profiles.value = profiles.value.filter((p) => p.id !== id);
      if (activeId.value === id) activeId.value = null;
      return true;
    } catch (e) {
      error.value = api.asIpcError(e);
      return false;
    } finally {
      removing.value = null;
    }
  }

  function clearTest(): void {
    testReport.value = null;
    testError.value = null;
  }

  async function test(args: TestArgs): Promise<ConnectionReport | null> {
    clearTest();
    testing.value = true;
    try {
      const base = args.id === undefined ? { profile: args.profile } : { id: args.id, profile: args.profile };
      testReport.value = await api.testConnection(withPassword(base, args.password));
      return testReport.value;
    } catch (e) {
      testError.value = api.asIpcError(e);
      return null;
    } finally {
      testing.value = false;
    }
  }

  function clearWallets(): void {
    wallets.value = null;
    walletsError.value = null;
  }

  async function listWallets(args: TestArgs): Promise<string[] | null> {
    clearWallets();
    listingWallets.value = true;
    try {
      const base = args.id === undefined ? { profile: args.profile } : { id: args.id, profile: args.profile };
      const reply = await api.listWallets(withPassword(base, args.password));
      wallets.value = reply.wallets;
      return reply.wallets;
    } catch (e) {
      walletsError.value = api.asIpcError(e);
      return null;
    } finally {
      listingWallets.value = false;
    }
  }

  return {
    profiles, activeId, keychain, loaded, loading, saving, removing, error,
    testing, testReport, testError, listingWallets, wallets, walletsError,
    activeProfile, keychainAvailable,
    byId, load, save, remove, test, clearTest, listWallets, clearWallets,
  };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useProfilesStore, import.meta.hot));
