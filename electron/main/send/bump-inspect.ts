// What a fee bump needs to know about one transaction of the active wallet, whoever made it: the
// wallet's record (gettransaction: confirmations, replaced_by_txid, its bytes — hashed to its txid),
// the mempool's entry (getmempoolentry: vsize, fee, ancestors, descendants), whether the node does
// full RBF (getmempoolinfo), its inputs' previous transactions (verified: prevtxs.ts) and which inputs
// and outputs the wallet owns (getaddressinfo) — each with its descriptor, so its spending size is known.
import { AppError, isAppError } from '../../../shared/errors';
import { encodeDestination, extractDestination } from '../../../shared/bitcoin/address';
import { fromHex } from '../../../shared/bitcoin/hex';
import type { WalletDescriptor } from '../../../shared/bitcoin/psbt';
import { inputKindFromDescriptor } from '../../../shared/bitcoin/spend/kind';
import type { InputKind } from '../../../shared/bitcoin/spend/size';
import { parseTx, type ParsedTx } from '../../../shared/bitcoin/tx';
import type { BumpFacts } from '../../../shared/send/bump-options';
import type { ActiveConnection } from '../services';
import type { FactsAt, SendCore } from './core';
import { satsOf } from './facts';
import { previousTransactions, verifiedHex } from './prevtxs';

export interface Owned {
  desc: WalletDescriptor;
  internal: boolean;
  kind: InputKind;
}

export interface InspectedOutput {
  script: Uint8Array;
  value: bigint;
  address: string | null;
  owned: Owned | null;
}

export interface InspectedInput {
  txid: string;
  vout: number;
  /** The coin it spends, from its verified previous transaction; null when that is not known here. */
  prevout: { script: Uint8Array; value: bigint; address: string | null } | null;
  owned: Owned | null;
}

export interface MempoolFacts {
  vsize: number;
  fee: bigint;
  /** Its unconfirmed ancestors, itself excluded. */
  ancestors: { count: number; vsize: number; fee: bigint };
  descendants: string[];
  depends: string[];
}

export interface Inspected {
  f: FactsAt;
  conn: ActiveConnection;
  txid: string;
  tx: ParsedTx;
  confirmations: number;
  replacedBy: string | null;
  /** gettransaction's fee (positive), present when the wallet paid it. */
  walletFee: bigint | null;
  mempool: MempoolFacts | null;
  /** The node's mempool holds it; null when the node could not say (no getmempoolentry: a method whitelist, a proxy). */
  inMempool: boolean | null;
  inherited: boolean;
  fullRbf: boolean;
  inputs: InspectedInput[];
  outputs: InspectedOutput[];
  prevtxs: Map<string, string>;
  prevTxSources: { node: number; index: number; cache: number };
}

interface WalletTx {
  confirmations: number;
  hex: string;
  fee?: number;
  replaced_by_txid?: string;
  'bip125-replaceable'?: string;
  walletconflicts?: string[];
  mempoolconflicts?: string[];
}

interface MempoolEntry {
  vsize: number;
  ancestorcount: number;
  ancestorsize: number;
  fees: { base: number | string; ancestor: number | string };
  spentby?: string[];
  depends?: string[];
}

/** Full RBF: getmempoolinfo's `fullrbf` where the node says (Core 26–30), else Core 28+ always. */
export function nodeDoesFullRbf(pool: Record<string, unknown>, version: number): boolean {
  if (typeof pool['fullrbf'] === 'boolean') return pool['fullrbf'];
  return version >= 280000;
}

interface AddressInfo {
  ismine?: boolean;
  ischange?: boolean;
  solvable?: boolean;
  desc?: string;
}

/**
 * Which scripts the wallet owns, as the node's wallet answers it (getaddressinfo, one batch: Core's
 * IsMine, so what is ours here is what its psbtbumpfee sees as ours): change or receive, and the
 * descriptor it infers with its key origin — the spending size. A script without an address
 * (OP_RETURN, bare scripts) is not ours.
 */
export async function ownerOf(conn: ActiveConnection, addresses: ReadonlyArray<string | null>): Promise<(address: string | null) => Owned | null> {
  const wanted = [...new Set(addresses.filter((a): a is string => a !== null))];
  const replies = wanted.length ? await conn.rpc.batch<AddressInfo>(wanted.map((a) => ({ method: 'getaddressinfo', params: [a] })), { wallet: true }) : [];
  const owned = new Map<string, Owned>();
  wanted.forEach((a, i) => {
    const r = replies[i]!;
    if (!r.ok || r.value.ismine !== true || !r.value.desc) return;
    try {
      owned.set(a, { desc: { desc: r.value.desc, internal: r.value.ischange === true }, internal: r.value.ischange === true, kind: inputKindFromDescriptor(r.value.desc) });
    } catch {
      // a script whose spending size is unknown cannot be put in a transaction here: not counted as ours
    }
  });
  return (address) => (address === null ? null : (owned.get(address) ?? null));
}

