// The connection to the active profile's node and index, as main reports it. Main pushes every
// change as `connection:changed`; the actions here only start things and take the reply.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ConnectionReport, ConnectionState, NodeReport, Remember } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/errors';
import * as api from '../api/spyglass';
import { useProfilesStore } from './profiles';

/** Core's FormatVersion: 300000 → "30.0.0". */
export function coreVersion(version: number): string {
  return `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100}.${version % 100}`;
}

/** "Bitcoin Core 30.0.0 (/Satoshi:30.0.0/)". */
export function nodeVersionLabel(node: Pick<NodeReport, 'version' | 'subversion'>): string {
  return `Bitcoin Core ${coreVersion(node.version)}${node.subversion ? ` (${node.subversion})` : ''}`;
}

/** Sync progress as a percentage with two decimals ("99.87 %"); Core's verificationprogress is an estimate. */
export function syncPercent(node: Pick<NodeReport, 'verificationProgress'>): string {
  const p = Math.max(0, Math.min(1, node.verificationProgress));
  return `${(Math.floor(p * 10000) / 100).toFixed(2)} %`;
}

export type ConnectionBusy = 'load' | 'activate' | 'refresh' | 'demo' | 'unlock' | null;

export const useConnectionStore = defineStore('connection', () => {
  const profiles = useProfilesStore();

  /** null until the first `connection:status` reply. */
  const state = ref<ConnectionState | null>(null);
  /** The last report of the current profile; kept while it is being checked again. */
  const report = ref<ConnectionReport | null>(null);
  const reportProfileId = ref<string | null>(null);
  const loaded = ref(false);
  const loading = ref(false);
  const busy = ref<ConnectionBusy>(null);
  /** The last failed action (the call itself failed, not the connection). */
  const error = ref<IpcError | null>(null);

  const profileId = computed(() => (state.value === null || state.value.state === 'none' ? null : state.value.profileId));
  const chain = computed(() => (state.value?.state === 'connected' ? state.value.report.node.chain : null));

  function setState(s: ConnectionState): void {
    state.value = s;
    if (s.state === 'none') {
      report.value = null;
      reportProfileId.value = null;
      profiles.activeId = null;
      return;
    }
    if (s.profileId !== reportProfileId.value) {
      report.value = null;
      reportProfileId.value = s.profileId;
    }
    if (s.state === 'connected') report.value = s.report;
    profiles.activeId = s.profileId;
    // A profile made elsewhere (another window, the demo, the bridge): the list is out of date.
    if (profiles.loaded && !profiles.loading && profiles.byId(s.profileId) === null) void profiles.load();
  }

  /**
   * Runs an action and takes its reply. With `optimistic`, that state is shown at once (main sets
   * exactly it first, and its event may arrive later than the click feels); when the call itself
   * fails, the previous state comes back unless an event has replaced it meanwhile.
   */
  async function run(kind: Exclude<ConnectionBusy, null>, action: () => Promise<ConnectionState>, optimistic?: ConnectionState): Promise<boolean> {
    busy.value = kind;
    error.value = null;
    const before = state.value;
    if (optimistic) setState(optimistic);
    const shown = state.value;
    try {
      setState(await action());
      return true;
    } catch (e) {
      error.value = api.asIpcError(e);
      if (optimistic && before !== null && state.value === shown) setState(before);
      return false;
    } finally {
      busy.value = null;
    }
  }

  async function load(): Promise<boolean> {
    loading.value = true;
    try {
      const ok = await run('load', api.connectionStatus);
      if (ok) loaded.value = true;
      if (ok && eventsOpen) void resync();
      return ok;
    } finally {
      loading.value = false;
    }
  }

  // The first state may have been read (even sent, by the page's early script) before this window's
  // events took hold, and a change in between would be lost: once both have happened, the state is
  // asked again, and a different one goes to every connection:changed listener (this store's, and
  // the watch store's reload). The bridge's stream opens again after a reconnect: asked again then.
  let eventsOpen = false;
  /** connection:changed events received so far: a reply read before the latest of them is older than it. */
  let eventsSeen = 0;
  async function resync(): Promise<void> {
    if (busy.value !== null) return; // an action's own reply is about to set the state
    const seen = eventsSeen;
    let s: ConnectionState;
    try {
      s = await api.connectionStatusNow();
    } catch {
      return; // the next event or action corrects it
    }
    if (busy.value !== null || eventsSeen !== seen) return; // newer news arrived meanwhile
    if (JSON.stringify(s) !== JSON.stringify(state.value)) api.deliverConnectionState(s);
  }
  api.onEventsOpen(() => {
    eventsOpen = true;
    if (loaded.value) void resync();
  });

  const activate = (id: string) => run('activate', () => api.activateProfile(id), { state: 'connecting', profileId: id });
  const refresh = () => run('refresh', api.refreshConnection, profileId.value === null ? undefined : { state: 'connecting', profileId: profileId.value });

  async function startDemo(): Promise<boolean> {
    const ok = await run('demo', api.startDemo);
    // The demo created (or reused) its profile; the list is out of date.
    if (ok) await profiles.load();
    return ok;
  }

  async function unlock(id: string, password: string, remember: Remember): Promise<boolean> {
    if (remember === 'keychain' && profiles.keychain?.available === false) {
      error.value = { code: 'keychain.unavailable', message: `${profiles.keychain.reason ?? 'The OS keychain is not available.'} Choose "Only for this session".` };
      return false;
    }
    return run('unlock', () => api.unlockProfile({ id, password, remember }));
  }

  api.onConnectionChanged((s) => {
    eventsSeen++;
    setState(s);
  });

  return { state, report, reportProfileId, loaded, loading, busy, error, profileId, chain, setState, load, activate, refresh, startDemo, unlock };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useConnectionStore, import.meta.hot));
