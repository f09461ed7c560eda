/**
 * The devnet node (interface A): Bitcoin Core's names, argument rules and result shapes, as the
 * generation it answers as (`coreVersion`), registered into the JSON-RPC framework in devnet/rpc.
 * The methods live by area: chain-rpc.ts (blocks, transactions, UTXOs, network), mempool-rpc.ts,
 * wallet-rpc.ts; here are the wallets, the clock and mining.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { Network } from '../../shared/bitcoin/networks';
import { REGTEST } from '../../shared/bitcoin/networks';
import { decodeDestination } from '../../shared/bitcoin/address';
import { Chain } from '../chain/chain';
import { RpcError, type RpcContext, type RpcMethodSpec } from '../rpc/types';
import { getIntBig } from '../rpc/args';
import { Wallet } from '../wallet/wallet';
import { DEFAULT_CORE_VERSION, type CoreVersion } from '../core-version';
import { ChainRpc } from './chain-rpc';
import { MempoolRpc } from './mempool-rpc';
import { BroadcastRpc } from './broadcast-rpc';
import { FeeRpc } from './fee-rpc';
import { BumpRpc } from './bump-rpc';
import { PsbtRpc } from './psbt-rpc';
import { psbtRoleMethods } from './psbt-roles-rpc';
import { psbtUpdateMethods } from './psbt-update-rpc';
import { walletPsbtMethods } from './wallet-psbt-rpc';
import { psbtBumpMethods } from './psbt-bump-rpc';
import { WalletRpc } from './wallet-rpc';
import { WalletTxRpc } from './wallet-tx-rpc';
import { arg, intArg, method, strArg } from './rpc-util';

export interface NodeOptions {
  network?: Network;
  /** Deterministic key material: same seed → same wallets and chain. */
  seed: string;
  chain?: Chain;
  /** The Core generation to answer as (default 31.99). */
  coreVersion?: CoreVersion;
  /** Where Core would keep the wallets, for its messages (default ~/.bitcoin/regtest/wallets). */
  walletDir?: string;
  /** Milliseconds per block of a wallet rescan run over the event loop (0: within the call; default). */
  rescanDelayMs?: number;
}

export class DevnetNode {
  readonly chain: Chain;
  readonly network: Network;
  readonly wallets = new Map<string, Wallet>();
  /** Wallets that exist "on disk" but are not loaded (unloadwallet). */
  readonly unloaded = new Map<string, Wallet>();
  private readonly seed: string;
  private readonly chainRpc: ChainRpc;
  private readonly mempoolRpc: MempoolRpc;
  private readonly broadcastRpc: BroadcastRpc;
  readonly feeRpc: FeeRpc;
  private readonly bumpRpc: BumpRpc;
  private readonly walletRpc: WalletRpc;
  private readonly walletTxRpc: WalletTxRpc;

  readonly coreVersion: CoreVersion;
  readonly rescanDelayMs: number;
  private readonly walletDir: string;
  /** The chain's own clock, used again after `setmocktime 0`. */
  private readonly systemClock: () => number;

  constructor(opts: NodeOptions) {
    this.network = opts.network ?? REGTEST;
    this.seed = opts.seed;
    this.coreVersion = opts.coreVersion ?? DEFAULT_CORE_VERSION;
    this.rescanDelayMs = opts.rescanDelayMs ?? 0;
    this.walletDir = opts.walletDir ?? join(homedir(), '.bitcoin', 'regtest', 'wallets');
    this.chain = opts.chain ?? new Chain();
    this.systemClock = this.chain.clock;
    this.chain.coinbaseExtraNonce = this.coreVersion === '30' ? 'always' : 'when-short';
    this.chain.chunkTieBreak = this.coreVersion === '30' ? 'arrival' : 'txid';
    this.chain.onChange((ev) => {
      if (ev.type === 'removed') return;
      const txs = ev.type === 'block' ? ev.block.txs : [ev.tx];
      const block = ev.type === 'block' ? ev.block : null;
      for (const w of this.wallets.values()) for (const tx of txs) w.considerTx(tx, { block, rescan: false });
    });
    this.chainRpc = new ChainRpc(this.chain, this.network, this.coreVersion);
    this.mempoolRpc = new MempoolRpc(this.chain, this.coreVersion);
    this.broadcastRpc = new BroadcastRpc(this.chain);
    // IsCurrentForFeeEstimation: out of initial block download, and a tip less than 3 hours old.
    this.feeRpc = new FeeRpc(this.chain, () => this.chainRpc.initialBlockDownload() || this.chain.tip().time < this.chain.clock() - 3 * 60 * 60);
    this.walletRpc = new WalletRpc(this);
    this.walletTxRpc = new WalletTxRpc(this);
    this.bumpRpc = new BumpRpc(this);
  }

