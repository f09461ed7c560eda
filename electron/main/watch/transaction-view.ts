// The transaction page's view (`watch:transaction`): the transaction from the index (asked afresh:
// its outputs' spenders change), or from the node's wallet while the index has not seen it yet, each
// input and output marked when it is a watched address, the fee only when every input's amount is
// known, the index's merkle proof checked against the block header, and whether the node has that
// block. Split from WatchService (service.ts), which supplies the profile, connection and engine.
import { NO_INDEX_HELP, NodeWalletIndex } from '../blockindex/node-source';
import { isAppError } from '../../../shared/errors';
import type { TransactionView, TxIoView } from '../../../shared/ipc/contract';
import { checkTxInBlock } from '../../../shared/bitcoin/merkle';
import type { RefreshEngine } from '../refresh/engine';
import type { ActiveConnection } from '../services';
import type { NodeRpc } from '../connection';
import type { IndexTransaction } from '../blockindex/types';
import type { WatchRepository } from '../store/watch';
import { s } from './views';

/**
 * Does the node have block `hash` at `height`? Asked with getblockhash; a node that cannot answer
 * does not fail the transaction view: the state says so.
 */
export async function nodeBlockCheck(rpc: Pick<NodeRpc, 'call'>, height: number, hash: string): Promise<NonNullable<TransactionView['nodeBlock']>> {
  let nodeHash: string;
  try {
    nodeHash = await rpc.call<string>('getblockhash', [height]);
  } catch (e) {
    if (isAppError(e) && e.code === 'rpc.error' && e.detail?.coreCode === -8) {
      return { state: 'missing', message: `Your node has no block at height ${height} yet: it is behind the index, so it cannot vouch for this block.` };
    }
    return { state: 'unknown', message: `Your node could not be asked for its block at height ${height}: ${isAppError(e) ? e.message : 'unexpected error'}` };
  }
  if (typeof nodeHash === 'string' && nodeHash.toLowerCase() === hash.toLowerCase()) {
    return { state: 'same', message: `Your node has this block at height ${height}: the transaction is in your node's chain.` };
  }
  return {
    state: 'different',
    message: `Your node has another block at height ${height} (${String(nodeHash)}). The index's block is not in your node's chain — a stale branch or another chain — so do not count this transaction as confirmed.`,
  };
}

/** Fee rate in sat/vB with two decimals, computed in integers. */
export function feeRateText(feeSats: bigint, vsize: number): string {
  if (vsize <= 0) return '0.00';
  const hundredths = (feeSats * 100n * 2n + BigInt(vsize)) / (2n * BigInt(vsize)); // rounded half up
  const whole = hundredths / 100n;
  const frac = (hundredths % 100n).toString().padStart(2, '0');
  return `${whole}.${frac}`;
}

export interface TransactionViewDeps {
  repo: WatchRepository;
  /** The active profile's id (its wallet's scope in the store). */
  pid: string;
  conn: ActiveConnection;
  engine: RefreshEngine;
  /** Whether the connected profile has no index (its coins come from the node's wallet). */
  withoutIndex: () => boolean;
}