export async function inspect(core: SendCore, txid: string): Promise<Inspected> {
  const f = await core.facts({ live: true });
  const conn = f.conn;
  if (!conn) throw new AppError('credentials.missing', "A fee bump needs your node: it says whether the transaction is still unconfirmed and what it paid. Connect, then try again.");
  let wtx: WalletTx;
  try {
    wtx = await conn.rpc.call<WalletTx>('gettransaction', [txid, true], { wallet: true });
  } catch (e) {
    if (isAppError(e) && e.code === 'rpc.error' && e.detail?.['coreCode'] === -5) {
      throw new AppError('input.invalid', `${txid} is not a transaction of the wallet "${f.wallet}" (the node's wallet does not know it): only a wallet's own transactions can be bumped here.`, { field: 'txid', reason: 'bump.not_wallet_tx' });
    }
    throw e;
  }
  const hex = verifiedHex(txid, wtx.hex);
  if (!hex) throw new AppError('rpc.bad_reply', `The node's record of ${txid} does not hash to that txid: it is not used.`);
  const tx = parseTx(fromHex(hex));
  const net = core.network(f);
  const addressOf = (script: Uint8Array): string | null => {
    const d = extractDestination(script);
    return d ? encodeDestination(d, net) : null;
  };

  const [entryReply, poolReply] = await conn.rpc.batch<Record<string, unknown>>(
    [
      { method: 'getmempoolentry', params: [txid] },
      { method: 'getmempoolinfo', params: [] },
    ],
    { wallet: false },
  );
  let mempool: MempoolFacts | null = null;
  // -5 "Transaction not in mempool": it is not there; any other refusal leaves the question open
  const inMempool = entryReply!.ok ? true : entryReply!.error.code === 'rpc.error' && entryReply!.error.detail?.['coreCode'] === -5 ? false : null;
  if (entryReply!.ok) {
    const e = entryReply!.value as unknown as MempoolEntry;
    const fee = satsOf(e.fees.base);
    mempool = {
      vsize: e.vsize,
      fee,
      // Core counts the transaction itself among its ancestors
      ancestors: { count: e.ancestorcount - 1, vsize: e.ancestorsize - e.vsize, fee: satsOf(e.fees.ancestor) - fee },
      descendants: e.spentby ?? [],
      depends: e.depends ?? [],
    };
  }
  const fullRbf = nodeDoesFullRbf(poolReply!.ok ? poolReply!.value : {}, conn.report.node.version);

  const prev = await previousTransactions(
    tx.vin.map((i) => i.prevTxid),
    { profileId: f.profileId, store: core.deps.store, rpc: conn.rpc, index: conn.index },
  ).catch((e: unknown) => {
    // an index record that does not hash to its txid: that input's coin stays unknown
    if (isAppError(e) && e.code === 'input.invalid') return { txs: new Map<string, string>(), sources: { node: 0, index: 0, cache: 0 } };
    throw e;
  });
  const prevouts = tx.vin.map((i) => {
    const p = prev.txs.get(i.prevTxid);
    const out = p ? parseTx(fromHex(p)).vout[i.vout] : undefined;
    return out ? { script: out.script, value: out.value, address: addressOf(out.script) } : null;
  });
  const outAddresses = tx.vout.map((o) => addressOf(o.script));
  const owner = await ownerOf(conn, [...prevouts.map((p) => p?.address ?? null), ...outAddresses]);
  const inputs: InspectedInput[] = tx.vin.map((i, n) => ({ txid: i.prevTxid, vout: i.vout, prevout: prevouts[n]!, owned: prevouts[n] ? owner(prevouts[n].address) : null }));
  const outputs: InspectedOutput[] = tx.vout.map((o, n) => ({ script: o.script, value: o.value, address: outAddresses[n]!, owned: owner(outAddresses[n]!) }));
  return {
    f,
    conn,
    txid,
    tx,
    confirmations: wtx.confirmations,
    // replaced by the wallet's own bump, or — gone from the mempool — by a conflicting transaction there
    replacedBy: wtx.replaced_by_txid ?? (inMempool === false && wtx.confirmations === 0 ? (wtx.mempoolconflicts?.[0] ?? wtx.walletconflicts?.[0] ?? null) : null),
    walletFee: typeof wtx.fee === 'number' ? -satsOf(wtx.fee) : null,
    mempool,
    inMempool,
    inherited: wtx['bip125-replaceable'] === 'yes',
    fullRbf,
    inputs,
    outputs,
    prevtxs: prev.txs,
    prevTxSources: prev.sources,
  };
}

export function inputsOurs(x: Inspected): BumpFacts['inputsOurs'] {
  const ours = x.inputs.filter((i) => i.owned !== null).length;
  return ours === x.inputs.length ? 'all' : ours === 0 ? 'none' : 'some';
}

/** Its fee: the mempool's, else the wallet's (when every input is ours), else from the inputs' coins. */
export function feeOf(x: Inspected): { fee: bigint; source: 'mempool' | 'wallet' | 'inputs' } | null {
  if (x.mempool) return { fee: x.mempool.fee, source: 'mempool' };
  if (x.walletFee !== null && inputsOurs(x) === 'all') return { fee: x.walletFee, source: 'wallet' };
  if (x.inputs.every((i) => i.prevout !== null)) {
    const fee = x.inputs.reduce((s, i) => s + i.prevout!.value, 0n) - x.outputs.reduce((s, o) => s + o.value, 0n);
    return { fee, source: 'inputs' };
  }
  return null;
}

/** The change output a replacement reduces: the last output on an internal descriptor of ours (as Core's feebumper finds it). */
export function changeIndexOf(x: Inspected): number | null {
  let at: number | null = null;
  x.outputs.forEach((o, i) => {
    if (o.owned?.internal) at = i;
  });
  return at;
}

export function signals(x: Inspected): boolean {
  return x.tx.vin.some((i) => i.sequence >>> 0 < 0xfffffffe) || x.inherited;
}
