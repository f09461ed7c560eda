// A profile without an index (#17 item 5): the node's wallet stands in for the block index. The
// refresh engine, the incremental refresh, the monitor, the transaction page and the broadcast
// tracker keep asking the same questions (the index's interface), and this answers them from the
// node alone:
//   tip / genesisHash / blockHash   the node's own chain (so the connection check and the monitor
//                                   see the index exactly at the node's tip: never "behind")
//   addressUtxo                     the wallet's confirmed unspent outputs (`listunspent`, one call
//                                   for all addresses per refresh: the engine reads `tip()` before
//                                   its lookups, which starts a new read), heights from confirmations
//                                   against the block count read before and after
//   transaction                     `gettransaction` (wallet transactions: block, position, time)
//                                   + `getrawtransaction` verbosity 2 (inputs' spent outputs)
//   block                           refused: a block record (merkle proofs) is the index's
// What only an index knows is refused with `index.not_configured` and says so: an address the node's
// wallet does not watch (the refresh marks that one address, as for an index's 404), a transaction
// that is neither the wallet's nor findable by the node, the outputs' spenders (left empty).
// Not the same as an index: an immature coinbase output is not listed by the wallet (an index lists
// it), and the position of a coin's transaction in its block is not known (txIndex −1; nothing reads it).
import { AppError, isAppError } from '../../../shared/errors';
import { btcNumberToSats } from '../refresh/node-replies';
import type { BlockIndex, NodeRpc } from '../connection';
import type { CallOptions } from './client';
import type { IndexBlock, IndexTransaction, IndexTxIn, IndexTxOut, IndexUtxo } from './types';

export const NO_INDEX_HELP = 'Add an index URL to the profile (Settings → profile) to see it.';

/** Core's script type names → the index's (spec index-api §4). */
const INDEX_TYPES: Record<string, [nType: number, type: string]> = {
  pubkeyhash: [0, 'P2PKH'],
  scripthash: [1, 'P2SH'],
  pubkey: [2, 'PUBKEY'],
  nulldata: [3, 'NULL_DATA'],
  multisig: [4, 'MULTISIG'],
  witness_v0_keyhash: [5, 'P2WPKH'],
  witness_v0_scripthash: [6, 'P2WSH'],
  witness_v1_taproot: [9, 'V1_P2TR'],
};
const indexType = (coreType: unknown): [number, string] => INDEX_TYPES[String(coreType)] ?? [7, 'NON_STANDARD'];

const HEX64 = /^[0-9a-f]{64}$/;
const sats = (btc: unknown, what: string): bigint => {
  const v = btcNumberToSats(btc, what);
  if (v < 0n) throw new AppError('rpc.bad_reply', `The node sent ${what} ${String(btc)}, a negative amount.`);
  return v;
};
const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

interface WalletCoins {
  /** Every address of the wallet (listreceivedbyaddress with include_empty). */
  addresses: Set<string>;
  utxos: Map<string, IndexUtxo[]>;
}

/** The index interface answered by the node's wallet. `walletName` is the profile's (null: the node's only one). */
export class NodeWalletIndex implements BlockIndex {
  readonly plainHttpRemote = false;
  readonly source = 'node' as const;
  #coins: Promise<WalletCoins> | null = null;
  #closed = false;

  constructor(private readonly rpc: NodeRpc) {}

  #opts(opts: CallOptions, wallet: boolean): { wallet: boolean; signal?: AbortSignal } {
    if (this.#closed) throw new AppError('cancelled', 'The connection was closed.');
    return { wallet, ...(opts.signal ? { signal: opts.signal } : {}) };
  }

