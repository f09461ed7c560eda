// Connecting to a profile: the node and the index are asked in parallel, the node's chain sets the
// address network, and the index must serve the same chain (same block 0). Electron-free.
import { AppError, toIpcError } from '../../shared/errors';
import { countOf } from '../../shared/plural';
import type { IndexClient } from './blockindex/client';
import type { RpcClient } from './rpc/client';
import type { ConnectionReport, ConnectionState, IndexReport, NodeReport, ProfileInput, Warning } from '../../shared/ipc/contract';

/** The node RPC client as the services use it (electron/main/rpc/client.ts). */
export type NodeRpc = Pick<RpcClient, 'call' | 'batch' | 'plainHttpRemote' | 'close'>;

/** The index client as the services use it (electron/main/blockindex/client.ts). */
export type BlockIndex = Pick<IndexClient, 'tip' | 'genesisHash' | 'blockHash' | 'block' | 'transaction' | 'addressUtxo' | 'close'>;

export type Network = ConnectionReport['network'];

/** Core's chain names (getblockchaininfo.chain) → the address network used for validation. */
export function networkOfChain(chain: string): Network {
  switch (chain) {
    case 'main':
      return 'mainnet';
    case 'test':
    case 'testnet4':
      return 'testnet';
    case 'signet':
      return 'signet';
    case 'regtest':
      return 'regtest';
    default:
      throw new AppError('chain.unsupported', `The node runs a chain Spyglass does not know ("${chain}").`, { chain });
  }
}

interface NetworkInfo { version: number; subversion: string }
interface BlockchainInfo { chain: string; blocks: number; headers: number; bestblockhash: string; initialblockdownload: boolean; verificationprogress: number }

/** The index may lag the node by this many blocks before we warn. */
export const INDEX_LAG_WARNING = 2;

