/**
 * The mempool's standardness rules (policy/policy.cpp, validation.cpp PreChecks) with Core's reject
 * reasons: IsStandardTx (version, weight, scriptSig size and push-only, output types, data carrier
 * budget, more than one dust output), tx-size-small, non-final, AreInputsStandard,
 * IsWitnessStandard, ephemeral dust (a transaction with a dust output must pay no fee) and the
 * minimum relay fee. A failure is a {@link Reject}: the reason, and the details Core adds to it.
 */
import { isPushOnly, isUnspendable, solver, witnessProgram, isPayToScriptHash, isPayToAnchor } from '../../shared/bitcoin/script';
import { evalScript, ScriptError } from './interpreter';
import type { ChainTx, ChainTxOut } from './types';

export interface Reject {
  reason: string;
  details?: string;
  /** TX_MISSING_INPUTS (sendrawtransaction answers -25, testmempoolaccept "missing-inputs"). */
  missingInputs?: boolean;
  /** The RPC code sendrawtransaction answers with (-26 unless said). */
  code?: number;
}

export class RejectError extends Error {
  constructor(readonly reject: Reject) {
    super(reject.details ? `${reject.reason}, ${reject.details}` : reject.reason);
  }
}

export const reject = (reason: string, details?: string, extra: Partial<Reject> = {}): never => {
  throw new RejectError({ reason, details, ...extra });
};

/** -minrelaytxfee, -incrementalrelayfee defaults (sat/kvB) and -dustrelayfee (sat/kvB). */
export const MIN_RELAY_FEE = 100n;
export const DUST_RELAY_FEE = 3000n;
/** -datacarriersize (getmempoolinfo maxdatacarriersize): OP_RETURN bytes a transaction may carry. */
export const MAX_DATACARRIER_BYTES = 100_000;
const MAX_STANDARD_TX_WEIGHT = 400_000;
const MAX_STANDARD_SCRIPTSIG_SIZE = 1650;
const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;
const LOCKTIME_THRESHOLD = 500_000_000;

/** CFeeRate(rate sat/kvB).GetFee(vsize): rounded up. */
export const feeAt = (ratePerKvB: bigint, vsize: number): bigint => (ratePerKvB * BigInt(vsize) + 999n) / 1000n;

const compactLen = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);

