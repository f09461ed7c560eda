// Index transaction records for the transaction screens (RefreshEngine.transaction), cached in the
// store by chain (genesis hash): a confirmed record is served from the cache (its block, inputs and
// outputs no longer change; confirmations follow from the tip), anything else asked of the index (and
// cached). When the index cannot be reached, a cached record of any age is returned (`fromCache`).
import { AppError, isAppError } from '../../../shared/errors';
import type { IndexTransaction } from '../blockindex/types';
import type { WatchRepository } from '../store/watch';
import type { RefreshIndex } from './engine-types';

const HEX64 = /^[0-9a-f]{64}$/;

export class IndexTxCache {
  #genesis: Promise<string> | null;

  /** `genesisHash`: the chain's, when known (else asked of the index once). */
  constructor(
    private readonly store: WatchRepository,
    private readonly index: Pick<RefreshIndex, 'transaction' | 'genesisHash'>,
    private readonly now: () => number,
    genesisHash: string | undefined,
  ) {
    this.#genesis = genesisHash === undefined ? null : Promise.resolve(genesisHash);
  }

  /** `refresh: true` asks the index even for a cached confirmed record (e.g. for its `spent` lists). */
  async get(txid: string, opts: { signal?: AbortSignal; refresh?: boolean } = {}): Promise<{ tx: IndexTransaction; fetchedAt: string; fromCache: boolean }> {
    const id = txid.toLowerCase();
    if (!HEX64.test(id)) throw new AppError('input.invalid', `"${txid.slice(0, 70)}" is not a transaction id: expected 64 hex characters.`, { field: 'txid' });
    const genesis = await this.#genesisHash(opts.signal);
    const cached = this.store.getIndexTx(genesis, id);
    if (cached !== null && cached.tx.blockHash !== null && opts.refresh !== true) return { ...cached, fromCache: true };
    try {
      const tx = await this.index.transaction(id, opts.signal ? { signal: opts.signal } : {});
      const fetchedAt = new Date(this.now()).toISOString();
      this.store.putIndexTx(genesis, tx, fetchedAt);
      return { tx, fetchedAt, fromCache: false };
    } catch (e) {
      if (cached !== null && isAppError(e) && e.code.startsWith('net.')) return { ...cached, fromCache: true };
      throw e;
    }
  }

  #genesisHash(signal: AbortSignal | undefined): Promise<string> {
    if (this.#genesis === null) {
      const p = this.index.genesisHash(signal ? { signal } : {});
      this.#genesis = p;
      p.catch(() => {
        if (this.#genesis === p) this.#genesis = null; // not kept when it failed
      });
    }
    return this.#genesis;
  }
}