export async function transactionView({ repo, pid, conn, engine, withoutIndex }: TransactionViewDeps, txid: string): Promise<TransactionView> {
  // Asked afresh (not from the cache of confirmed records): the outputs' spenders change over time.
  // An index a moment behind the node has not seen a payment just made: the node's wallet (or its
  // mempool) shows it meanwhile, spenders unknown, and the page says so.
  let tx: IndexTransaction;
  let fromNode = withoutIndex();
  try {
    tx = (await engine.transaction(txid, { refresh: true })).tx;
  } catch (e) {
    if (fromNode || !isAppError(e) || e.code !== 'index.not_found') throw e;
    try {
      tx = await new NodeWalletIndex(conn.rpc).transaction(txid.toLowerCase());
    } catch {
      throw e; // the node does not know it either: the index's answer stands
    }
    fromNode = true;
  }
  const watchedSet = new Set(repo.listAddresses(pid, { includeHidden: true }).map((a) => a.address));
  // The index gives a P2PK output the P2PKH address of its key; it does not pay that address (see IndexClient.addressUtxo).
  const watched = (address: string | null, type: string | null): boolean => address !== null && type !== 'PUBKEY' && watchedSet.has(address);
  const inputs: TxIoView[] = tx.vIn.map((i) => ({
    address: i.address,
    // Unknown (null) when the source could not say: a node without -txindex does not know the
    // amount of an output it never saw; never shown as 0.
    amountSats: i.amount === null ? null : s(i.amount),
    outpoint: i.coinbase ? null : `${i.txId}:${i.vOut}`,
    scriptType: i.coinbase ? 'coinbase' : (i.type ?? 'unknown'),
    watched: watched(i.address, i.type),
    spentBy: null,
  }));
  const outputs: TxIoView[] = tx.vOut.map((o) => ({
    address: o.address,
    amountSats: s(o.value),
    outpoint: null,
    scriptType: o.type,
    watched: watched(o.address, o.type),
    spentBy: o.spent.map((x) => ({ txid: x.txId, vin: x.vIn })),
  }));
  if (fromNode) {
    // The node knows whether each output is still unspent (gettxout, mempool included), not who spent it.
    const unspent = await conn.rpc.batch<unknown>(tx.vOut.map((o) => ({ method: 'gettxout', params: [tx.txId, o.index, true] })), { wallet: false });
    unspent.forEach((r, i) => {
      if (r.ok && r.value === null && tx.vOut[i]!.type !== 'NULL_DATA') outputs[i]!.spentBy = null;
    });
  }
  // The fee is the inputs' amounts less the outputs': unknown when any input's amount is (and none for a coinbase).
  const feeKnown = !tx.coinbase && tx.vIn.every((i) => i.amount !== null);
  let merkle: TransactionView['merkle'] = { checked: false, valid: false, root: null, message: 'Unconfirmed: not in a block yet.' };
  let confirmations = 0;
  let nodeBlock: TransactionView['nodeBlock'] = null;
  if (tx.blockHash !== null && tx.blockHeight !== null && fromNode) {
    // No index: the node is the only source, so there is nothing independent to check its block against.
    nodeBlock = await nodeBlockCheck(conn.rpc, tx.blockHeight, tx.blockHash);
    confirmations = tx.confirmations ?? 0;
    merkle = {
      checked: false,
      valid: false,
      root: null,
      message: withoutIndex()
        ? `Not checked: the profile has no index, and a merkle proof from the node itself would prove nothing the node did not already say. ${NO_INDEX_HELP}`
        : 'Not checked: your index has not seen this transaction yet (shown from your node). Open it again later to check it against the index.',
    };
  } else if (tx.blockHash !== null && tx.blockHeight !== null) {
    const [block, nodeCheck] = await Promise.all([conn.index.block(tx.blockHash), nodeBlockCheck(conn.rpc, tx.blockHeight, tx.blockHash)]);
    nodeBlock = nodeCheck;
    confirmations = block.confirmations;
    if (tx.merkleProof === null || tx.blockIndex === null) {
      merkle = { checked: false, valid: false, root: block.merkleRoot, message: 'The index sent no merkle proof for this transaction.' };
    } else {
      const check = checkTxInBlock({ txid: tx.txId, blockHash: tx.blockHash, blockIndex: tx.blockIndex, merkleProof: tx.merkleProof, headerBase64: block.header, txCount: block.transactionsCount });
      merkle = { checked: true, ...check };
    }
  }
  return {
    txid: tx.txId,
    blockHeight: tx.blockHeight,
    blockHash: tx.blockHash,
    blockTime: tx.blockTime ?? null,
    firstSeen: tx.time ?? null,
    confirmations,
    inputs,
    outputs,
    feeSats: feeKnown ? s(tx.fee) : null,
    vsize: tx.vSize,
    feeRate: feeKnown ? feeRateText(tx.fee, tx.vSize) : null,
    rbf: tx.rbf,
    coinbase: tx.coinbase,
    merkle,
    nodeBlock,
    source: fromNode ? 'node' : 'index',
    label: repo.getLabel(pid, 'tx', tx.txId)?.label ?? null,
  };
}