  async tip(opts: CallOptions = {}): Promise<{ height: number; hash: string }> {
    // A new read of the wallet's coins starts after every tip: the engine's lookups come after its tips.
    this.#coins = null;
    const info = rec(await this.rpc.call('getblockchaininfo', [], this.#opts(opts, false)));
    const height = num(info.blocks);
    const hash = str(info.bestblockhash);
    if (height === null || hash === null || !HEX64.test(hash)) throw new AppError('rpc.bad_reply', 'The node answered getblockchaininfo without its tip.');
    return { height, hash };
  }

  blockHash(height: number, opts: CallOptions = {}): Promise<string> {
    return this.rpc.call<string>('getblockhash', [height], this.#opts(opts, false));
  }

  genesisHash(opts: CallOptions = {}): Promise<string> {
    return this.blockHash(0, opts);
  }

  block(_pointer: number | string): Promise<IndexBlock> {
    return Promise.reject(new AppError('index.not_configured', `Checking a transaction's merkle proof against a block needs an index: this profile has none. ${NO_INDEX_HELP}`));
  }

  async addressUtxo(address: string, opts: CallOptions = {}): Promise<IndexUtxo[]> {
    this.#coins ??= this.#readCoins(opts).catch((e: unknown) => {
      this.#coins = null;
      throw e;
    });
    const coins = await this.#coins;
    // Neither listed nor holding coins: a spent change address is still the wallet's (it holds nothing).
    if (!coins.addresses.has(address) && (await this.#isMine(address, opts))) return [];
    if (!coins.addresses.has(address)) {
      throw new AppError('index.not_configured', `${address} is not an address of the node's wallet, and this profile has no index to look it up. ${NO_INDEX_HELP}`, { address });
    }
    return coins.utxos.get(address) ?? [];
  }

  async #isMine(address: string, opts: CallOptions): Promise<boolean> {
    try {
      return rec(await this.rpc.call('getaddressinfo', [address], this.#opts(opts, true))).ismine === true;
    } catch (e) {
      if (isAppError(e) && e.code.startsWith('rpc.') && !e.code.startsWith('rpc.http')) return false; // an address the node refuses
      throw e;
    }
  }

  async #readCoins(opts: CallOptions): Promise<WalletCoins> {
    for (let attempt = 0; ; attempt++) {
      const before = await this.rpc.call<number>('getblockcount', [], this.#opts(opts, false));
      const [unspent, received] = await Promise.all([
        this.rpc.call<unknown[]>('listunspent', [1], this.#opts(opts, true)),
        this.rpc.call<unknown[]>('listreceivedbyaddress', { minconf: 0, include_empty: true }, this.#opts(opts, true)),
      ]);
      const after = await this.rpc.call<number>('getblockcount', [], this.#opts(opts, false));
      // Heights come from confirmations: a block found in between would shift them. Read again.
      if (before !== after && attempt < 3) continue;
      const addresses = new Set<string>();
      for (const r of Array.isArray(received) ? received : []) {
        const a = str(rec(r).address);
        if (a) addresses.add(a);
      }
      const utxos = new Map<string, IndexUtxo[]>();
      for (const u of Array.isArray(unspent) ? unspent : []) {
        const r = rec(u);
        const address = str(r.address);
        const txid = str(r.txid);
        const vout = num(r.vout);
        const conf = num(r.confirmations);
        if (!address || !txid || !HEX64.test(txid) || vout === null || conf === null || conf < 1) continue;
        addresses.add(address);
        const list = utxos.get(address) ?? [];
        list.push({ txId: txid, vOut: vout, block: after - conf + 1, txIndex: -1, amount: sats(r.amount, `the amount of ${txid}:${vout}`), type: null });
        utxos.set(address, list);
      }
      for (const list of utxos.values()) list.sort((a, b) => a.block - b.block || (a.txId < b.txId ? -1 : a.txId > b.txId ? 1 : 0) || a.vOut - b.vOut);
      return { addresses, utxos };
    }
  }

  async transaction(hash: string, opts: CallOptions = {}): Promise<IndexTransaction> {
    let wtx: Record<string, unknown> | null = null;
    try {
      wtx = rec(await this.rpc.call('gettransaction', [hash, true], this.#opts(opts, true)));
    } catch (e) {
      // -5 "Invalid or non-wallet transaction id", or no wallet at all: the node may still know it.
      if (!isAppError(e) || !e.code.startsWith('rpc.')) throw e;
    }
    const blockHash = wtx ? str(wtx.blockhash) : null;
    let raw: Record<string, unknown>;
    try {
      raw = rec(await this.rpc.call('getrawtransaction', blockHash ? [hash, 2, blockHash] : [hash, 2], this.#opts(opts, false)));
    } catch (e) {
      if (isAppError(e) && e.code.startsWith('rpc.') && !e.code.startsWith('rpc.http')) {
        throw new AppError('index.not_configured', `Transaction ${hash} is not one of the node wallet's and the node cannot find it (no -txindex): this profile has no index to look it up. ${NO_INDEX_HELP}`, { txid: hash });
      }
      throw e;
    }
    const rawBlock = str(raw.blockhash);
    let height = wtx ? num(wtx.blockheight) : null;
    if (rawBlock && height === null) height = num(rec(await this.rpc.call('getblockheader', [rawBlock, true], this.#opts(opts, false))).height);
    return toIndexTransaction(raw, {
      blockHash: rawBlock,
      blockHeight: rawBlock ? height : null,
      blockIndex: rawBlock && wtx ? num(wtx.blockindex) : null,
      time: num(wtx?.time) ?? num(raw.time) ?? Math.floor(Date.now() / 1000),
    });
  }

  close(): void {
    this.#closed = true;
    this.#coins = null;
  }
}

/** Core's `getrawtransaction` verbosity 2 → the index's transaction record (spenders unknown: empty). */
export function toIndexTransaction(raw: Record<string, unknown>, where: { blockHash: string | null; blockHeight: number | null; blockIndex: number | null; time: number }): IndexTransaction {
  const txid = str(raw.txid);
  if (!txid || !HEX64.test(txid)) throw new AppError('rpc.bad_reply', 'The node answered getrawtransaction without a txid.');
  const vinRaw = Array.isArray(raw.vin) ? raw.vin.map(rec) : [];
  const coinbase = vinRaw.length === 1 && typeof vinRaw[0]!.coinbase === 'string';
  const vIn: IndexTxIn[] = vinRaw.map((v, index) => {
    if (typeof v.coinbase === 'string') {
      return { index, txId: '0'.repeat(64), vOut: 0xffffffff, scriptSig: v.coinbase, sequence: num(v.sequence) ?? 0xffffffff, coinbase: true, txInWitness: Array.isArray(v.txinwitness) ? (v.txinwitness as string[]) : null, scriptSigOpcodes: null, scriptSigAsm: null, type: null, amount: null, blockHeight: null, confirmations: null, address: null, scriptPubKey: null, scriptPubKeyOpcodes: null, scriptPubKeyAsm: null };
    }
    const prev = rec(v.prevout);
    const spk = rec(prev.scriptPubKey);
    const sig = rec(v.scriptSig);
    return {
      index,
      txId: str(v.txid) ?? '',
      vOut: num(v.vout) ?? 0,
      scriptSig: str(sig.hex) ?? '',
      sequence: num(v.sequence) ?? 0xffffffff,
      coinbase: false,
      txInWitness: Array.isArray(v.txinwitness) ? (v.txinwitness as string[]) : null,
      scriptSigOpcodes: null,
      scriptSigAsm: str(sig.asm),
      type: v.prevout ? indexType(spk.type)[1] : null,
      amount: v.prevout ? sats(prev.value, 'a spent output') : null,
      blockHeight: num(prev.height),
      confirmations: null,
      address: str(spk.address),
      scriptPubKey: str(spk.hex),
      scriptPubKeyOpcodes: null,
      scriptPubKeyAsm: str(spk.asm),
    };
  });
  const vOut: IndexTxOut[] = (Array.isArray(raw.vout) ? raw.vout.map(rec) : []).map((o, i) => {
    const spk = rec(o.scriptPubKey);
    const [nType, type] = indexType(spk.type);
    return { index: num(o.n) ?? i, value: sats(o.value, 'an output'), scriptPubKey: str(spk.hex) ?? '', nType, type, addressHash: null, reqSigs: null, address: str(spk.address), scriptPubKeyOpcodes: '', scriptPubKeyAsm: str(spk.asm) ?? '', spent: [] };
  });
  const outputsAmount = vOut.reduce((t, o) => t + o.value, 0n);
  const inputsAmount = coinbase ? 0n : vIn.reduce((t, i) => t + (i.amount ?? 0n), 0n);
  const known = coinbase || vIn.every((i) => i.amount !== null);
  const fee = coinbase || !known ? 0n : inputsAmount - outputsAmount;
  const size = num(raw.size) ?? 0;
  const weight = num(raw.weight) ?? 0;
  const vSize = num(raw.vsize) ?? Math.ceil(weight / 4);
  const nulldata = vOut.find((o) => o.type === 'NULL_DATA');
  const hash = str(raw.hash) ?? txid;
  return {
    txId: txid,
    hash,
    segwit: hash !== txid,
    rbf: vIn.some((i) => !i.coinbase && i.sequence < 0xfffffffe),
    version: num(raw.version) ?? 0,
    size,
    vSize,
    bSize: Math.round((weight - size) / 3),
    weight,
    lockTime: num(raw.locktime) ?? 0,
    vIn,
    vOut,
    blockHash: where.blockHash,
    blockHeight: where.blockHeight,
    blockIndex: where.blockIndex,
    blockTime: where.blockHash ? num(raw.blocktime) : null,
    adjustedTimestamp: where.blockHash ? num(raw.blocktime) : null,
    confirmations: where.blockHash ? (num(raw.confirmations) ?? 0) : null,
    time: where.time,
    coinbase,
    data: nulldata ? nullDataPayload(nulldata.scriptPubKey) : null,
    amount: outputsAmount,
    inputsAmount,
    outputsAmount,
    fee,
    feeRate: vSize > 0 ? Math.round((Number(fee) / vSize) * 100) / 100 : 0,
    valid: true,
    flag: hash !== txid ? '01' : null,
    merkleProof: null,
    mempoolRank: null,
    rawTx: null,
  };
}

/** The payload of an OP_RETURN script (spec §4's NULL_DATA: `6a`, then one direct push or OP_PUSHDATA1). */
function nullDataPayload(script: string): string {
  const op = parseInt(script.slice(2, 4), 16);
  if (Number.isNaN(op)) return '';
  return op === 0x4c ? script.slice(6) : op <= 0x4b ? script.slice(4) : '';
}
