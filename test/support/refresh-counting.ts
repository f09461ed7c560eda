/** Counting wrappers the refresh tests hand to the RefreshEngine instead of the real clients (which they wrap). */
import type { RpcClient, BatchEntry, CallOptions } from '../../electron/main/rpc/client';
import type { IndexClient } from '../../electron/main/blockindex/client';
import type { IndexUtxo } from '../../electron/main/blockindex/types';
import type { RefreshIndex, RefreshRpc } from '../../electron/main/refresh/engine';


export class CountingRpc implements RefreshRpc {
  readonly counts = new Map<string, number>();
  /** The params of the latest `call` of each method. */
  readonly params = new Map<string, unknown[] | Record<string, unknown> | undefined>();
  constructor(readonly inner: RpcClient) {}
  #count(method: string): void {
    this.counts.set(method, (this.counts.get(method) ?? 0) + 1);
  }
  call<T = unknown>(method: string, params?: unknown[] | Record<string, unknown>, opts?: CallOptions): Promise<T> {
    this.#count(method);
    this.params.set(method, params);
    return this.inner.call<T>(method, params, opts);
  }
  batch<T = unknown>(calls: { method: string; params?: unknown[] | Record<string, unknown> }[], opts?: { wallet?: boolean; signal?: AbortSignal; timeoutMs?: number }): Promise<Array<BatchEntry<T>>> {
    for (const c of calls) this.#count(c.method);
    return this.inner.batch<T>(calls, opts);
  }
  n(method: string): number {
    return this.counts.get(method) ?? 0;
  }
  reset(): void {
    this.counts.clear();
  }
}

export class CountingIndex implements RefreshIndex {
  readonly lookups: string[] = [];
  constructor(readonly inner: IndexClient) {}
  addressUtxo(address: string, opts?: { signal?: AbortSignal }): Promise<IndexUtxo[]> {
    this.lookups.push(address);
    return this.inner.addressUtxo(address, opts);
  }
  tip(opts?: { signal?: AbortSignal }): ReturnType<IndexClient['tip']> {
    return this.inner.tip(opts);
  }
  transaction(hash: string, opts?: { signal?: AbortSignal }): ReturnType<IndexClient['transaction']> {
    return this.inner.transaction(hash, opts);
  }
  genesisHash(opts?: { signal?: AbortSignal }): ReturnType<IndexClient['genesisHash']> {
    return this.inner.genesisHash(opts);
  }
}
