/**
 * PSBT creation and joining (rpc/rawtransaction.cpp): createpsbt (createrawtransaction's transaction
 * in a blank PSBT), converttopsbt (a raw transaction with its signatures cleared, or refused) and
 * joinpsbts (the inputs and outputs of version 0 PSBTs in one, highest transaction version, lowest
 * locktime, then shuffled as Core does), over the shared PSBT model (shared/bitcoin/psbt). Current
 * Core writes version 2 by default and takes a `psbt_version` (2 or 0); v30 writes version 0 only.
 */
import { U_NULL, type UValue } from '../../shared/json';
import type { Network } from '../../shared/bitcoin/networks';
import { createRawTransaction } from '../../shared/bitcoin/createrawtransaction';
import { decodeHexTx } from '../../shared/bitcoin/decode';
import { serializeTx, type Tx } from '../../shared/bitcoin/tx';
import { convertPsbt, decodeBase64Core, encodeBase64, parsePsbt, serializePsbt, type Psbt } from '../../shared/bitcoin/psbt';
import { RpcError, type RpcMethodSpec } from '../rpc/types';
import { getBool, getInt, getStr } from '../rpc/args';
import { psbtGeneration, type CoreVersion } from '../core-version';
import { arg, method } from './rpc-util';

const compact = (n: number): number[] => (n < 0xfd ? [n] : n <= 0xffff ? [0xfd, n & 0xff, n >> 8] : [0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24]);

/** `psbt_version` (2 by default; only 2 or 0). */
export function psbtVersionArg(v: UValue | undefined): 0 | 2 {
  if (v === undefined || v.t === 'null') return 2;
  const n = getInt(v, 'uint32');
  if (n !== 0 && n !== 2) throw new RpcError(-8, 'The PSBT version can only be 2 or 0');
  return n;
}

/** PartiallySignedTransaction(tx, version): the unsigned transaction in a PSBT with empty maps. */
export function blankPsbt(tx: Tx, version: 0 | 2, coreVersion: CoreVersion): Psbt {
  const raw = serializeTx(tx, { witness: false });
  const bytes = Uint8Array.from([0x70, 0x73, 0x62, 0x74, 0xff, 0x01, 0x00, ...compact(raw.length), ...raw, 0x00, ...tx.vin.map(() => 0), ...tx.vout.map(() => 0)]);
  const parsed = parsePsbt(bytes, { coreVersion: psbtGeneration(coreVersion) });
  if (!parsed.ok) throw new Error(`blank PSBT did not parse: ${parsed.message}`);
  if (version === 0) return parsed.psbt;
  const v2 = convertPsbt(parsed.psbt, 2);
  if (!v2.ok) throw new Error(`blank PSBT did not convert: ${v2.message}`);
  return v2.psbt;
}

export class PsbtRpc {
  constructor(
    private readonly network: Network,
    private readonly coreVersion: CoreVersion,
  ) {}

  private get v2(): boolean {
    return this.coreVersion !== '30';
  }

  private psbtVersion(v: UValue | undefined): 0 | 2 {
    return psbtVersionArg(v);
  }

  private blank(tx: Tx, version: 0 | 2): string {
    return encodeBase64(serializePsbt(blankPsbt(tx, version, this.coreVersion)));
  }

  createPsbt(a: (UValue | undefined)[]): string {
    const res = createRawTransaction({ inputs: a[0] ?? U_NULL, outputs: a[1] ?? U_NULL, locktime: a[2], replaceable: a[3], version: a[4] }, this.network);
    if (!res.ok) throw new RpcError(res.code, res.message);
    const version = this.v2 ? this.psbtVersion(a[5]) : 0;
    return this.blank(decodeHexTx(res.hex, true, false)!, version);
  }

  convertToPsbt(a: (UValue | undefined)[]): string {
    const hex = getStr(a[0]);
    const permitSigData = a[1] === undefined ? false : getBool(a[1]);
    const witnessGiven = a[2] !== undefined;
    const isWitness = witnessGiven ? getBool(a[2]) : false;
    const tx = decodeHexTx(hex, witnessGiven ? !isWitness : true, witnessGiven ? isWitness : true);
    if (!tx) throw new RpcError(-22, 'TX decode failed');
    for (const i of tx.vin) {
      if ((i.scriptSig.length > 0 || i.witness.length > 0) && !permitSigData) throw new RpcError(-22, 'Inputs must not have scriptSigs and scriptWitnesses');
      i.scriptSig = new Uint8Array(0);
      i.witness = [];
    }
    const version = this.v2 ? this.psbtVersion(a[3]) : 0;
    return this.blank(tx, version);
  }

  joinPsbts(a: (UValue | undefined)[]): string {
    const list = a[0]!.t === 'arr' ? a[0]!.v : [];
    if (list.length <= 1) throw new RpcError(-8, 'At least two PSBTs are required to join PSBTs.');
    const psbts: Psbt[] = [];
    let bestVersion = 1;
    let bestLocktime = 0xffffffff;
    for (const v of list) {
      const bytes = decodeBase64Core(getStr(v));
      if (!bytes) throw new RpcError(-22, 'TX decode failed invalid base64');
      const r = parsePsbt(bytes, { coreVersion: psbtGeneration(this.coreVersion) });
      if (!r.ok) throw new RpcError(-22, r.message);
      if (r.psbt.version !== 0) throw new RpcError(-8, 'joinpsbts only operates on version 0 PSBTs');
      psbts.push(r.psbt);
      bestVersion = Math.max(bestVersion, r.psbt.txVersion >>> 0);
      bestLocktime = Math.min(bestLocktime, r.psbt.locktime ?? 0);
    }
    const merged: Psbt = { version: 0, txVersion: bestVersion, locktime: bestLocktime, fallbackLocktime: bestLocktime, xpubs: new Map(), proprietary: new Map(), unknown: new Map(), inputs: [], outputs: [] };
    const seen = new Set<string>();
    for (const p of psbts) {
      for (const input of p.inputs) {
        const k = `${input.prevTxid}:${input.vout}`;
        if (seen.has(k)) throw new RpcError(-8, `Input ${k} exists in multiple PSBTs`);
        seen.add(k);
        merged.inputs.push(input);
      }
      merged.outputs.push(...p.outputs);
      for (const [k, e] of p.xpubs) {
        const have = merged.xpubs.get(k);
        if (!have) merged.xpubs.set(k, { origin: e.origin, xpubs: [...e.xpubs] });
        else for (const x of e.xpubs) if (!have.xpubs.some((y) => y.sort === x.sort)) have.xpubs.push(x);
      }
      for (const [k, val] of p.unknown) if (!merged.unknown.has(k)) merged.unknown.set(k, val);
    }
    // Core shuffles the inputs and the outputs (std::shuffle with a fresh random context).
    shuffle(merged.inputs);
    shuffle(merged.outputs);
    return encodeBase64(serializePsbt(merged));
  }

  methods(): RpcMethodSpec[] {
    const extra = this.v2 ? [arg('psbt_version', 'num')] : [];
    return [
      method('createpsbt', [arg('inputs', 'arr', true), arg('outputs', 'any', true), arg('locktime', 'num'), arg('replaceable', 'bool'), arg('version', 'num'), ...extra], (a) => this.createPsbt(a)),
      method('converttopsbt', [arg('hexstring', 'str', true), arg('permitsigdata', 'bool'), arg('iswitness', 'bool'), ...extra], (a) => this.convertToPsbt(a)),
      method('joinpsbts', [arg('txs', 'arr', true)], (a) => this.joinPsbts(a)),
    ];
  }
}

function shuffle<T>(xs: T[]): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
}