  walletSeed(name: string): Uint8Array {
    return sha256(utf8ToBytes(`spyglass-devnet/${this.seed}/wallet/${name}`));
  }

  /** The path Core's messages give for a wallet: the wallets directory joined with its name. */
  walletPath(name: string): string {
    return join(this.walletDir, name);
  }

  createWallet(name: string, opts: { disablePrivateKeys?: boolean; blank?: boolean } = {}): Wallet {
    if (this.wallets.has(name) || this.unloaded.has(name)) {
      throw new RpcError(-4, `Wallet file verification failed. Failed to create database path '${this.walletPath(name)}'. Database already exists.`);
    }
    const w = new Wallet(name, this.network, this.chain, {
      disablePrivateKeys: opts.disablePrivateKeys ?? false,
      blank: opts.blank ?? false,
      seed: this.walletSeed(name),
    });
    this.wallets.set(name, w);
    return w;
  }

  /** Core's GetWalletForJSONRPCRequest. */
  selectWallet(ctx: RpcContext): Wallet {
    if (ctx.walletPath !== null) {
      const w = this.wallets.get(ctx.walletPath);
      if (!w) throw new RpcError(-18, 'Requested wallet does not exist or is not loaded');
      return w;
    }
    if (this.wallets.size === 1) return [...this.wallets.values()][0]!;
    if (this.wallets.size === 0) {
      throw new RpcError(
        -18,
        'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)',
      );
    }
    throw new RpcError(
      -19,
      'Multiple wallets are loaded. Please select which wallet to use by requesting the RPC through the /wallet/<walletname> URI path.',
    );
  }

  /**
   * setmocktime (rpc/node.cpp): the node's clock stands at `time` (UNIX seconds) for new blocks, mempool
   * entries and wallet times; 0 returns to the system clock. The range check is the generation's: v30
   * allows what fits in nanoseconds as int64, 31.99 what fits in a uint32.
   */
  setMockTime(time: bigint): void {
    const max = this.coreVersion === '30' ? 9_223_372_036n : 4_294_967_295n;
    if (time < 0n || time > max) throw new RpcError(-8, `Mocktime must be in the range [0, ${max}], not ${time}.`);
    const t = Number(time);
    this.chain.clock = t === 0 ? this.systemClock : () => t;
  }

  /** Mines `n` blocks to `script`; returns their hashes. */
  mine(n: number, script: Uint8Array): string[] {
    const hashes: string[] = [];
    for (let i = 0; i < n; i++) hashes.push(this.chain.mineBlock(script).hash);
    return hashes;
  }

  private decodeAddressOrThrow(address: string, code = -5): Uint8Array {
    const d = decodeDestination(address, this.network);
    if (!d.ok) throw new RpcError(code, d.error || 'Invalid address');
    return d.script;
  }


  /** Checks that an address is valid for this node's network (used by the CLI and scenarios). */
  scriptFor(address: string): Uint8Array {
    return this.decodeAddressOrThrow(address);
  }

  methods(): RpcMethodSpec[] {
    return [
      ...this.walletRpc.methods(),
      ...this.walletTxRpc.methods(),
      ...this.bumpRpc.methods(),
      method('generatetoaddress', [arg('nblocks', 'num', true), arg('address', 'str', true), arg('maxtries', 'num')], (a) => {
        const n = intArg(a[0], 0);
        const d = decodeDestination(strArg(a[1], ''), this.network);
        if (!d.ok) throw new RpcError(-5, 'Error: Invalid address');
        return this.mine(Math.max(0, n), d.script);
      }),
      // Core's hidden test RPC that waits for the wallets to catch up; the devnet's are never behind.
      method('syncwithvalidationinterfacequeue', [], () => null),
      method('setmocktime', [arg('timestamp', 'num', true)], (a) => {
        this.setMockTime(getIntBig(a[0], 'int64'));
        return null;
      }),
      ...this.chainRpc.methods(),
      ...this.mempoolRpc.methods(),
      ...this.broadcastRpc.methods(),
      ...this.feeRpc.methods(),
      ...new PsbtRpc(this.network, this.coreVersion).methods(),
      ...psbtRoleMethods(this.coreVersion),
      ...psbtUpdateMethods(this.chain, this.network, this.coreVersion),
      ...walletPsbtMethods(this),
      ...psbtBumpMethods(this),
    ];
  }
}
