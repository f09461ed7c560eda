// `send:context`: what the Send page shows before anything is typed — the wallet's coins, the fee
// presets from the node's estimates (or the no-estimate state), the mempool limits, the tip and the
// node's PSBT version — from the node, or the last facts it gave (offline). Connected, the coins'
// previous transactions are kept here too, so a payment can be composed and filled offline later.
import { isAppError } from '../../../shared/errors';
import { formatSatPerVb } from '../../../shared/bitcoin/spend/feerate';
import type { FeePresetView, SendContextView } from '../../../shared/ipc/send';
import type { FactsAt, SendCore } from './core';
import { PRESETS } from './facts';
import { previousTransactions } from './prevtxs';
import { chainNow, policyPathsView } from './paths';

/** The wallet's spending paths and each coin's readiness along them, when it has more than one path. */
function policyView(core: SendCore, f: FactsAt): { policy?: ReturnType<typeof policyPathsView> } {
  const p = core.policy(f);
  if (!p) return {};
  const coins = f.facts.unspent.map((u) => ({ outpoint: `${u.txid}:${u.vout}`, confirmations: u.confirmations }));
  return { policy: policyPathsView(p, coins, chainNow(f.facts)) };
}

/** How long the Send page's first load waits for the previous transactions to be kept (then it goes on). */
const PREFETCH_WAIT_MS = 3000;
export const satVb = (rate: string | null): string | null => (rate === null ? null : formatSatPerVb(BigInt(rate)).replace(' sat/vB', ''));
const NETWORK_NAMES = { main: 'mainnet', test: 'testnet', testnet4: 'testnet', signet: 'signet', regtest: 'regtest' } as const;

export async function sendContext(core: SendCore): Promise<SendContextView> {
  const f = await core.facts({ live: true });
  if (f.conn) await prefetch(core, f);
  const presets: FeePresetView[] = PRESETS.map((p) => {
    const of = (mode: 'economical' | 'conservative') => {
      const e = f.facts.estimates.find((x) => x.target === p.target && x.mode === mode);
      return { satVb: satVb(e?.rate ?? null), blocks: e?.blocks ?? null };
    };
    return { id: p.id, target: p.target, economical: of('economical'), conservative: of('conservative') };
  });
  return {
    wallet: f.wallet,
    network: NETWORK_NAMES[f.facts.chain as keyof typeof NETWORK_NAMES] ?? 'regtest',
    offline: f.offline,
    asOf: f.asOf,
    tipHeight: f.facts.tipHeight,
    coins: core.coins(f).map((c) => c.view),
    presets,
    noEstimate: presets.every((p) => p.economical.satVb === null && p.conservative.satVb === null),
    minRelaySatVb: satVb(f.facts.minRelay),
    mempoolMinSatVb: satVb(f.facts.mempoolMin),
    incrementalSatVb: satVb(f.facts.incremental),
    maxDataCarrierBytes: f.facts.maxDataCarrier,
    nodePsbtVersion: f.facts.coreVersion === 30 ? 0 : 2,
    node: f.facts.subversion,
    ...policyView(core, f),
  };
}

/**
 * Keeps the previous transactions of the wallet's coins here (verified), so that a payment can be
 * composed and filled offline later: waited for a moment, then finished in the background.
 */
async function prefetch(core: SendCore, f: FactsAt): Promise<void> {
  const txids = [...new Set(f.facts.unspent.map((u) => u.txid))];
  const missing = txids.filter((t) => !core.deps.store.prevTxs(f.profileId, [t]).has(t));
  if (missing.length === 0) return;
  const work = previousTransactions(missing, { profileId: f.profileId, store: core.deps.store, rpc: f.conn?.rpc ?? null, index: f.conn?.index ?? null }).then(
    (r) => core.deps.log.info(`send: kept ${r.txs.size} previous transactions for offline use`),
    (e: unknown) => core.deps.log.warn(`send: previous transactions not kept: ${isAppError(e) ? e.message : String(e)}`),
  );
  await Promise.race([work, new Promise((r) => setTimeout(r, PREFETCH_WAIT_MS).unref())]);
}
