// Previous transactions for a PSBT's non_witness_utxo: from the cache, else the node (the wallet's
// own record, gettransaction, in one batch; getrawtransaction for what the wallet does not hold),
// else rebuilt from the index's transaction record. Every one is hashed and must give its txid before
// it is used or stored: unverifiable UTXO data never goes into a PSBT.
import { AppError } from '../../../shared/errors';
import { fromHex, toHex } from '../../../shared/bitcoin/hex';
import { parseTx, serializeTx, type Tx } from '../../../shared/bitcoin/tx';
import type { IndexTransaction } from '../blockindex/types';
import type { BlockIndex, NodeRpc } from '../connection';
import type { SendStore } from './store';

export interface PrevTxResult {
  /** hex by txid, every one verified. */
  txs: Map<string, string>;
  sources: { node: number; index: number; cache: number };
}

/** The transaction an index record describes, as bytes (with witnesses when it has them). */
export function rebuildFromIndex(r: IndexTransaction): Uint8Array {
  const tx: Tx = {
    version: r.version,
    locktime: r.lockTime,
    vin: r.vIn.map((i) => ({
      prevTxid: i.coinbase ? '0'.repeat(64) : i.txId,
      vout: i.coinbase ? 0xffffffff : i.vOut,
      scriptSig: fromHex(i.scriptSig ?? ''),
      sequence: i.sequence,
      witness: (i.txInWitness ?? []).map((w) => fromHex(w)),
    })),
    vout: [...r.vOut].sort((a, b) => a.index - b.index).map((o) => ({ value: o.value, script: fromHex(o.scriptPubKey) })),
  };
  return serializeTx(tx, { witness: true });
}

/** `hex` if it parses and hashes to `txid`, else null. */
export function verifiedHex(txid: string, hex: unknown): string | null {
  if (typeof hex !== 'string' || hex.length === 0) return null;
  try {
    return parseTx(fromHex(hex)).txid === txid ? hex : null;
  } catch {
    return null;
  }
}

export class IndexRecordMismatch extends AppError {}

export async function previousTransactions(
  txids: readonly string[],
  src: { profileId: string; store: SendStore; rpc: NodeRpc | null; index: BlockIndex | null },
): Promise<PrevTxResult> {
  const wanted = [...new Set(txids)];
  const cached = src.store.prevTxs(src.profileId, wanted);
  const txs = new Map<string, string>();
  const sources = { node: 0, index: 0, cache: 0 };
  for (const [t, hex] of cached) {
    if (verifiedHex(t, hex)) {
      txs.set(t, hex);
      sources.cache++;
    }
  }
  const fresh: Array<{ txid: string; hex: string; source: 'node' | 'index' }> = [];
  let missing = wanted.filter((t) => !txs.has(t));
  if (missing.length && src.rpc) {
    const replies = await src.rpc.batch<{ hex?: string }>(missing.map((t) => ({ method: 'gettransaction', params: [t, true] })), { wallet: true, timeoutMs: 120_000 });
    missing.forEach((t, i) => {
      const r = replies[i]!;
      const hex = r.ok ? verifiedHex(t, r.value.hex) : null;
      if (hex) fresh.push({ txid: t, hex, source: 'node' });
    });
    const still = missing.filter((t) => !fresh.some((f) => f.txid === t));
    if (still.length) {
      const raw = await src.rpc.batch<string>(still.map((t) => ({ method: 'getrawtransaction', params: [t] })), { wallet: false, timeoutMs: 120_000 });
      still.forEach((t, i) => {
        const r = raw[i]!;
        const hex = r.ok ? verifiedHex(t, r.value) : null;
        if (hex) fresh.push({ txid: t, hex, source: 'node' });
      });
    }
    for (const f of fresh) txs.set(f.txid, f.hex);
    missing = missing.filter((t) => !txs.has(t));
  }
  if (missing.length && src.index) {
    for (const t of missing) {
      let record: IndexTransaction;
      try {
        record = await src.index.transaction(t);
      } catch {
        continue;
      }
      const hex = toHex(rebuildFromIndex(record));
      if (!verifiedHex(t, hex)) {
        throw new IndexRecordMismatch(
          'input.invalid',
          `The index's record of ${t} does not rebuild into that transaction (its hash differs): its UTXO data cannot be verified, so it is not put in the PSBT. Check the index server, or connect to the node.`,
          { field: 'coins', txid: t },
        );
      }
      txs.set(t, hex);
      fresh.push({ txid: t, hex, source: 'index' });
    }
  }
  for (const f of fresh) sources[f.source]++;
  if (fresh.length) src.store.savePrevTxs(src.profileId, fresh);
  return { txs, sources };
}
