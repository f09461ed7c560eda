/**
 * The address UTXO list of the devnet index (spec section 6, shared/spec/index-api.md): the
 * address parsed as the regtest server does, then its unspent outputs filtered, ordered and paged.
 */
import { bech32, bech32m } from '@scure/base';
import type { ChainView, OutputInfo } from '../chain/types';
import { MAINNET, REGTEST, type Network } from '../../shared/bitcoin/networks';
import { base58check } from './pybtc';
import { ApiError, PARAMETER_ERROR, concat, num, pyInt, type Rec } from './records';

export interface DecodedAddress {
  /** pybtc address type: 0 P2PKH, 1 P2SH, 5 P2WPKH, 6 P2WSH, 9 P2TR. */
  readonly nType: number;
  readonly script: Uint8Array;
}

const invalidAddress = (): ApiError => new ApiError(400, PARAMETER_ERROR, 'invalid address');
const mainnetAddress = (): ApiError => new ApiError(400, PARAMETER_ERROR, 'mainnet address is invalid for testnet');

function decodeBech32Any(address: string): { prefix: string; version: number; program: Uint8Array } | undefined {
  for (const coder of [bech32, bech32m]) {
    try {
      const { prefix, words } = coder.decode(address as `${string}1${string}`, 90);
      const [version, ...rest] = words;
      if (version === undefined || version > 16) return undefined;
      if ((version === 0) !== (coder === bech32)) continue;
      return { prefix, version, program: coder.fromWords(rest) };
    } catch {
      // try the other encoding
    }
  }
  return undefined;
}

function segwitScript(version: number, program: Uint8Array): Uint8Array {
  return concat(Uint8Array.of(version === 0 ? 0 : 0x50 + version, program.length), program);
}

/**
 * Parses an address for `/address/utxo/` on the regtest devnet: regtest encodings are accepted
 * (P2PKH, P2SH, P2WPKH, P2WSH, P2TR); valid mainnet ones are rejected with the testnet-server
 * message; anything else (bad checksum, other kinds, other networks) is `invalid address`.
 */
export function decodeAddress(address: string, network: Network = REGTEST): DecodedAddress {
  const lower = address.toLowerCase();
  if (lower.includes('1') && /^[a-z0-9]+$/i.test(address) && lower.lastIndexOf('1') > 0) {
    const d = decodeBech32Any(address);
    if (d) {
      const kind =
        d.version === 0 && d.program.length === 20 ? 5
        : d.version === 0 && d.program.length === 32 ? 6
        : d.version === 1 && d.program.length === 32 ? 9
        : undefined;
      if (d.prefix === network.bech32 && kind !== undefined) return { nType: kind, script: segwitScript(d.version, d.program) };
      if (d.prefix === MAINNET.bech32 && kind !== undefined) throw mainnetAddress();
      throw invalidAddress();
    }
  }
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    throw invalidAddress();
  }
  if (payload.length !== 21) throw invalidAddress();
  const version = payload[0];
  const hash = payload.slice(1);
  if (version === network.pubKeyHash) {
    return { nType: 0, script: concat(Uint8Array.of(0x76, 0xa9, 0x14), hash, Uint8Array.of(0x88, 0xac)) };
  }
  if (version === network.scriptHash) return { nType: 1, script: concat(Uint8Array.of(0xa9, 0x14), hash, Uint8Array.of(0x87)) };
  if (version === MAINNET.pubKeyHash || version === MAINNET.scriptHash) throw mainnetAddress();
  throw invalidAddress();
}

export interface UtxoQuery {
  get(name: string): string | null;
}

export interface UtxoOptions {
  /** Server page limit (`get_block_utxo_page_limit`), 5000 by default. */
  readonly maxLimit?: number;
  readonly network?: Network;
}

/**
 * `/address/utxo/<address>` entries (spec section 6). Throws {@link ApiError} for bad addresses.
 * A P2PKH address asked without `type` also gets the outputs paying its key directly (P2PK, the
 * script in the view's p2pk map), merged in pointer order, and then every entry carries `type`
 * ("P2PKH" or "PUBKEY"), as the server's `address_confirmed_utxo` does; `type=P2PKH` asks for the
 * P2PKH outputs only and `type=PUBKEY` for the P2PK ones only, both without the `type` key.
 * Devnet deviation: mempool-spent outputs are excluded before paging.
 */
export function utxoRecords(view: ChainView, address: string, query: UtxoQuery, opts: UtxoOptions = {}): Rec[] {
  const maxLimit = opts.maxLimit ?? 5000;
  const typeParam = query.get('type');
  const type = typeParam === 'P2PKH' ? 0 : typeParam === 'PUBKEY' ? 2 : null;
  const fromBlock = pyInt(query.get('from_block')) ?? 0;
  const orderParam = query.get('order');
  const order = orderParam === null || orderParam === 'asc' ? 'asc' : 'desc';
  const obaParam = query.get('order_by_amount');
  const byAmount = obaParam === 'True' || obaParam === '1';
  let limit = pyInt(query.get('limit'));
  if (limit === undefined || !(limit > 0 && limit <= maxLimit)) limit = maxLimit;
  let page = pyInt(query.get('page'));
  if (page === undefined || page <= 0) page = 1;

  const decoded = decodeAddress(address, opts.network ?? REGTEST);
  const isP2pkh = decoded.nType === 0;
  const p2pk = isP2pkh && type !== 0 ? view.p2pkScript(decoded.script.subarray(3, 23)) : undefined;
  const pubkeyOuts = p2pk === undefined ? [] : view.unspentForScript(p2pk);
  let outs: OutputInfo[] = isP2pkh && type === 2 ? [...pubkeyOuts] : [...view.unspentForScript(decoded.script), ...pubkeyOuts];
  outs = outs.filter((o) => o.height !== null && o.txIndex !== null);
  if (fromBlock) outs = outs.filter((o) => (o.height as number) >= fromBlock);
  const byPointer = (a: OutputInfo, b: OutputInfo): number =>
    (a.height as number) - (b.height as number) || (a.txIndex as number) - (b.txIndex as number) || a.vout - b.vout;
  const cmp = byAmount
    ? (a: OutputInfo, b: OutputInfo): number => (a.value < b.value ? -1 : a.value > b.value ? 1 : byPointer(a, b))
    : byPointer;
  outs.sort(order === 'asc' ? cmp : (a, b) => cmp(b, a));
  const pageItems = outs.slice(limit * (page - 1), limit * page);
  const withType = isP2pkh && type === null;
  return pageItems.map((o) => {
    const rec: Rec = {
      txId: o.txid,
      vOut: o.vout,
      block: o.height as number,
      txIndex: o.txIndex as number,
      amount: num(o.value),
    };
    if (withType) rec.type = o.script.length === 25 ? 'P2PKH' : 'PUBKEY';
    return rec;
  });
}
