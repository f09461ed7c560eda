// The connection's state in words, for the badge in the top bar and on the dashboard: connected,
// syncing (with %), index behind by N blocks, node down since …, index down since …, wrong
// credentials — each a short label, a tone, and a longer line for its tooltip.
import type { ConnectionState } from '../../../shared/ipc/contract';
import type { ErrorCode } from '../../../shared/errors';
import { countOf } from '../../../shared/plural';

export type StatusKind =
  | 'none'
  | 'connecting'
  | 'needs-password'
  | 'connected'
  | 'syncing'
  | 'index-behind'
  | 'node-down'
  | 'index-down'
  | 'wrong-credentials'
  | 'refused'
  | 'other-chain'
  | 'failed';

export interface Status {
  kind: StatusKind;
  tone: 'ok' | 'busy' | 'warn' | 'bad' | 'none';
  label: string;
  detail: string;
}

const NODE_DOWN: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['rpc.http', 'rpc.bad_reply', 'rpc.warming_up']);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number): string => String(n).padStart(2, '0');

/**
 * "12:03" today, else "Mar 3, 12:03" (the person's time zone, a 24-hour clock as the transaction
 * table's dates). Without Intl: a page's first Intl date format loads ICU's data, 60–500 ms measured
 * in Chromium on a busy 2-core machine — and the top bar's "Node down since …" is on the first
 * screen of every offline start (`npm run bench -- history`).
 */
export function sinceText(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const time = `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  return d.toDateString() === now.toDateString() ? time : `${MONTHS[d.getMonth()]} ${d.getDate()}, ${time}`;
}

export function connectionStatus(s: ConnectionState | null, now: Date = new Date()): Status {
  if (s === null || s.state === 'none') return { kind: 'none', tone: 'none', label: 'No profile', detail: 'No node is configured.' };
  if (s.state === 'connecting') return { kind: 'connecting', tone: 'busy', label: 'Connecting…', detail: 'Checking the node and the index.' };
  if (s.state === 'needs-password') return { kind: 'needs-password', tone: 'warn', label: 'Needs password', detail: 'Enter the RPC password to connect.' };
  if (s.state === 'connected') {
    const n = s.report.node;
    // Downloading: headers ahead of blocks, or a real network's node still in initial block download.
    // (A regtest node whose newest block is old reports initial block download too, with nothing to
    // fetch: its blocks are mined on demand. That is not syncing.)
    if (n.headers > n.blocks || (n.initialBlockDownload && n.chain !== 'regtest' && n.verificationProgress < 0.99)) {
      const pct = `${(Math.floor(n.verificationProgress * 1000) / 10).toFixed(1)} %`;
      return { kind: 'syncing', tone: 'warn', label: `Syncing ${pct}`, detail: `The node is still downloading the chain (${pct}, block ${n.blocks.toLocaleString('en-US')} of ${n.headers.toLocaleString('en-US')}): balances are as of that block.` };
    }
    const lag = n.blocks - s.report.index.height;
    if (s.report.warnings.some((w) => w.code === 'index-behind') && lag > 0) {
      return { kind: 'index-behind', tone: 'warn', label: `Index behind by ${countOf(lag, 'block')}`, detail: `The index is at block ${s.report.index.height.toLocaleString('en-US')}, the node at ${n.blocks.toLocaleString('en-US')}: the newest payments may be missing until it catches up.` };
    }
    return { kind: 'connected', tone: 'ok', label: 'Connected', detail: `${n.subversion} at block ${n.blocks.toLocaleString('en-US')}; ${s.report.index.source === 'node' ? "no index: the node's wallet alone" : 'the index agrees'}.` };
  }
  const e = s.error;
  const since = sinceText(s.since, now);
  const peer = e.detail?.['peer'];
  if (e.code === 'rpc.unauthorized') return { kind: 'wrong-credentials', tone: 'bad', label: 'Wrong credentials', detail: e.message };
  if (e.code === 'rpc.forbidden' || e.code === 'index.forbidden' || e.code === 'index.unauthorized') return { kind: 'refused', tone: 'bad', label: 'Refused', detail: e.message };
  if (e.code === 'chain.mismatch') return { kind: 'other-chain', tone: 'bad', label: 'Index on another chain', detail: e.message };
  if ((e.code.startsWith('net.') && peer === 'node') || NODE_DOWN.has(e.code)) {
    return { kind: 'node-down', tone: 'bad', label: `Node down since ${since}`, detail: e.message };
  }
  if ((e.code.startsWith('net.') && peer === 'index') || e.code.startsWith('index.')) {
    return { kind: 'index-down', tone: 'bad', label: `Index down since ${since}`, detail: e.message };
  }
  return { kind: 'failed', tone: 'bad', label: 'Not connected', detail: e.message };
}
