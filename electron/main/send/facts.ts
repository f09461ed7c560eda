// What compose needs from the node, fetched in one JSON-RPC batch: the wallet's unspent coins
// (listunspent with 0-conf), its public descriptors (listdescriptors: for fill and offline change),
// the mempool limits (getmempoolinfo), fee estimates for each preset and mode (estimatesmartfee), and
// the tip. Kept in SQLite (send_cache) each time, so Send works offline from the last answer.
import { parseBtc } from '../../../shared/amounts';
import { AppError } from '../../../shared/errors';
import { nodeCoreVersion, type CoreVersion, type WalletDescriptor } from '../../../shared/bitcoin/psbt';
import type { FeePresetId } from '../../../shared/ipc/send';
import type { ActiveConnection } from '../services';
import { decodeOlder } from '../../../shared/bitcoin/locktime';

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
  /** The tip's median time past, and the MTPs by height that time-based older() locks count from (absent: not asked, or an older cache). */
  tipMtp?: number;
  mtpAt?: Record<number, number>;
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
  const calls = [{ method: 'getmempoolinfo', params: [] as unknown[] }, { method: 'getblockchaininfo', params: [] as unknown[] }, ...PRESETS.flatMap((p) => (['economical', 'conservative'] as const).map((mode) => ({ method: 'estimatesmartfee', params: [p.target, mode] })))];
  const replies = await rpc.batch<Record<string, unknown>>(calls, { wallet: false });
  const pool = replies[0]!.ok ? replies[0]!.value : {};
  const chainInfo = replies[1]!.ok ? replies[1]!.value : {};
  const tipMtp = chainInfo['blocks'] === tip && typeof chainInfo['mediantime'] === 'number' ? chainInfo['mediantime'] : undefined;
  const estimates: EstimateFact[] = [];
  let k = 2;
  for (const p of PRESETS) {
    for (const mode of ['economical', 'conservative'] as const) {
      const r = replies[k++]!;
      const v = r.ok ? r.value : {};
      estimates.push({ target: p.target, mode, rate: rateOf(v['feerate']), blocks: typeof v['blocks'] === 'number' && v['feerate'] !== undefined ? v['blocks'] : null });
    }
  }
  const mtpAt = tipMtp === undefined ? undefined : await lockStartMtps(conn, described.descriptors, unspent, tip);
  return {
    chain: conn.report.node.chain,
    coreVersion: nodeCoreVersion(conn.report.node.version),
    subversion: conn.report.node.subversion,
    tipHeight: tip,
    ...(tipMtp !== undefined ? { tipMtp } : {}),
    ...(mtpAt ? { mtpAt } : {}),
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

/** A time-based older(N) (BIP68 type flag 1<<22) in any of the wallet's descriptors. */
const TIME_OLDER = (desc: string): boolean => [...desc.matchAll(/older\((\d+)\)/g)].some((m) => decodeOlder(Number(m[1])).unit === 'seconds');

/**
 * For a wallet with a time-based older(): the median time past of the block before each confirmed
 * coin's (what BIP68 counts such a lock from), one batch of getblockhash and one of getblockheader.
 * A height the node did not answer (a reorg between the calls) is left out: that coin is estimated.
 */
async function lockStartMtps(conn: ActiveConnection, descriptors: WalletDescriptor[], unspent: ListUnspentEntry[], tip: number): Promise<Record<number, number> | undefined> {
  if (!descriptors.some((d) => TIME_OLDER(d.desc))) return undefined;
  const heights = [...new Set(unspent.filter((u) => u.confirmations > 0).map((u) => Math.max(tip - u.confirmations, 0)))];
  if (heights.length === 0) return {};
  const hashes = await conn.rpc.batch<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })), { wallet: false });
  const known = heights.flatMap((h, i) => (hashes[i]!.ok ? [{ h, hash: hashes[i]!.value }] : []));
  const headers = await conn.rpc.batch<{ height?: unknown; mediantime?: unknown }>(known.map((x) => ({ method: 'getblockheader', params: [x.hash] })), { wallet: false });
  const out: Record<number, number> = {};
  known.forEach((x, i) => {
    const r = headers[i]!;
    if (r.ok && r.value.height === x.h && typeof r.value.mediantime === 'number') out[x.h] = r.value.mediantime;
  });
  return out;
}