export async function checkConnection(profile: Pick<ProfileInput, 'wallet' | 'nodeUrl' | 'indexUrl'>, rpc: NodeRpc, index: BlockIndex, indexPlainHttpRemote: boolean, signal?: AbortSignal): Promise<ConnectionReport> {
  const opts = { wallet: false, ...(signal ? { signal } : {}) };
  const nodeSide = (async () => {
    const [net, chain, genesis, wallets] = await Promise.all([
      rpc.call<NetworkInfo>('getnetworkinfo', [], opts),
      rpc.call<BlockchainInfo>('getblockchaininfo', [], opts),
      rpc.call<string>('getblockhash', [0], opts),
      rpc.call<string[]>('listwallets', [], opts),
    ]);
    return { net, chain, genesis, wallets };
  })();
  const indexSide = (async () => {
    const [genesisHash, tip] = await Promise.all([index.genesisHash(signal ? { signal } : {}), index.tip(signal ? { signal } : {})]);
    return { genesisHash, tip };
  })();
  // Both run at once; the node's error wins when both fail, since the node is checked first in the UI.
  const [n, i] = await Promise.allSettled([nodeSide, indexSide]);
  if (n.status === 'rejected') throw n.reason;
  if (i.status === 'rejected') throw i.reason;
  const { net, chain, genesis, wallets } = n.value;
  const network = networkOfChain(chain.chain);

  if (i.value.genesisHash !== genesis) {
    throw new AppError(
      'chain.mismatch',
      `The index serves another chain than the node: its block 0 is ${short(i.value.genesisHash)}, but the node (chain "${chain.chain}") has ${short(genesis)}. Point the index URL at an index of the same network.`,
      { nodeChain: chain.chain, nodeGenesis: genesis, indexGenesis: i.value.genesisHash },
    );
  }

  // Same network is not enough: two regtest chains share block 0. Compare one block both have.
  const tip = i.value.tip;
  const common = Math.min(tip.height, chain.blocks);
  if (common > 0) {
    const [nodeHash, indexHash] = await Promise.all([
      common === chain.blocks ? chain.bestblockhash : rpc.call<string>('getblockhash', [common], opts),
      common === tip.height ? tip.hash : index.blockHash(common, signal ? { signal } : {}),
    ]);
    if (nodeHash !== indexHash) {
      throw new AppError(
        'chain.mismatch',
        `The index follows another chain than the node: at height ${common} the index has block ${short(indexHash)}, but the node has ${short(nodeHash)}. Point the index URL at an index of this node's chain.`,
        { height: common, nodeHash, indexHash },
      );
    }
  }

  const warnings: Warning[] = [];
  if (rpc.plainHttpRemote) {
    warnings.push({ code: 'plain-http-remote', message: 'The node is reached over plain HTTP on another host: the RPC password and every reply cross the network unencrypted. Use an HTTPS proxy, an SSH tunnel or a VPN.' });
  }
  if (indexPlainHttpRemote) {
    warnings.push({ code: 'plain-http-remote', message: 'The index is reached over plain HTTP on another host: anyone on the path sees which addresses you look up.' });
  }
  if (chain.initialblockdownload) {
    warnings.push({ code: 'node-syncing', message: `The node is still syncing (${(chain.verificationprogress * 100).toFixed(1)} %, block ${chain.blocks} of ${chain.headers}). Balances may be incomplete until it finishes.` });
  }
  if (i.value.tip.height + INDEX_LAG_WARNING < chain.blocks) {
    warnings.push({ code: 'index-behind', message: `The index is ${countOf(chain.blocks - i.value.tip.height, 'block')} behind the node (index ${i.value.tip.height}, node ${chain.blocks}). UTXO data may be out of date.` });
  }
  // The wallet the refreshes will use must be known now: a missing or ambiguous one would connect
  // and then fail every refresh.
  let wallet: string | null = null;
  const named = profile.wallet.trim();
  const list = wallets.map((w) => `"${w}"`).join(', ');
  if (named !== '') {
    if (!wallets.includes(named)) {
      throw new AppError('rpc.wallet_not_found', `The wallet "${named}" is not loaded on the node${wallets.length ? ` (loaded: ${list})` : ''}. Load it with \`bitcoin-cli loadwallet ${named}\` or choose another in the profile.`, { field: 'wallet', wallets: wallets.join(',') });
    }
    wallet = named;
  } else if (wallets.length === 1) {
    wallet = wallets[0]!;
  } else if (wallets.length === 0) {
    warnings.push({ code: 'no-wallet', message: 'No wallet is loaded on the node, so there are no watched addresses to show. Load or create a watch-only wallet (createwallet with disable_private_keys) and import your descriptors.' });
  } else {
    throw new AppError('rpc.wallet_not_specified', `The node has ${wallets.length} wallets loaded (${list}): choose which one Spyglass watches.`, { field: 'wallet', wallets: wallets.join(',') });
  }

  const node: NodeReport = {
    version: net.version,
    subversion: net.subversion,
    chain: chain.chain,
    blocks: chain.blocks,
    headers: chain.headers,
    bestBlockHash: chain.bestblockhash,
    initialBlockDownload: chain.initialblockdownload,
    verificationProgress: chain.verificationprogress,
    wallet,
    walletsLoaded: wallets,
  };
  const idx: IndexReport = { source: (index as { source?: string }).source === 'node' ? 'node' : 'index', height: i.value.tip.height, bestBlockHash: i.value.tip.hash, genesisHash: i.value.genesisHash };
  return { node, index: idx, network, warnings, checkedAt: new Date().toISOString() };
}

function short(hash: string): string {
  return hash.length > 20 ? `${hash.slice(0, 8)}…${hash.slice(-8)}` : hash;
}

/**
 * The failed state of `profileId` for error `e`. When the connection was already failing, the
 * failure's start time is kept: "node down since 12:03" survives every retry (a refused connection
 * one time, a reset the next are the same outage).
 */
export function failedState(profileId: string, e: unknown, previous?: ConnectionState, now: Date = new Date()): ConnectionState {
  const error = toIpcError(e);
  const since = previous?.state === 'failed' && previous.profileId === profileId ? previous.since : now.toISOString();
  return { state: 'failed', profileId, error, since };
}
