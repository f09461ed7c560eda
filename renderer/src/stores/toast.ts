// Failures of actions that have no form to show them in (switching profile, deleting, checking
// again…) appear in one global toast region.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { ref } from 'vue';
import type { ErrorCode, IpcError } from '../../../shared/errors';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  message: string;
  code: ErrorCode | null;
}

const LIFETIME_MS = 12_000;

export const useToastStore = defineStore('toast', () => {
  const toasts = ref<Toast[]>([]);
  let nextId = 1;

  function dismiss(id: number): void {
    toasts.value = toasts.value.filter((t) => t.id !== id);
  }

  function push(kind: Toast['kind'], message: string, code: ErrorCode | null = null): number {
    const id = nextId++;
    // The same message twice in a row is shown once.
    toasts.value = [...toasts.value.filter((t) => t.message !== message), { id, kind, message, code }].slice(-4);
    setTimeout(() => dismiss(id), LIFETIME_MS);
    return id;
  }

  function error(e: IpcError): number {
    return push('error', e.message, e.code);
  }

  function info(message: string): number {
    return push('info', message);
  }

  return { toasts, push, error, info, dismiss };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useToastStore, import.meta.hot));
