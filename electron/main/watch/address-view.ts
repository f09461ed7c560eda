// The address page's view (`watch:address`): the watched address with its label, node label, type,
// balance and UTXOs from the latest snapshot, the node's unconfirmed coins at it, and what each of
// its transactions paid it (gettransaction, the newest 100). Split from WatchService (service.ts).
import { NO_INDEX_HELP } from '../blockindex/node-source';
import { AppError } from '../../../shared/errors';
import type { AddressDetailView } from '../../../shared/ipc/contract';
import type { Network } from '../../../shared/bitcoin/networks';
import { parseBtc } from '../../../shared/amounts';
import type { Logger } from '../log';
import type { ActiveConnection } from '../services';
import type { WatchRepository } from '../store/watch';
import { addressType } from './address-type';
import { s, utxoView } from './views';

export interface AddressViewDeps {
  repo: WatchRepository;
  /** The active profile's id (its wallet's scope in the store). */
  pid: string;
  /** The live connection; null offline (no transactions then). */
  conn: ActiveConnection | null;
  network: Network | null;
  /** The connected profile has no index: its coins come from the node's wallet. */
  withoutIndex: boolean;
  log: Logger;
}

export async function addressView({ repo, pid, conn, network, withoutIndex, log }: AddressViewDeps, address: string): Promise<AddressDetailView> {
  const watched = repo.getAddress(pid, address);
  if (!watched) throw new AppError('input.invalid', `${address} is not a watched address of this profile.`, { field: 'address' });
  const snap = repo.latestSnapshot(pid);
  const info = repo.getInfo(pid, address);
  const received = snap ? repo.received(snap.id).get(address) : undefined;
  const utxos = snap ? repo.utxos(pid, address, snap.id) : [];
  return {
    utxoSource: withoutIndex ? 'node' : 'index',
    needsIndex:
      withoutIndex && watched.source === 'user' && received === undefined
        ? `This address is not in the node's wallet, and the profile has no index: its coins cannot be looked up. ${NO_INDEX_HELP}`
        : null,
    address,
    type: addressType(address, network),
    source: watched.source,
    hidden: watched.hidden,
    label: repo.getLabel(pid, 'addr', address)?.label ?? null,
    nodeLabel: received?.nodeLabel ?? null,
    receivedSats: received ? s(received.amountSats) : null,
    balanceSats: s(utxos.reduce((a, u) => a + u.amountSats, 0n)),
    info: info && typeof info.info === 'object' && info.info !== null ? (info.info as Record<string, unknown>) : null,
    infoFetchedAt: info?.fetchedAt ?? null,
    utxos: utxos.map((u) => utxoView(repo, pid, u)),
    pending: received?.nodeUnspent?.pending?.map((c) => ({ txid: c.txid, vout: c.vout, amountSats: s(c.amountSats), safe: c.safe, label: repo.getLabel(pid, 'output', `${c.txid}:${c.vout}`)?.label ?? null })) ?? null,
    txids: received?.txids ?? [],
    transactions: await addressTransactions({ repo, conn, log }, pid, address, received?.txids ?? []),
  };
}

/** What each transaction paid `address`, from the node wallet (gettransaction; the newest 100). Null offline or when the node cannot say. */
async function addressTransactions({ repo, conn, log }: Pick<AddressViewDeps, 'repo' | 'conn' | 'log'>, pid: string, address: string, txids: readonly string[]): Promise<AddressDetailView['transactions']> {
  if (!conn || txids.length === 0) return conn ? [] : null;
  type Tx = { confirmations: number; blockheight?: number; blocktime?: number; time?: number; details: Array<{ address?: string; category: string; amount: number }> };
  try {
    const txs = await conn.rpc.batch<Tx>(txids.slice(0, 100).map((t) => ({ method: 'gettransaction', params: [t, true] })));
    const rows = txs.map((r, i) => {
      if (!r.ok) throw r.error;
      const tx = r.value;
      const sats = tx.details.filter((d) => d.address === address && d.category !== 'send').reduce((a, d) => a + parseBtc(d.amount.toFixed(8)), 0n);
      const txid = txids[i]!;
      return { txid, amountSats: s(sats), confirmations: tx.confirmations, blockHeight: tx.blockheight ?? null, time: tx.blocktime ?? tx.time ?? null, label: repo.getLabel(pid, 'tx', txid)?.label ?? null };
    });
    return rows.sort((a, b) => (b.blockHeight ?? Infinity) - (a.blockHeight ?? Infinity));
  } catch (e) {
    log.warn(`address transactions: ${(e as Error).message}`);
    return null;
  }
}
