// The main process's services behind the IPC channels: profiles (SQLite), secrets (OS keychain or this
// session's memory), the active connection and the demo devnet. Plain Node: the Electron shell and the
// loopback bridge both drive this same object.
import { AppError, toIpcError, type IpcError } from '../../shared/errors';
import type { AppInfo, ConnectionReport, ConnectionState, EventName, Events, KeychainStatus, ProfileInput, ProfileView, Remember } from '../../shared/ipc/contract';
import { checkConnection, failedState, type BlockIndex, type NodeRpc } from './connection';
import { NodeWalletIndex } from './blockindex/node-source';
import type { CredentialStore } from './credentials';
import type { StartDemo, DemoDevnet } from './demo';
import type { Logger } from './log';
import type { ProfileRepository } from './store/profiles';

/** How the node is authenticated for one connection attempt. The secret never leaves main. */
export type NodeAuth = { user: string; password: string } | { cookieFile: string };

export interface ServiceDeps {
  profiles: ProfileRepository;
  credentials: CredentialStore;
  makeRpc(profile: ProfileInput, auth: NodeAuth): NodeRpc;
  makeIndex(url: string): BlockIndex & { readonly plainHttpRemote: boolean };
  startDemo?: StartDemo;
  /** Start the demo by itself when no profile exists (npm start / npm run web on a fresh data folder). */
  autoDemo?: boolean;
  info: AppInfo;
  log: Logger;
  /** The wallets holding private keys a profile may watch (acknowledged; its settings). None when absent. */
  keyWalletsAcknowledged?(profileId: string): readonly string[];
}

export interface ActiveConnection {
  profile: ProfileView;
  rpc: NodeRpc;
  index: BlockIndex & { plainHttpRemote: boolean };
  report: ConnectionReport;
}

const DEMO_NAME = 'Demo (built-in regtest devnet)';

/**
 * Why there is no live connection, as an error for a service that needs one: the connection's own
 * failure (refused, timeout, wrong credentials, the wallet not loaded…) with its code, never a made-up
 * "credentials missing" when the credentials are there. `purpose` says what could not be done
 * ("refresh", "read the wallet's transactions").
 */
export function notConnectedError(state: ConnectionState, purpose: string): AppError {
  switch (state.state) {
    case 'failed': {
      const { code, message, detail } = state.error;
      return new AppError(code, `Spyglass cannot ${purpose}: the connection to the node failed — ${message}`, { ...detail, since: state.since });
    }
    case 'connecting':
      return new AppError('net.unreachable', `Spyglass cannot ${purpose} yet: it is still connecting to the node. Try again in a moment.`, { connecting: true });
    case 'needs-password':
      return new AppError('credentials.missing', `Spyglass cannot ${purpose}: the node's RPC password is not saved for this profile. Enter it on the Dashboard.`);
    case 'none':
      return new AppError('profile.not_found', `Spyglass cannot ${purpose}: no node is set up. Connect your node (or try the demo) first.`);
    case 'connected':
      return new AppError('internal', `Spyglass cannot ${purpose}: the connection is being replaced. Try again.`);
  }
}

export function accountOf(profileId: string): string {
  return `rpc:${profileId}`;
}

export class Services {
  private state: ConnectionState = { state: 'none' };
  private active: ActiveConnection | null = null;
  private demo: DemoDevnet | null = null;
  private demoStarting: Promise<DemoDevnet> | null = null;
  private generation = 0;
  /** The connection attempt under way, if any (awaitConnection waits for it). */
  private activating: Promise<ConnectionState> | null = null;
  private readonly listeners = new Map<EventName, Set<(payload: never) => void>>();

  constructor(private readonly deps: ServiceDeps) {}

