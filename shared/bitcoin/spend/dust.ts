/**
 * Dust, and what to do with change too small to keep. Rules from Core: GetDustThreshold and IsDust
 * (policy/policy.cpp) and the wallet's min_viable_change (wallet/spend.cpp CreateTransactionInternal).
 */
import { isUnspendable } from '../script';
import { feeFor, DUST_RELAY_FEE_RATE, DEFAULT_DISCARD_FEE_RATE, type FeeRate } from './feerate';
import { outputSize } from './size';

function isWitnessProgram(script: Uint8Array): boolean {
  // CScript::IsWitnessProgram: OP_0 or OP_1..OP_16, then one push of 2 to 40 bytes, nothing else.
  const n = script.length;
  if (n < 4 || n > 42) return false;
  const v = script[0]!;
  if (v !== 0 && (v < 0x51 || v > 0x60)) return false;
  return script[1]! + 2 === n;
}

/**
 * GetDustThreshold: the value below which an output costs more than a third of itself to spend at
 * the dust relay fee (3 sat/vB): (output size + the size of an input spending it) × rate, rounded
 * up. The input is 148 bytes for a non-witness output, 67.75 → 67 for a witness program (a p2wpkh
 * spend, whatever the version). Unspendable outputs (OP_RETURN) are never dust: 0.
 * With the default rate: p2pkh 546, p2sh 540, p2wpkh 294, p2wsh and p2tr 330.
 */
export function dustThreshold(script: Uint8Array, rate: FeeRate = DUST_RELAY_FEE_RATE): bigint {
  if (isUnspendable(script)) return 0n;
  const spend = isWitnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return feeFor(rate, outputSize(script) + spend);
}

/** IsDust: the value is below the dust threshold of its script. */
export function isDust(value: bigint, script: Uint8Array, rate: FeeRate = DUST_RELAY_FEE_RATE): boolean {
  return value < dustThreshold(script, rate);
}

export interface ChangeRules {
  /** The change output's script (its size is paid now; its dust threshold applies). */
  changeScript: Uint8Array;
  /** vsize of spending the change later (inputVsize of the change's kind). */
  changeSpendVsize: number;
  /** Core's discard fee rate: the rate the change is expected to be spent at; default 10 sat/vB. */
  discardFeeRate?: FeeRate;
}

/**
 * Core's min_viable_change: the smallest change worth making. At least the change output's dust
 * threshold at the discard fee rate (never below the dust relay fee), and at least 1 sat more than
 * the fee of spending it later at that rate.
 */
export function minViableChange(rules: ChangeRules): bigint {
  const discard = rules.discardFeeRate ?? DEFAULT_DISCARD_FEE_RATE;
  const rate = discard > DUST_RELAY_FEE_RATE ? discard : DUST_RELAY_FEE_RATE;
  const spendFee = feeFor(rate, rules.changeSpendVsize) + 1n;
  const dust = dustThreshold(rules.changeScript, rate);
  return spendFee > dust ? spendFee : dust;
}

export interface SettledChange {
  /** The change output's value, or null when there is no change output. */
  change: bigint | null;
  /** What goes to the fee instead of a change output (0 when there is change). */
  addedToFee: bigint;
}

/** "Change below dust goes to the fee": keep `amount` as change if it is viable, else give it to the fee. */
export function settleChange(amount: bigint, rules: ChangeRules): SettledChange {
  if (amount < 0n) throw new RangeError(`change cannot be negative (${amount} sat)`);
  return amount >= minViableChange(rules) ? { change: amount, addedToFee: 0n } : { change: null, addedToFee: amount };
}

