// Typed helpers, one per channel: each returns the reply value or throws an ApiError.
import type { ConnectionState, Events, Request } from '../../../shared/ipc/contract';
import { call, getApi } from './client';

export { ApiError, asIpcError } from './client';

export const appInfo = () => call('app:info', {});
export const keychainStatus = () => call('keychain:status', {});
export const listProfiles = () => call('profiles:list', {});
export const saveProfile = (req: Request<'profiles:save'>) => call('profiles:save', req);
export const deleteProfile = (id: string) => call('profiles:delete', { id });
export const activateProfile = (id: string) => call('profiles:activate', { id });
export const unlockProfile = (req: Request<'profiles:unlock'>) => call('profiles:unlock', req);
export const testConnection = (req: Request<'connection:test'>) => call('connection:test', req);
export const connectionStatus = () => call('connection:status', {});
export const refreshConnection = () => call('connection:refresh', {});
export const listWallets = (req: Request<'node:listwallets'>) => call('node:listwallets', req);
export const startDemo = () => call('demo:start', {});

export function onConnectionChanged(listener: (state: Events['connection:changed']) => void): () => void {
  return getApi().on('connection:changed', (s: ConnectionState) => listener(s));
}
