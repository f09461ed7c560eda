/** The devnet's transactions: shared/bitcoin's Core-exact (de)serializer, frozen into ChainTx. */
import { parseTx, serializeTx, type ParsedTx } from '../../shared/bitcoin/tx';
import type { ChainTx, ChainTxIn, ChainTxOut } from './types';

export const COINBASE_TXID = '0'.repeat(64);

export interface TxParts {
  version: number;
  locktime: number;
  vin: ChainTxIn[];
  vout: ChainTxOut[];
}

/** Serializes transaction parts (with witness when any) and freezes them into a ChainTx. */
export function makeChainTx(parts: TxParts): ChainTx {
  const raw = serializeTx(
    {
      version: parts.version >>> 0,
      locktime: parts.locktime >>> 0,
      vin: parts.vin.map((i) => ({ prevTxid: i.txid, vout: i.vout, scriptSig: i.scriptSig, sequence: i.sequence, witness: [...i.witness] })),
      vout: parts.vout.map((o) => ({ value: o.value, script: o.script })),
    },
    { witness: true },
  );
  return parseChainTx(raw);
}

/** Parses a serialized transaction into a ChainTx (throws shared/bitcoin's StreamError on bad data). */
export function parseChainTx(raw: Uint8Array): ChainTx {
  return chainTxOf(parseTx(raw, { allowWitness: true }), raw);
}

/** A ChainTx from a parsed transaction and its exact serialization `raw` (kept as given, e.g. a view into a block's bytes). */
export function chainTxOf(p: ParsedTx, raw: Uint8Array): ChainTx {
  const vin = p.vin.map((i) => ({ txid: i.prevTxid, vout: i.vout, scriptSig: i.scriptSig, sequence: i.sequence, witness: i.witness }));
  return {
    txid: p.txid,
    wtxid: p.wtxid,
    version: p.version,
    locktime: p.locktime,
    vin,
    vout: p.vout,
    raw,
    size: p.size,
    strippedSize: p.strippedSize,
    weight: p.weight,
    segwit: p.hasWitness,
    coinbase: vin.length === 1 && vin[0]!.txid === COINBASE_TXID && vin[0]!.vout === 0xffffffff,
  };
}
