// The reports over the watched set's snapshots: the History screen (balance points and what changed
// in the last refresh), reconciliation (the node's wallet against the index, per address) and the
// balances CSV. Split from WatchService (service.ts), which supplies the profile and connection.
import { NO_INDEX_HELP } from '../blockindex/node-source';
import { AppError } from '../../../shared/errors';
import type { HistoryView, ReconcileIssue, UtxoView } from '../../../shared/ipc/contract';
import type { Network } from '../../../shared/bitcoin/networks';
import { toCsv } from '../../../shared/csv';
import { formatBtc } from '../../../shared/amounts';
import { countOf } from '../../../shared/plural';
import { INDEX_ADDRESS_KINDS_TEXT } from '../../../shared/index-address-kinds';
import type { ActiveConnection } from '../services';
import type { UtxoRow, WatchRepository } from '../store/watch';
import { addressType } from './address-type';
import { s, utxoView } from './views';

/** The balance after each snapshot, numbered from the first, and the UTXOs the latest one added and removed. */
export function historyView(repo: WatchRepository, pid: string): HistoryView {
  const rows = [...repo.history(pid)].sort((a, b) => a.snapshotId - b.snapshotId);
  const points = rows.map((p, i) => ({ snapshotId: p.snapshotId, number: i + 1, takenAt: p.takenAt, nodeHeight: p.nodeHeight, balanceSats: s(p.balanceSats), receivedSats: s(p.receivedSats), utxoCount: p.utxoCount }));
  const numberOf = new Map(points.map((p) => [p.snapshotId, p.number]));
  const latest = repo.latestSnapshot(pid);
  if (!latest) return { points, diff: null };
  const prev = repo.previousSnapshot(pid, latest.id);
  const d = repo.diff(prev?.id ?? null, latest.id);
  const view = (u: UtxoRow): UtxoView & { address: string } => ({ ...utxoView(repo, pid, u), address: u.address });
  return {
    points,
    diff: {
      fromId: d.fromId,
      toId: d.toId,
      fromNumber: d.fromId === null ? null : (numberOf.get(d.fromId) ?? null),
      toNumber: numberOf.get(d.toId) ?? points.length,
      newUtxos: d.newUtxos.map(view),
      spentUtxos: d.spentUtxos.map(view),
      newTxids: d.newTxids,
    },
  };
}

/** What does not add up between the node's wallet, the index and the latest snapshot. */
export function reconcileIssues({ repo, pid, conn, withoutIndex }: { repo: WatchRepository; pid: string; conn: ActiveConnection | null; withoutIndex: boolean }): { issues: ReconcileIssue[]; snapshotTakenAt: string | null } {
  if (withoutIndex) {
    throw new AppError('index.not_configured', `Reconciliation compares the node's wallet with an independent block index, and this profile has none: there is nothing to compare. ${NO_INDEX_HELP}`);
  }
  const snap = repo.latestSnapshot(pid);
  if (!snap) return { issues: [], snapshotTakenAt: null };
  const issues: ReconcileIssue[] = [];
  if (snap.node && snap.index && snap.index.height < snap.node.height) {
    issues.push({ kind: 'index-behind', address: null, message: `The index was ${countOf(snap.node.height - snap.index.height, 'block')} behind the node at the last refresh (index ${snap.index.height}, node ${snap.node.height}): recent payments may be missing from the balances.` });
  }
  if (conn && snap.node && conn.report.node.blocks > snap.node.height) {
    issues.push({ kind: 'stale-snapshot', address: null, message: `The node has ${countOf(conn.report.node.blocks - snap.node.height, 'new block')} since the last refresh: refresh to bring the balances up to date.` });
  }
  for (const r of repo.balances(pid, snap.id)) {
    if (r.fetchState === 'failed') {
      const why =
        r.errorCode === 'index.invalid'
          ? `The index does not accept this address (a bitaps-style index serves ${INDEX_ADDRESS_KINDS_TEXT} addresses)`
          : `The index refused the UTXO lookup for this address (${r.errorCode ?? 'error'})`;
      const held = r.fetchedAt === null ? 'no balance is known for it' : `the balance shown is from its lookup of ${r.fetchedAt}`;
      issues.push({ kind: 'fetch-failed', address: r.address, message: `${why}; ${held}.` });
      continue;
    }
    if (r.nodeUnspentSats !== null && r.nodeUnspentSats !== r.balanceSats) {
      if (r.nodeUnspentSats > 0n && r.utxoCount === 0) {
        issues.push({ kind: 'index-missing-tx', address: r.address, message: `The node's wallet holds ${formatBtc(r.nodeUnspentSats)} BTC in ${countOf(r.nodeUnspentCount ?? 0, 'output')} at this address, but the index shows no unspent outputs: the index lacks the transactions.` });
      } else {
        issues.push({ kind: 'amount-mismatch', address: r.address, message: `The node's wallet counts ${formatBtc(r.nodeUnspentSats)} BTC unspent at this address (${countOf(r.nodeUnspentCount ?? 0, 'output')}); the index's UTXOs add up to ${formatBtc(r.balanceSats)} BTC (${countOf(r.utxoCount, 'output')}).` });
      }
    } else if (r.receivedSats !== null && r.receivedSats > 0n && r.utxoCount === 0 && r.nodeUnspentSats === null && r.receivedTxCount !== null && r.receivedTxCount > 0 && r.fetchedAt === null) {
      issues.push({ kind: 'index-missing-tx', address: r.address, message: 'The node reports payments to this address but the index was never asked about it.' });
    }
  }
  return { issues, snapshotTakenAt: snap.takenAt };
}

/** The latest snapshot's balances as CSV (a BOM for spreadsheet programs), hidden rows only when asked. */
export function balancesCsv(repo: WatchRepository, pid: string, network: Network | null, unit: 'btc' | 'sats', includeHidden: boolean): { text: string; rows: number } {
  const snap = repo.latestSnapshot(pid);
  const rows = snap ? repo.balances(pid, snap.id).filter((r) => includeHidden || !r.hidden) : [];
  const amt = (v: bigint | null): string => (v === null ? '' : unit === 'btc' ? formatBtc(v) : v.toString());
  const table = [
    ['label', 'node_label', 'address', 'type', `received_${unit}`, `balance_${unit}`, 'utxos', 'confirmations', 'last_activity_height', 'source'],
    ...rows.map((r) => [r.label ?? '', r.nodeLabel ?? '', r.address, addressType(r.address, network), amt(r.receivedSats), amt(r.balanceSats), r.utxoCount, r.minConfirmations ?? '', r.lastActivityHeight ?? '', r.source]),
  ];
  return { text: toCsv(table, { bom: true }), rows: rows.length };
}
