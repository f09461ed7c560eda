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

/**
 * Checks a profile's node and index. `keyWalletsAcknowledged`: the wallets holding private keys this
 * profile may watch (its settings; see chooseWallet).
 */
export async function checkConnection(
  profile: Pick<ProfileInput, 'wallet' | 'nodeUrl' | 'indexUrl'>,
  rpc: NodeRpc,
  index: BlockIndex,
  indexPlainHttpRemote: boolean,
  signal?: AbortSignal,
  keyWalletsAcknowledged: readonly string[] = [],
): Promise<ConnectionReport> {
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
  // The wallet the refreshes will use must be known now, and it must be one Spyglass may watch.
  const choice = await chooseWallet(profile.wallet.trim(), wallets, rpc, keyWalletsAcknowledged, signal);
  warnings.push(...choice.warnings);
  const wallet = choice.wallet;

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
    walletKind: choice.kind,
    walletFrom: wallet === null ? null : choice.from,
    walletsLoaded: wallets,
  };
  const idx: IndexReport = { source: (index as { source?: string }).source === 'node' ? 'node' : 'index', height: i.value.tip.height, bestBlockHash: i.value.tip.hash, genesisHash: i.value.genesisHash };
  return { node, index: idx, network, warnings, checkedAt: new Date().toISOString() };
}

/** What a loaded wallet is (getwalletinfo): only a watch-only descriptor wallet is watched without asking. */
export type WalletKind = 'watch-only' | 'private-keys' | 'legacy';

export async function walletKindOf(rpc: NodeRpc, name: string, signal?: AbortSignal): Promise<WalletKind> {
  const info = await rpc.call<{ descriptors?: boolean; private_keys_enabled: boolean }>('getwalletinfo', [], { wallet: name, ...(signal ? { signal } : {}) });
  return info.descriptors !== true ? 'legacy' : info.private_keys_enabled ? 'private-keys' : 'watch-only';
}

const CHOOSE = 'Choose a wallet on the Dashboard or in Watch a wallet (a watch-only descriptor wallet; one holding private keys only once you acknowledge it), or import your descriptors as a new watch-only wallet.';

interface WalletChoice {
  wallet: string | null;
  kind: 'watch-only' | 'private-keys' | null;
  from: 'profile' | 'node';
  warnings: Warning[];
}

/**
 * The wallet a connection watches. Named in the profile: it must be loaded (else the connection
 * fails, naming the loaded ones); it is watched when it is a watch-only descriptor wallet, or holds
 * private keys and `acknowledged` lists it — a legacy wallet, or a key wallet not acknowledged, is
 * not watched (the node is still connected, with a warning). None named: the node's only loaded
 * wallet when it is a watch-only descriptor wallet; otherwise (none loaded, several, or the one holds
 * private keys or is legacy) none, with a warning saying why and what to do. Core's own choice at
 * `/` (the single loaded wallet, whatever it is) is never used.
 */
async function chooseWallet(named: string, loaded: string[], rpc: NodeRpc, acknowledged: readonly string[], signal?: AbortSignal): Promise<WalletChoice> {
  const list = loaded.map((w) => `"${w}"`).join(', ');
  const none = (message: string, from: 'profile' | 'node'): WalletChoice => ({ wallet: null, kind: null, from, warnings: [{ code: 'no-wallet', message }] });
  if (named !== '') {
    if (!loaded.includes(named)) {
      throw new AppError('rpc.wallet_not_found', `The wallet "${named}" is not loaded on the node${loaded.length ? ` (loaded: ${list})` : ''}. Load it with \`bitcoin-cli loadwallet ${named}\` or choose another in the profile.`, { field: 'wallet', wallets: loaded.join(',') });
    }
    const kind = await walletKindOf(rpc, named, signal);
    if (kind === 'watch-only') return { wallet: named, kind, from: 'profile', warnings: [] };
    if (kind === 'legacy') {
      return none(`Spyglass watches no wallet: the profile names "${named}", a legacy wallet (not a descriptor wallet), which Spyglass does not watch. Migrate it (\`bitcoin-cli -rpcwallet=${named} migratewallet\`), or choose another. ${CHOOSE}`, 'profile');
    }
    if (acknowledged.includes(named)) return { wallet: named, kind, from: 'profile', warnings: [keysWarning(named)] };
    return none(
      `Spyglass watches no wallet: the profile names "${named}", which holds private keys on the node, and watches it only once you acknowledge that (Watch a wallet → Use a wallet already on the node → "${named}" → Watch it anyway). ${CHOOSE}`,
      'profile',
    );
  }
  if (loaded.length === 0) return none(`Spyglass watches no wallet: no wallet is loaded on the node, so there are no watched addresses to show. ${CHOOSE}`, 'node');
  if (loaded.length > 1) return none(`Spyglass watches no wallet: the profile names none and the node has ${loaded.length} wallets loaded (${list}). ${CHOOSE}`, 'node');
  const only = loaded[0]!;
  const kind = await walletKindOf(rpc, only, signal);
  if (kind === 'watch-only') return { wallet: only, kind, from: 'node', warnings: [] };
  const what = kind === 'legacy' ? 'a legacy wallet (not a descriptor wallet)' : 'holds private keys on the node';
  return none(`Spyglass watches no wallet: the profile names none, and the node's only loaded wallet, "${only}", ${kind === 'legacy' ? `is ${what}` : what}, so Spyglass does not pick it by itself. ${CHOOSE}`, 'node');
}

/** The warning a connection carries while it watches a wallet that holds private keys. */
export function keysWarning(name: string): Warning {
  return {
    code: 'wallet-holds-keys',
    message: `The watched wallet "${name}" holds private keys on the node (you acknowledged this). Spyglass never uses them, but anyone with access to this node can spend its coins. A watch-only wallet with your public descriptors is safer.`,
  };
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
