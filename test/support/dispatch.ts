// Calls one IPC channel on the real services (SpyglassApp.dispatch, what the preload and the bridge
// reach) and returns its value, or throws with the channel and the error's code and message.
import type { SpyglassApp } from '../../electron/main/app';
import type { IpcResult } from '../../shared/errors';

export async function dispatchOk<T>(app: SpyglassApp, channel: string, payload: unknown = {}): Promise<T> {
  const r: IpcResult<unknown> = await app.dispatch(channel, payload);
  if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
  return r.value as T;
}
