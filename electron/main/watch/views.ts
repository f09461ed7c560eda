// Shapes shared by the watch views (service.ts, address-view.ts, reports.ts): amounts as decimal
// text, the connection's network, a snapshot's and a UTXO's view.
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';
import type { SnapshotView, UtxoView } from '../../../shared/ipc/contract';
import type { ActiveConnection } from '../services';
import type { Snapshot, UtxoRow, WatchRepository } from '../store/watch';

export const s = (v: bigint): string => v.toString();

export function networkOf(conn: ActiveConnection | null): Network | null {
  if (!conn) return null;
  const chain = conn.report.node.chain as Network['chain'];
  return NETWORKS[chain] ?? null;
}

export function snapshotView(snap: Snapshot): SnapshotView {
  return {
    id: snap.id,
    takenAt: snap.takenAt,
    nodeHeight: snap.node?.height ?? null,
    nodeHash: snap.node?.hash ?? null,
    indexHeight: snap.index?.height ?? null,
    indexHash: snap.index?.hash ?? null,
    status: snap.status,
    addressCount: snap.addressCount ?? 0,
    receivedSats: s(snap.receivedSats ?? 0n),
    balanceSats: s(snap.balanceSats ?? 0n),
    utxoCount: snap.utxoCount ?? 0,
  };
}

export function utxoView(repo: WatchRepository, pid: string, u: UtxoRow): UtxoView {
  return {
    txid: u.txid,
    vout: u.vout,
    amountSats: s(u.amountSats),
    height: u.height,
    confirmations: u.confirmations,
    label: repo.getLabel(pid, 'output', `${u.txid}:${u.vout}`)?.label ?? null,
  };
}
