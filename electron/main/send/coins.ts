// The wallet's coins for Send: listunspent's entries as the spend core's coins (the input kind from
// each coin's descriptor, frozen flags from SQLite) and as the coin table's rows (labels: the coin's
// BIP329 output label, else its address's).
import { fromHex } from '../../../shared/bitcoin/hex';
import { inputKindFromDescriptor, inputKindFromScripts } from '../../../shared/bitcoin/spend/kind';
import type { SpendableCoin } from '../../../shared/bitcoin/spend/coins';
import type { InputKind } from '../../../shared/bitcoin/spend/size';
import type { CoinView } from '../../../shared/ipc/send';
import type { Network } from '../../../shared/bitcoin/networks';
import type { UnspentFact } from './facts';
import { pathKindOf } from './paths';

export interface WalletCoin {
  coin: SpendableCoin;
  view: CoinView;
  fact: UnspentFact;
}

/** The spending path the coins of a multi-path descriptor are sized for. */
export interface CoinsAlong {
  network: Network;
  pathId: string;
  /** The kind of a coin of the wallet's multi-path descriptors whose own descriptor does not say (addr()). */
  resolve: (scriptPubKey: Uint8Array) => InputKind | null;
}

export function kindName(k: InputKind): string {
  if (k.type === 'path') return `${k.output} miniscript`;
  if ('m' in k) return `${k.type.replace('-multi', '')} ${k.m}-of-${k.n}`;
  return k.type;
}

function kindOf(u: UnspentFact, along: CoinsAlong | undefined): { kind: InputKind } | { error: string } {
  const spk = fromHex(u.scriptPubKey);
  try {
    if (along) {
      const k = (u.desc ? pathKindOf(u.desc, along.network, along.pathId) : null) ?? along.resolve(spk);
      if (k) return { kind: k };
    }
    if (u.desc) return { kind: inputKindFromDescriptor(u.desc, spk) };
    return {
      kind: inputKindFromScripts(spk, {
        ...(u.redeemScript ? { redeemScript: fromHex(u.redeemScript) } : {}),
        ...(u.witnessScript ? { witnessScript: fromHex(u.witnessScript) } : {}),
      }),
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export function walletCoins(unspent: readonly UnspentFact[], frozen: ReadonlySet<string>, labelOf: (outpoint: string, address: string) => string, along?: CoinsAlong): WalletCoin[] {
  return unspent.map((u) => {
    const outpoint = `${u.txid}:${u.vout}`;
    const k = kindOf(u, along);
    const isFrozen = frozen.has(outpoint);
    const kind: InputKind = 'kind' in k ? k.kind : { type: 'p2wpkh' };
    const coin: SpendableCoin = { txid: u.txid, vout: u.vout, value: BigInt(u.sats), kind, confirmations: u.confirmations, frozen: isFrozen };
    const view: CoinView = {
      outpoint,
      txid: u.txid,
      vout: u.vout,
      address: u.address,
      amountSats: u.sats,
      confirmations: u.confirmations,
      type: 'kind' in k ? kindName(k.kind) : null,
      unusable: 'kind' in k ? null : k.error,
      label: labelOf(outpoint, u.address) || u.label,
      frozen: isFrozen,
      safe: u.safe,
      keyPaths: u.desc ? !/^addr\(|^raw\(/.test(u.desc) : false,
    };
    return { coin, view, fact: u };
  });
}
