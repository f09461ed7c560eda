// The preload: exposes one object, `window.api`, with `invoke` over the fixed channel set and `on` for
// the fixed event set. It never hands out ipcRenderer, and checks names before sending (VS Code).
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { CHANNEL_NAMES, CHANNEL_PREFIX, EVENT_NAMES, EVENT_PREFIX } from '../../shared/ipc/names';

const channels = new Set<string>(CHANNEL_NAMES);
const events = new Set<string>(EVENT_NAMES);

contextBridge.exposeInMainWorld('api', {
  invoke(channel: string, request: unknown): Promise<unknown> {
    if (typeof channel !== 'string' || !channels.has(channel)) return Promise.reject(new Error('Unknown IPC channel'));
    return ipcRenderer.invoke(CHANNEL_PREFIX + channel, request);
  },
  on(event: string, listener: (payload: unknown) => void): () => void {
    if (typeof event !== 'string' || !events.has(event) || typeof listener !== 'function') throw new Error('Unknown event');
    const wrapped = (_e: IpcRendererEvent, payload: unknown): void => listener(payload);
    ipcRenderer.on(EVENT_PREFIX + event, wrapped);
    return () => {
      ipcRenderer.removeListener(EVENT_PREFIX + event, wrapped);
    };
  },
});
