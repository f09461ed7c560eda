/**
 * What the node's PSBT updaters share (rpc/rawtransaction.cpp, wallet/rpc/spend.cpp): reading the
 * PSBT (DecodeBase64PSBT's -22), the sighash argument (ParseSighashString), descriptor scan objects
 * (EvalDescriptorStringOrObject), the coins ProcessPSBT finds in the mempool and the UTXO set,
 * Core's PSBTError codes (JSONRPCPSBTError), and the {psbt, complete, hex} result.
 */
import { toPlain, type UValue } from '../../shared/json';
import type { Network } from '../../shared/bitcoin/networks';
import { parseDescriptor, parseDescriptorRange } from '../../shared/bitcoin/descriptor';
import { hexOf, parseTx, type ParsedTx, type TxOut } from '../../shared/bitcoin/tx';
import { decodeBase64Core, encodeBase64, finalizePsbt, parsePsbt, serializePsbt, type Psbt } from '../../shared/bitcoin/psbt';
import { isFinalInput } from '../../shared/bitcoin/psbt/sigdata';
import type { Chain } from '../chain/chain';
import { RpcError } from '../rpc/types';
import { getStr } from '../rpc/args';
import { descriptorCall } from './rpc-util';

/** DecodeBase64PSBT, with Core's -22 texts, under the rules of `coreVersion`. */
export function readPsbt(v: UValue | undefined, coreVersion: 30 | 31.99): Psbt {
  const bytes = decodeBase64Core(getStr(v));
  if (!bytes) throw new RpcError(-22, 'TX decode failed invalid base64');
  const parsed = parsePsbt(bytes, { coreVersion });
  if (!parsed.ok) throw new RpcError(-22, parsed.message);
  return parsed.psbt;
}

const SIGHASH_NAMES: Record<string, number> = {
  DEFAULT: 0,
  ALL: 1,
  NONE: 2,
  SINGLE: 3,
  'ALL|ANYONECANPAY': 0x81,
  'NONE|ANYONECANPAY': 0x82,
  'SINGLE|ANYONECANPAY': 0x83,
};

/** ParseSighashString: undefined for the argument left out (each input's default), else the type or -8. */
export function parseSighash(v: UValue | undefined): number | undefined {
  if (v === undefined || v.t === 'null') return undefined;
  const s = getStr(v);
  const t = SIGHASH_NAMES[s];
  if (t === undefined) throw new RpcError(-8, `'${s}' is not a valid sighash parameter.`);
  return t;
}

/** A descriptor scan object read as EvalDescriptorStringOrObject reads it. */
export interface ScanDescriptor {
  /** The descriptor as given (it may hold private keys). */
  text: string;
  /** Its public form (normalized), for the shared watch-only index. */
  publicText: string;
  /** [begin, end] for a ranged descriptor. */
  range?: [number, number];
}

/** EvalDescriptorStringOrObject: a string, or {desc, range} (range 0–1000 by default; none for one that is not ranged). */
export function scanObject(v: UValue, network: Network): ScanDescriptor {
  let desc: string;
  let range: [number, number] = [0, 1000];
  if (v.t === 'str') desc = v.v;
  else if (v.t === 'obj') {
    const at = (k: string): UValue | undefined => v.v[v.k.indexOf(k)];
    const d = v.k.includes('desc') ? at('desc') : undefined;
    if (!d || d.t === 'null') throw new RpcError(-8, 'Descriptor needs to be provided in scan object');
    desc = getStr(d);
    const r = v.k.includes('range') ? at('range') : undefined;
    if (r && r.t !== 'null') range = descriptorCall(() => parseDescriptorRange(toPlain(r)));
  } else throw new RpcError(-8, 'Scan object needs to be either a string or an object');
  let parsed;
  try {
    parsed = parseDescriptor(desc, network);
  } catch (e) {
    throw new RpcError(-5, (e as Error).message);
  }
  const publicText = parsed.toString();
  return parsed.isRange() ? { text: desc, publicText, range } : { text: desc, publicText };
}

/**
 * ProcessPSBT's sources: an input without a non_witness_utxo gets its previous transaction from the
 * mempool (the devnet, like a node without -txindex, finds no confirmed one), else its coin from the
 * UTXO set seen through the mempool (CCoinsViewMemPool).
 */
export function processSources(chain: Chain, psbt: Psbt): { txs: Map<string, ParsedTx>; coins: Map<string, TxOut> } {
  const txs = new Map<string, ParsedTx>();
  const coins = new Map<string, TxOut>();
  const pool = new Map(chain.mempoolTxs().map((t) => [t.txid, t]));
  for (const input of psbt.inputs) {
    if (input.nonWitnessUtxo) continue;
    const t = pool.get(input.prevTxid);
    if (t) {
      txs.set(t.txid, parseTx(t.raw));
      continue;
    }
    const o = chain.output(input.prevTxid, input.vout);
    if (!o || o.height === 0 || chain.spenders(input.prevTxid, input.vout).some((s) => s.confirmed)) continue;
    coins.set(`${input.prevTxid}:${input.vout}`, { value: o.value, script: o.script });
  }
  return { txs, coins };
}

const SIGHASH_MISMATCH = 'Specified sighash value does not match value stored in PSBT';

/** JSONRPCPSBTError for a shared role's error text (its PSBTErrorString, then what we add in parentheses). */
export function psbtRpcError(text: string): RpcError {
  const core = text.replace(/ \(.*\)$/s, '');
  return new RpcError(core === SIGHASH_MISMATCH ? -22 : -25, core);
}

/** {psbt, complete} and, when complete, the extracted transaction's hex (FinalizeAndExtractPSBT). */
export function processResult(psbt: Psbt, complete: boolean): { psbt: string; complete: boolean; hex?: string } {
  const out: { psbt: string; complete: boolean; hex?: string } = { psbt: encodeBase64(serializePsbt(psbt)), complete };
  if (complete) {
    const f = finalizePsbt(psbt, { strict: false });
    if (f.tx) out.hex = hexOf(f.tx);
  }
  return out;
}

/** PSBTInputSigned for every input: descriptorprocesspsbt's `complete`. */
export function allInputsFinal(psbt: Psbt): boolean {
  return psbt.inputs.every((i) => isFinalInput(i));
}
