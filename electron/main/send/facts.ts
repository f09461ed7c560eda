// What compose needs from the node, fetched in one JSON-RPC batch: the wallet's unspent coins
// (listunspent with 0-conf), its public descriptors (listdescriptors: for fill and offline change),
// the mempool limits (getmempoolinfo), fee estimates for each preset and mode (estimatesmartfee), and
// the tip. Kept in SQLite (send_cache) each time, so Send works offline from the last answer.
import { parseBtc } from '../../../shared/amounts';
import { AppError } from '../../../shared/errors';
import { nodeCoreVersion, type CoreVersion, type WalletDescriptor } from '../../../shared/bitcoin/psbt';
import type { FeePresetId } from '../../../shared/ipc/send';
import type { ActiveConnection } from '../services';

export interface UnspentFact {
  txid: string;
  vout: number;
  address: string;
  scriptPubKey: string;
  /** Satoshis, decimal. */
  sats: string;
  confirmations: number;
  desc: string | null;
  label: string;
  safe: boolean;
  solvable: boolean;
  witnessScript?: string;
  redeemScript?: string;
}

export interface EstimateFact {
  target: number;
  mode: 'economical' | 'conservative';
  /** sat/kvB, decimal; null: no estimate. */
  rate: string | null;
  blocks: number | null;
}

export interface NodeFacts {
  chain: string;
  coreVersion: CoreVersion;
  subversion: string;
  tipHeight: number;
  descriptors: WalletDescriptor[];
  unspent: UnspentFact[];
  /** sat/kvB decimals, null when the node did not say. */
  minRelay: string | null;
  mempoolMin: string | null;
  incremental: string | null;
  maxDataCarrier: number | null;
  estimates: EstimateFact[];
}

export const PRESETS: ReadonlyArray<{ id: FeePresetId; target: number }> = [
  { id: 'next-block', target: 1 },
  { id: '30-min', target: 3 },
  { id: '1-hour', target: 6 },
  { id: '1-day', target: 144 },
];

/** A BTC amount as JSON gave it (a number with at most 8 decimals) → satoshis. */
export function satsOf(amount: unknown): bigint {
  if (typeof amount === 'number') return parseBtc(amount.toFixed(8));
  if (typeof amount === 'string') return parseBtc(amount);
  throw new AppError('rpc.bad_reply', `The node sent an amount that is not a number: ${JSON.stringify(amount)?.slice(0, 40)}`);
}

const rateOf = (v: unknown): string | null => (v === undefined || v === null ? null : satsOf(v).toString());

interface ListUnspentEntry {
  txid: string;
  vout: number;
  address?: string;
  scriptPubKey: string;
  amount: number;
  confirmations: number;
  desc?: string;
  label?: string;
  safe?: boolean;
  solvable?: boolean;
  witnessScript?: string;
  redeemScript?: string;
}

/** Asks the node (one batch for everything but listdescriptors and listunspent's wallet calls). */
export async function fetchFacts(conn: ActiveConnection): Promise<NodeFacts> {
  const wallet = conn.report.node.wallet;
  if (!wallet) throw new AppError('rpc.wallet_not_specified', 'This profile names no wallet on the node: choose the watch-only wallet to spend from in the profile, or import one (Watch a wallet).');
  const rpc = conn.rpc;
  const [unspent, described, tip] = await Promise.all([
    rpc.call<ListUnspentEntry[]>('listunspent', [0], { wallet: true, timeoutMs: 120_000 }),
    rpc.call<{ descriptors: WalletDescriptor[] }>('listdescriptors', [], { wallet: true }),
    rpc.call<number>('getblockcount', [], { wallet: false }),
  ]);
  const calls = [{ method: 'getmempoolinfo', params: [] as unknown[] }, ...PRESETS.flatMap((p) => (['economical', 'conservative'] as const).map((mode) => ({ method: 'estimatesmartfee', params: [p.target, mode] })))];
  const replies = await rpc.batch<Record<string, unknown>>(calls, { wallet: false });
  const pool = replies[0]!.ok ? replies[0]!.value : {};
  const estimates: EstimateFact[] = [];
  let k = 1;
  for (const p of PRESETS) {
    for (const mode of ['economical', 'conservative'] as const) {
      const r = replies[k++]!;
      const v = r.ok ? r.value : {};
      estimates.push({ target: p.target, mode, rate: rateOf(v['feerate']), blocks: typeof v['blocks'] === 'number' && v['feerate'] !== undefined ? v['blocks'] : null });
    }
  }
  return {
    chain: conn.report.node.chain,
    coreVersion: nodeCoreVersion(conn.report.node.version),
    subversion: conn.report.node.subversion,
    tipHeight: tip,
    descriptors: described.descriptors,
    unspent: unspent.map((u) => ({
      txid: u.txid,
      vout: u.vout,
      address: u.address ?? '',
      scriptPubKey: u.scriptPubKey,
      sats: satsOf(u.amount).toString(),
      confirmations: u.confirmations,
      desc: u.desc ?? null,
      label: u.label ?? '',
      safe: u.safe ?? true,
      solvable: u.solvable ?? false,
      ...(u.witnessScript ? { witnessScript: u.witnessScript } : {}),
      ...(u.redeemScript ? { redeemScript: u.redeemScript } : {}),
    })),
    minRelay: rateOf(pool['minrelaytxfee']),
    mempoolMin: rateOf(pool['mempoolminfee']),
    incremental: rateOf(pool['incrementalrelayfee']),
    maxDataCarrier: typeof pool['maxdatacarriersize'] === 'number' ? pool['maxdatacarriersize'] : null,
    estimates,
  };
}