  /** Subscribe to an event pushed to the renderer. */
  on<E extends EventName>(event: E, fn: (payload: Events[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn as (payload: never) => void);
    return () => set.delete(fn as (payload: never) => void);
  }

  onConnectionChanged(fn: (s: ConnectionState) => void): () => void {
    return this.on('connection:changed', fn);
  }

  emit<E extends EventName>(event: E, payload: Events[E]): void {
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        (fn as (p: Events[E]) => void)(payload);
      } catch (e) {
        this.logError(`${event} listener`, e);
      }
    }
  }

  /** At startup: reconnect to the active profile, or start the demo when nothing is configured and asked to. */
  async start(): Promise<ConnectionState> {
    const id = this.deps.profiles.getActiveId();
    if (id && this.deps.profiles.get(id)) return this.activate(id);
    if (this.deps.autoDemo && this.deps.profiles.list().length === 0) return this.startDemo();
    return this.state;
  }

  info(): AppInfo {
    return this.deps.info;
  }

  keychainStatus(): Promise<KeychainStatus> {
    return this.deps.credentials.status();
  }

  listProfiles(): { profiles: ProfileView[]; activeId: string | null } {
    return { profiles: this.deps.profiles.list(), activeId: this.deps.profiles.getActiveId() };
  }

  connectionState(): ConnectionState {
    return this.state;
  }

  activeConnection(): ActiveConnection | null {
    return this.active;
  }

  /** The profile the screens show: the one the connection state names, else the one last made active (no connection attempt yet). */
  currentProfileId(): string | null {
    return this.stateProfileId() ?? this.deps.profiles.getActiveId();
  }

  /** The live connection, or the connection's own reason why there is none (notConnectedError). */
  requireConnection(purpose: string): ActiveConnection {
    if (this.active) return this.active;
    throw notConnectedError(this.state, purpose);
  }

  /** As requireConnection, but a connection being made first is waited for (a Refresh pressed while connecting). */
  async awaitConnection(purpose: string): Promise<ActiveConnection> {
    if (!this.active && this.state.state === 'connecting' && this.activating) await this.activating.catch(() => undefined);
    return this.requireConnection(purpose);
  }

  async saveProfile(id: string | undefined, input: ProfileInput, password: string | undefined, remember: Remember): Promise<ProfileView> {
    const { profiles, credentials } = this.deps;
    if (id === undefined) {
      if (input.auth === 'password' && password === undefined) throw new AppError('input.invalid', 'Enter the RPC password.', { field: 'password' });
      const created = profiles.create(input, { passwordStorage: 'none' });
      try {
        if (input.auth === 'password' && password !== undefined) {
          profiles.setPasswordStorage(created.id, await credentials.save(accountOf(created.id), password, remember));
        }
      } catch (e) {
        profiles.delete(created.id); // nothing half-saved: no profile without its password
        throw e;
      }
      this.deps.log.info(`profile created ${created.id}`);
      return profiles.require(created.id);
    }
    const existing = profiles.require(id);
    if (input.auth === 'cookie') {
      await credentials.forget(accountOf(id));
      profiles.update(id, input, 'none');
    } else if (password !== undefined) {
      const storage = await credentials.save(accountOf(id), password, remember);
      profiles.update(id, input, storage);
    } else {
      if (existing.passwordStorage === 'none') throw new AppError('input.invalid', 'Enter the RPC password.', { field: 'password' });
      profiles.update(id, input);
    }
    this.deps.log.info(`profile updated ${id}`);
    const saved = profiles.require(id);
    // The profile in use is reconnected with what was saved — also when its connection had failed
    // (a wrong password being corrected), when there is no live connection but the state names it.
    if (this.active?.profile.id === id || this.stateProfileId() === id) void this.activate(id);
    return saved;
  }

  async deleteProfile(id: string): Promise<{ deleted: true }> {
    const profile = this.deps.profiles.require(id);
    await this.deps.credentials.forget(accountOf(id));
    this.deps.profiles.delete(id);
    if (this.active?.profile.id === id || this.stateProfileId() === id) {
      this.disconnect();
      this.setState({ state: 'none' });
    }
    if (profile.isDemo) await this.stopDemo();
    this.deps.log.info(`profile deleted ${id}`);
    return { deleted: true };
  }

  /** Make `id` the active profile and connect. Resolves with the final state (connected, failed or needs-password). */
  activate(id: string): Promise<ConnectionState> {
    const p = this.#activate(id);
    this.activating = p;
    const done = (): void => {
      if (this.activating === p) this.activating = null;
    };
    p.then(done, done);
    return p;
  }

  async #activate(id: string): Promise<ConnectionState> {
    const profile = this.deps.profiles.require(id);
    this.deps.profiles.setActiveId(id);
    this.disconnect();
    const gen = ++this.generation;
    // A retry of a failing connection shows the failure until it is over, not "connecting" each time.
    const retrying = this.state.state === 'failed' && this.state.profileId === id;
    const previous = this.state;
    if (!retrying) this.setState({ state: 'connecting', profileId: id });
    let rpc: NodeRpc | null = null;
    let index: (BlockIndex & { plainHttpRemote: boolean }) | null = null;
    try {
      const current = profile.isDemo ? await this.ensureDemoProfile(profile) : profile;
      const auth = await this.authOf(current);
      if (auth === null) {
        if (gen === this.generation) this.setState({ state: 'needs-password', profileId: id });
        return this.state;
      }
      rpc = this.deps.makeRpc(current, auth);
      index = this.indexFor(current.indexUrl, rpc);
      const report = await checkConnection(current, rpc, index, index.plainHttpRemote, undefined, this.acknowledgedKeyWallets(id));
      if (gen !== this.generation) throw new AppError('cancelled', 'Another profile was activated meanwhile.');
      // The wallet watched is the one checkConnection chose. A profile that named no wallet now names
      // the one picked from the node (a lone watch-only wallet), so its data is kept under that wallet
      // (#26) and Edit profile shows the wallet in use; the clients address that wallet only.
      const builtWith = current.wallet.trim();
      const watched = report.node.wallet ?? '';
      const inUse = report.node.walletFrom === 'node' && builtWith === '' && watched !== '' ? this.deps.profiles.nameWallet(id, watched) : current;
      if (watched !== builtWith) {
        rpc.close();
        index.close();
        rpc = this.deps.makeRpc({ ...inUse, wallet: watched }, auth);
        index = this.indexFor(inUse.indexUrl, rpc);
      }
      this.active = { profile: inUse, rpc, index, report };
      this.deps.profiles.setLastError(id, null);
      this.deps.log.info(`connected ${id} chain=${report.node.chain} blocks=${report.node.blocks} index=${report.index.height}`);
      this.setState({ state: 'connected', profileId: id, report });
    } catch (e) {
      rpc?.close();
      index?.close();
      if (gen !== this.generation) return this.state;
      this.logError(`connect ${id}`, e);
      if (this.deps.profiles.get(id)) this.deps.profiles.setLastError(id, toIpcError(e));
      this.setState(failedState(id, e, previous));
    }
    return this.state;
  }

  /**
   * "Save and connect": the saved profile `id` becomes the active one only if a test of it succeeds.
   * Otherwise the active connection (another profile, the demo) stays as it was, and the profile keeps
   * the failure as its last error for Settings to show.
   */
  async connect(id: string): Promise<{ connected: boolean; state: ConnectionState; error: IpcError | null }> {
    const profile = this.deps.profiles.require(id);
    if (this.active?.profile.id !== id) {
      try {
        if (!profile.isDemo) await this.withTemporaryClients(id, profile, undefined, (rpc, index) => checkConnection(profile, rpc, index, index.plainHttpRemote, undefined, this.acknowledgedKeyWallets(id)));
      } catch (e) {
        const error = toIpcError(e);
        this.deps.profiles.setLastError(id, error);
        return { connected: false, state: this.state, error };
      }
    }
    const state = await this.activate(id);
    return { connected: state.state === 'connected', state, error: state.state === 'failed' ? state.error : null };
  }

  /**
   * Checks the live connection again with its own clients (the chain monitor, after a new block or
   * index height): the report's heights and warnings are brought up to date without passing through
   * "connecting". A failure ends the connection, as `connectionLost` does.
   */
  async recheckActive(): Promise<ConnectionState> {
    const conn = this.active;
    if (!conn || this.state.state !== 'connected') return this.state;
    const gen = this.generation;
    try {
      const report = await checkConnection(conn.profile, conn.rpc, conn.index, conn.index.plainHttpRemote, undefined, this.acknowledgedKeyWallets(conn.profile.id));
      if (gen !== this.generation || this.active !== conn) return this.state;
      // Another wallet to watch (the only loaded one changed, say): the clients must address it.
      if (report.node.wallet !== conn.report.node.wallet) return await this.activate(conn.profile.id); // awaited: its failure is this catch's
      this.active = { ...conn, report };
      this.setState({ state: 'connected', profileId: conn.profile.id, report });
    } catch (e) {
      if (gen === this.generation && this.active === conn) this.connectionLost(e);
    }
    return this.state;
  }

  /** The live connection failed (the chain monitor's poll): it is closed, and the state says why and since when. */
  connectionLost(e: unknown): void {
    const id = this.stateProfileId();
    if (!id || this.state.state !== 'connected') return;
    this.generation++;
    this.disconnect();
    this.logError(`connection lost ${id}`, e);
    this.setState(failedState(id, e, this.state));
  }

  async refresh(): Promise<ConnectionState> {
    const id = this.stateProfileId();
    if (!id) return this.state;
    return this.activate(id);
  }

  async unlock(id: string, password: string, remember: Remember): Promise<ConnectionState> {
    const profile = this.deps.profiles.require(id);
    if (profile.auth !== 'password') throw new AppError('input.invalid', 'This profile uses the cookie file; it has no password.');
    this.deps.profiles.setPasswordStorage(id, await this.deps.credentials.save(accountOf(id), password, remember));
    return this.activate(id);
  }

  /** Test a connection without saving anything. */
  async test(id: string | undefined, input: ProfileInput, password: string | undefined): Promise<ConnectionReport> {
    return this.withTemporaryClients(id, input, password, (rpc, index) => checkConnection(input, rpc, index, index.plainHttpRemote, undefined, id === undefined ? [] : this.acknowledgedKeyWallets(id)));
  }

  async listWallets(id: string | undefined, input: ProfileInput, password: string | undefined): Promise<{ wallets: string[] }> {
    return this.withTemporaryClients(id, input, password, async (rpc) => ({ wallets: await rpc.call<string[]>('listwallets', [], { wallet: false }) }));
  }

  async startDemo(): Promise<ConnectionState> {
    if (!this.deps.startDemo) throw new AppError('demo.failed', 'The built-in demo is not available in this build.');
    const existing = this.deps.profiles.findDemo();
    if (existing) return this.activate(existing.id);
    const demo = await this.runDemo();
    const profile = this.deps.profiles.create(this.demoInput(demo), { passwordStorage: 'session', isDemo: true });
    await this.deps.credentials.save(accountOf(profile.id), demo.password, 'session');
    return this.activate(profile.id);
  }

  async close(): Promise<void> {
    this.generation++;
    this.disconnect();
    await this.stopDemo();
  }

  // ——— internals ———

  private acknowledgedKeyWallets(profileId: string): readonly string[] {
    return this.deps.keyWalletsAcknowledged?.(profileId) ?? [];
  }

  private demoInput(demo: DemoDevnet): ProfileInput {
    return { name: DEMO_NAME, nodeUrl: demo.rpcUrl, auth: 'password', rpcUser: demo.user, cookiePath: '', wallet: demo.wallet, indexUrl: demo.indexUrl };
  }

  /** The devnet picks free ports each run: the demo profile follows them, and its password is this run's. */
  private async ensureDemoProfile(profile: ProfileView): Promise<ProfileView> {
    const demo = await this.runDemo();
    const input = this.demoInput(demo);
    if (input.nodeUrl !== profile.nodeUrl || input.indexUrl !== profile.indexUrl || input.rpcUser !== profile.rpcUser || input.wallet !== profile.wallet) {
      this.deps.profiles.update(profile.id, { ...input, name: profile.name }, 'session');
    }
    await this.deps.credentials.save(accountOf(profile.id), demo.password, 'session');
    return this.deps.profiles.require(profile.id);
  }

  private async runDemo(): Promise<DemoDevnet> {
    if (this.demo) return this.demo;
    if (!this.deps.startDemo) throw new AppError('demo.failed', 'The built-in demo is not available in this build.');
    if (!this.demoStarting) {
      this.deps.log.info('starting the demo devnet');
      this.demoStarting = this.deps.startDemo().then(
        (d) => {
          this.demo = d;
          this.demoStarting = null;
          return d;
        },
        (e: unknown) => {
          this.demoStarting = null;
          throw new AppError('demo.failed', `The built-in demo could not start: ${(e as Error).message}`);
        },
      );
    }
    return this.demoStarting;
  }

  private async stopDemo(): Promise<void> {
    const d = this.demo;
    this.demo = null;
    if (d) await d.close();
  }

  private async authOf(profile: ProfileView | (ProfileInput & { id?: string })): Promise<NodeAuth | null> {
    if (profile.auth === 'cookie') return { cookieFile: profile.cookiePath };
    if (!profile.id) return null;
    const password = await this.deps.credentials.get(accountOf(profile.id));
    return password === null ? null : { user: profile.rpcUser, password };
  }

  private async withTemporaryClients<T>(id: string | undefined, input: ProfileInput, password: string | undefined, fn: (rpc: NodeRpc, index: BlockIndex & { plainHttpRemote: boolean }) => Promise<T>): Promise<T> {
    let auth: NodeAuth | null;
    if (input.auth === 'cookie') auth = { cookieFile: input.cookiePath };
    else if (password !== undefined) auth = { user: input.rpcUser, password };
    else if (id !== undefined) {
      const stored = this.deps.profiles.require(id);
      if (stored.isDemo) await this.ensureDemoProfile(stored);
      auth = await this.authOf({ ...input, id });
    } else auth = null;
    if (auth === null) throw new AppError('credentials.missing', 'Enter the RPC password to test the connection.', { field: 'password' });
    const rpc = this.deps.makeRpc(input, auth);
    const index = this.indexFor(input.indexUrl, rpc);
    try {
      return await fn(rpc, index);
    } catch (e) {
      this.logError('test connection', e);
      throw e;
    } finally {
      rpc.close();
      index.close();
    }
  }

  /** The profile's index; without an index URL, the node's wallet answers in its place (blockindex/node-source.ts). */
  private indexFor(url: string, rpc: NodeRpc): BlockIndex & { plainHttpRemote: boolean } {
    return url.trim() === '' ? new NodeWalletIndex(rpc) : this.deps.makeIndex(url);
  }

  private disconnect(): void {
    if (this.active) {
      this.active.rpc.close();
      this.active.index.close();
      this.active = null;
    }
  }

  private stateProfileId(): string | null {
    return this.state.state === 'none' ? null : this.state.profileId;
  }

  private setState(s: ConnectionState): void {
    this.state = s;
    this.emit('connection:changed', s);
  }

  private logError(what: string, e: unknown): void {
    const err = toIpcError(e);
    this.deps.log.warn(`${what}: ${err.code} ${err.message}`);
    if (err.code === 'internal') this.deps.log.error(`${what}: ${(e as Error)?.stack ?? String(e)}`);
  }
}