/** GetDustThreshold at -dustrelayfee: what spending the output would cost, 0 for an unspendable one. */
export function dustThreshold(out: ChainTxOut): bigint {
  if (isUnspendable(out.script)) return 0n;
  let size = 8 + compactLen(out.script.length) + out.script.length;
  size += witnessProgram(out.script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return feeAt(DUST_RELAY_FEE, size);
}

export const isDust = (out: ChainTxOut): boolean => out.value < dustThreshold(out);

/** IsStandardTx. */
export function checkStandard(tx: ChainTx): void {
  const version = tx.version >>> 0;
  if (version > 3 || version < 1) reject('version');
  if (tx.weight > MAX_STANDARD_TX_WEIGHT) reject('tx-size');
  for (const i of tx.vin) {
    if (i.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) reject('scriptsig-size');
    if (!isPushOnly(i.scriptSig)) reject('scriptsig-not-pushonly');
  }
  let dataLeft = MAX_DATACARRIER_BYTES;
  for (const o of tx.vout) {
    const { type, solutions } = solver(o.script);
    if (type === 'nonstandard') reject('scriptpubkey');
    if (type === 'multisig') {
      const m = solutions[0]![0]!;
      const n = solutions[solutions.length - 1]![0]!;
      if (n < 1 || n > 3 || m < 1 || m > n) reject('scriptpubkey');
    }
    if (type === 'nulldata') {
      if (o.script.length > dataLeft) reject('datacarrier');
      dataLeft -= o.script.length;
    }
  }
  if (tx.vout.filter(isDust).length > 1) reject('dust');
  if (tx.strippedSize < MIN_STANDARD_TX_NONWITNESS_SIZE) reject('tx-size-small');
}

/** CheckFinalTxAtTip: the transaction could be in the next block (height tip + 1, time = the tip's median time past). */
export function checkFinal(tx: ChainTx, tipHeight: number, medianTimePast: number): void {
  const lt = tx.locktime >>> 0;
  if (lt === 0) return;
  const limit = lt < LOCKTIME_THRESHOLD ? tipHeight + 1 : medianTimePast;
  if (lt < limit) return;
  if (tx.vin.every((i) => i.sequence >>> 0 === 0xffffffff)) return;
  reject('non-final');
}

/** The P2SH redeem script a scriptSig pushes last (evaluated without flags), or null. */
function redeemScriptOf(scriptSig: Uint8Array): Uint8Array | null {
  const stack: Uint8Array[] = [];
  try {
    evalScript(stack, scriptSig, 'base', { checkEcdsa: () => false, checkLockTime: () => false, checkSequence: () => false });
  } catch (e) {
    if (e instanceof ScriptError) return null;
    throw e;
  }
  return stack.length ? stack[stack.length - 1]! : null;
}

/** Legacy sigop count of a script, accurate (CScript::GetSigOpCount(true)). */
function sigOpCount(script: Uint8Array): number {
  let n = 0;
  let last = -1;
  for (let pc = 0; pc < script.length; ) {
    const op = script[pc]!;
    let len = 1;
    if (op > 0 && op < 0x4c) len += op;
    else if (op === 0x4c) len += 1 + (script[pc + 1] ?? 0);
    else if (op === 0x4d) len += 2 + ((script[pc + 1] ?? 0) | ((script[pc + 2] ?? 0) << 8));
    if (op === 0xac || op === 0xad) n++;
    else if (op === 0xae || op === 0xaf) n += last >= 0x51 && last <= 0x60 ? last - 0x50 : 20;
    last = op;
    pc += len;
  }
  return n;
}

/** AreInputsStandard and IsWitnessStandard. */
export function checkInputsStandard(tx: ChainTx, spent: readonly ChainTxOut[]): void {
  tx.vin.forEach((input, n) => {
    const prev = spent[n]!.script;
    const { type } = solver(prev);
    if (type === 'nonstandard' || type === 'witness_unknown') reject('bad-txns-nonstandard-inputs');
    if (type === 'scripthash') {
      const redeem = redeemScriptOf(input.scriptSig);
      if (!redeem || sigOpCount(redeem) > 15) reject('bad-txns-nonstandard-inputs');
    }
  });
  if (!tx.segwit) return;
  tx.vin.forEach((input, n) => {
    if (input.witness.length === 0) return;
    let prev = spent[n]!.script;
    if (isPayToAnchor(prev)) reject('bad-witness-nonstandard');
    if (isPayToScriptHash(prev)) {
      const redeem = redeemScriptOf(input.scriptSig);
      if (!redeem) reject('bad-witness-nonstandard');
      prev = redeem!;
    }
    const wp = witnessProgram(prev);
    if (!wp) reject('bad-witness-nonstandard');
    if (wp!.version === 0 && wp!.program.length === 32) {
      const script = input.witness[input.witness.length - 1]!;
      if (script.length > 3600 || input.witness.length - 1 > 100 || input.witness.slice(0, -1).some((e) => e.length > 80)) reject('bad-witness-nonstandard');
    }
    if (wp!.version === 1 && wp!.program.length === 32 && input.witness.length >= 2 && input.witness[input.witness.length - 1]![0] === 0x50) reject('bad-witness-nonstandard');
  });
}

/** PreCheckEphemeralTx, then CheckFeeRate against the minimum relay fee. */
export function checkFees(tx: ChainTx, fee: bigint, vsize: number): void {
  if (fee !== 0n && tx.vout.some(isDust)) reject('dust', 'tx with dust output must be 0-fee');
  const min = feeAt(MIN_RELAY_FEE, vsize);
  if (fee < min) reject('min relay fee not met', `${fee} < ${min}`);
}
