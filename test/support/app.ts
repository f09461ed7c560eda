// The real main-process services (createApp, without Electron) for tests that go through IPC
// channels: one channel call that returns its value or throws, and an app on a fresh data folder
// connected to a node and an index the way the UI does it (profiles:save, then profiles:activate).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { IpcResult } from '../../shared/errors';

/** Calls one IPC channel on the real services; its value, or an error naming the channel, code and message. */
export async function dispatchOk<T>(app: SpyglassApp, channel: string, payload: unknown = {}): Promise<T> {
  const r: IpcResult<unknown> = await app.dispatch(channel, payload);
  if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
  return r.value as T;
}

/**
 * An app on a new temporary data folder (`spyglass-<prefix>-…`, the caller removes it) with one
 * profile for the node's `watch` wallet and the index, password kept for the session, activated.
 * `state`: the connection state activation reached (the caller checks it).
 */
export async function startProfiledApp(opts: {
  prefix: string;
  name: string;
  nodeUrl: string;
  indexUrl: string;
  rpcUser: string;
  password: string;
}): Promise<{ app: SpyglassApp; dir: string; state: string }> {
  const dir = mkdtempSync(join(tmpdir(), `spyglass-${opts.prefix}-`));
  const app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null });
  const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
    profile: { name: opts.name, nodeUrl: opts.nodeUrl, auth: 'password', rpcUser: opts.rpcUser, wallet: 'watch', indexUrl: opts.indexUrl },
    password: opts.password,
    remember: 'session',
  });
  const { state } = await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id });
  return { app, dir, state };
}

/** A node as the tests start it (test/support/payer-node.ts): RPC URL, user, password, and the index following it. */
export interface NodeLogin {
  rpcUrl: string;
  user: string;
  password: string;
  indexUrl: string;
}

/**
 * Saves the profile "Node" for `wallet` on that node (the password kept for the session) and activates
 * it; with `profileId`, that profile is changed to `wallet` instead (its password kept). Its id and the
 * connection state activation reached (the caller checks it).
 */
export async function connectNode(app: SpyglassApp, n: NodeLogin, wallet: string, profileId?: string): Promise<{ profileId: string; state: string }> {
  const profile = { name: 'Node', nodeUrl: n.rpcUrl, auth: 'password', rpcUser: n.user, wallet, indexUrl: n.indexUrl };
  const saved = await dispatchOk<{ profile: { id: string } }>(
    app,
    'profiles:save',
    profileId === undefined ? { profile, password: n.password, remember: 'session' } : { id: profileId, profile },
  );
  const { state } = await dispatchOk<{ state: string }>(app, 'profiles:activate', { id: saved.profile.id });
  return { profileId: saved.profile.id, state };
}
