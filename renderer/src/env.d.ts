/// <reference types="vite/client" />
// vue-tsc resolves .vue imports itself, so no `*.vue` shim is declared here.
import type { SpyglassApi } from '../../shared/ipc/contract';

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent when the page runs in a browser over the bridge. */
    api?: SpyglassApi;
  }
}

export {};
