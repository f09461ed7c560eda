/**
 * Size of a transaction once signed, known before it is signed: weight and vsize per input type,
 * per output and for the fixed overhead. The rules are Core's (wallet/spend.cpp MaxInputWeight and
 * CalculateMaximumSignedTxSize, script/descriptor.cpp MaxSatisfactionWeight), written anew.
 *
 * Contract: the estimate is never below the vsize of the signed transaction. ECDSA signatures are
 * counted at their largest standard size, 72 bytes with the sighash byte (a 33-byte R, i.e. a
 * signer that does not grind R, and a low S, which standardness requires); Schnorr signatures at
 * 65 bytes (64 + an explicit sighash byte; with SIGHASH_DEFAULT they are 64). A signature a byte
 * shorter (low R, about half of all signatures from a signer that does not grind) makes the
 * estimate 1 byte high: 1 WU in a witness, 4 WU (1 vB) in a scriptSig. Hence the estimate is at
 * most 1 vB per input above the signed vsize for every single-signature input and for witness
 * multisig up to 4 signatures; a witness m-of-n input can be ⌈m/4⌉ vB above, a p2sh m-of-n input
 * m vB (+2 when its scriptSig's length falls below 253 bytes). No estimate can do better without
 * knowing the signatures: one that counted 71 bytes would be below the signed size for every
 * signer that does not grind R. A signature of 70 bytes or less (R or S with a leading zero byte,
 * about 1 signature in 85; 1 in 128 when R is ground) adds 1 byte more.
 *
 * This is what Core counts for a watch-only wallet: the fees of all 9 walletcreatefundedpsbt
 * recordings (watch-only single-sig and 2-of-3 vault wallets) are reproduced exactly with 72-byte
 * signatures, and 8 of them come out short with 71 (the ninth, at 0.01 sat/vB, rounds to the same
 * 3 sat either way; test/bitcoin/spend/core-fees.test.ts). A wallet holding its keys grinds R and
 * counts 71 bytes (`ecdsa: 'low-r'`, which breaks the contract for a signer that does not grind).
 *
 * One place where we differ from Core on purpose: Core counts the push of a p2sh redeemScript as
 * one byte (SHDescriptor::MaxSatisfactionWeight); a multisig redeemScript over 75 bytes (3 keys
 * or more) is pushed with OP_PUSHDATA1 (2 bytes), so Core is 1 byte low there. We count the real
 * push.
 */
import { compactSizeLen } from '../tx';
import { SpendError } from './errors';

export const WITNESS_SCALE_FACTOR = 4;
/** Core's MAX_STANDARD_TX_WEIGHT (policy/policy.h). */
export const MAX_STANDARD_TX_WEIGHT = 400_000;
/** MAX_PUBKEYS_PER_MULTISIG. */
export const MAX_MULTISIG_KEYS = 20;
/** MAX_SCRIPT_ELEMENT_SIZE: the largest p2sh redeemScript. */
const MAX_REDEEM_SCRIPT = 520;

/** How a coin is spent, which decides the size of its input. Multisig is multi() or sortedmulti() (same size). */
export type InputKind =
  | { type: 'p2pkh'; /** a 65-byte uncompressed key (old wallets); default false */ uncompressed?: boolean }
  | { type: 'p2sh-p2wpkh' }
  | { type: 'p2wpkh' }
  /** Taproot key path (a single Schnorr signature). */
  | { type: 'p2tr' }
  | { type: 'p2sh-multi'; m: number; n: number; /** how many of the n keys are 65-byte uncompressed; default 0 */ uncompressed?: number }
  | { type: 'p2wsh-multi'; m: number; n: number }
  | { type: 'p2sh-p2wsh-multi'; m: number; n: number }
  /**
   * One spending path of a miniscript or taproot-tree descriptor, sized by path-size.ts (its largest
   * witness along that path, with the script and control block): `witness` bytes with the item count,
   * `scriptSig` bytes without their length (sh(wsh()): 35).
   */
  | { type: 'path'; output: 'p2wsh' | 'p2sh-p2wsh' | 'p2tr'; witness: number; scriptSig: number; path: string };

export type InputType = InputKind['type'];

/** Core's OutputType: the classes "avoid mixing output types" keeps apart. */
export type OutputClass = 'legacy' | 'p2sh-segwit' | 'bech32' | 'bech32m';

/** ECDSA signature size assumed: 'max' (72 bytes with sighash, the contract) or 'low-r' (71, Core's own assumption). */
export type EcdsaSizeModel = 'max' | 'low-r';

export interface SizeOptions {
  ecdsa?: EcdsaSizeModel;
}

/** An output given by its script or just its script's length. */
export type OutputSpec = Uint8Array | { scriptLength: number };

export interface TxSize {
  weight: number;
  /** ceil(weight / 4): GetVirtualTransactionSize without sigops. */
  vsize: number;
  /** Whether the transaction carries witness data (marker and flag counted). */
  segwit: boolean;
}

const SCHNORR_SIG = 65; // 64 + sighash byte when not SIGHASH_DEFAULT
const COMPRESSED_KEY = 33;
const UNCOMPRESSED_KEY = 65;
const OUTPOINT_AND_SEQUENCE = 32 + 4 + 4;

function ecdsaSig(model: EcdsaSizeModel | undefined): number {
  return model === 'low-r' ? 71 : 72;
}

/** Bytes of pushing `len` bytes of data in a script (opcode + length + data). */
function pushSize(len: number): number {
  return len < 0x4c ? 1 + len : len <= 0xff ? 2 + len : len <= 0xffff ? 3 + len : 5 + len;
}

/** Bytes of pushing the number k in a multisig script: OP_1..OP_16, else a 1-byte push. */
function smallNumSize(k: number): number {
  return k <= 16 ? 1 : 2;
}

/** Size of a multi(m, n keys) script: <m> <key>… <n> OP_CHECKMULTISIG. */
export function multisigScriptSize(m: number, n: number, uncompressed = 0): number {
  return smallNumSize(m) + (n - uncompressed) * (1 + COMPRESSED_KEY) + uncompressed * (1 + UNCOMPRESSED_KEY) + smallNumSize(n) + 1;
}

/** Throws 'spend.invalid_input_kind' for parameters no standard script has. */
export function validateInputKind(k: InputKind): void {
  if (k.type === 'path') {
    if (!Number.isSafeInteger(k.witness) || k.witness < 2 || !Number.isSafeInteger(k.scriptSig) || k.scriptSig < 0) {
      throw new SpendError('spend.invalid_input_kind', `A spending path of ${k.witness} witness bytes and a ${k.scriptSig}-byte scriptSig is not possible`, { type: k.type });
    }
    return;
  }
  if (k.type !== 'p2sh-multi' && k.type !== 'p2wsh-multi' && k.type !== 'p2sh-p2wsh-multi') return;
  const { m, n } = k;
  if (!Number.isInteger(m) || !Number.isInteger(n) || m < 1 || n < 1 || m > n || n > MAX_MULTISIG_KEYS) {
    throw new SpendError('spend.invalid_input_kind', `A ${m}-of-${n} multisig is not possible: need 1 ≤ m ≤ n ≤ ${MAX_MULTISIG_KEYS}`, { type: k.type, m, n });
  }
  if (k.type === 'p2sh-multi') {
    const u = k.uncompressed ?? 0;
    if (!Number.isInteger(u) || u < 0 || u > n) {
      throw new SpendError('spend.invalid_input_kind', `A ${m}-of-${n} multisig cannot have ${u} uncompressed keys`, { type: k.type, m, n });
    }
    const size = multisigScriptSize(m, n, u);
    if (size > MAX_REDEEM_SCRIPT) {
      throw new SpendError('spend.invalid_input_kind', `A p2sh ${m}-of-${n} multisig script is ${size} bytes, over the ${MAX_REDEEM_SCRIPT}-byte limit of a redeemScript (use p2wsh)`, { type: k.type, m, n });
    }
  }
}

export function isSegwitKind(k: InputKind): boolean {
  return k.type !== 'p2pkh' && k.type !== 'p2sh-multi';
}

export function outputClassOf(k: InputKind): OutputClass {
  switch (k.type) {
    case 'p2pkh':
    case 'p2sh-multi':
      return 'legacy';
    case 'p2sh-p2wpkh':
    case 'p2sh-p2wsh-multi':
      return 'p2sh-segwit';
    case 'p2wpkh':
    case 'p2wsh-multi':
      return 'bech32';
    case 'p2tr':
      return 'bech32m';
    case 'path':
      return k.output === 'p2tr' ? 'bech32m' : k.output === 'p2wsh' ? 'bech32' : 'p2sh-segwit';
  }
}

/** scriptSig bytes and witness bytes (including the stack item count) of a signed input. */
function satisfaction(k: InputKind, sig: number): { scriptSig: number; witness: number } {
  switch (k.type) {
    case 'p2pkh':
      return { scriptSig: 1 + sig + pushSize(k.uncompressed ? UNCOMPRESSED_KEY : COMPRESSED_KEY) , witness: 0 };
    case 'p2wpkh':
      return { scriptSig: 0, witness: 1 + 1 + sig + 1 + COMPRESSED_KEY };
    case 'p2sh-p2wpkh':
      return { scriptSig: pushSize(22), witness: 1 + 1 + sig + 1 + COMPRESSED_KEY };
    case 'p2tr':
      return { scriptSig: 0, witness: 1 + 1 + SCHNORR_SIG };
    case 'p2sh-multi': {
      const rs = multisigScriptSize(k.m, k.n, k.uncompressed ?? 0);
      return { scriptSig: 1 + k.m * (1 + sig) + pushSize(rs), witness: 0 };
    }
    case 'p2wsh-multi':
    case 'p2sh-p2wsh-multi': {
      const ws = multisigScriptSize(k.m, k.n);
      // items: the empty dummy, m signatures, the witnessScript
      const witness = compactSizeLen(k.m + 2) + 1 + k.m * (1 + sig) + compactSizeLen(ws) + ws;
      return { scriptSig: k.type === 'p2wsh-multi' ? 0 : pushSize(34), witness };
    }
    case 'path':
      return { scriptSig: k.scriptSig, witness: k.witness };
  }
}

/**
 * Weight of the input once signed: outpoint, sequence, scriptSig with its length, and the witness
 * (for an input without witness in a transaction with witness: its empty stack, 1 WU).
 */
export function inputWeight(k: InputKind, txHasWitness: boolean, opts: SizeOptions = {}): number {
  validateInputKind(k);
  const { scriptSig, witness } = satisfaction(k, ecdsaSig(opts.ecdsa));
  const base = OUTPOINT_AND_SEQUENCE + compactSizeLen(scriptSig) + scriptSig;
  const wit = isSegwitKind(k) ? witness : txHasWitness ? 1 : 0;
  return base * WITNESS_SCALE_FACTOR + wit;
}

/**
 * Core's CalculateMaximumSignedInputSize: the input's vsize in a transaction with witness, rounded
 * up (149 for p2pkh, 68 for p2wpkh with 71-byte signatures…). Coin selection prices coins with it.
 */
export function inputVsize(k: InputKind, opts: SizeOptions = {}): number {
  return Math.ceil(inputWeight(k, true, opts) / WITNESS_SCALE_FACTOR);
}

function scriptLength(o: OutputSpec): number {
  return o instanceof Uint8Array ? o.length : o.scriptLength;
}

/** Serialized size of an output: 8-byte value, script length, script. */
export function outputSize(o: OutputSpec): number {
  const len = scriptLength(o);
  if (!Number.isInteger(len) || len < 0) throw new RangeError(`script length must be a non-negative integer, got ${len}`);
  return 8 + compactSizeLen(len) + len;
}

/** Version, input and output counts, locktime; plus marker and flag (2 WU) when the transaction has witness. */
export function txOverheadWeight(nIn: number, nOut: number, segwit: boolean): number {
  return (4 + compactSizeLen(nIn) + compactSizeLen(nOut) + 4) * WITNESS_SCALE_FACTOR + (segwit ? 2 : 0);
}

/** The signed size of a transaction spending `inputs` to `outputs` (CalculateMaximumSignedTxSize). */
export function estimateTx(inputs: readonly InputKind[], outputs: readonly OutputSpec[], opts: SizeOptions = {}): TxSize {
  const segwit = inputs.some(isSegwitKind);
  let weight = txOverheadWeight(inputs.length, outputs.length, segwit);
  for (const o of outputs) weight += outputSize(o) * WITNESS_SCALE_FACTOR;
  for (const k of inputs) weight += inputWeight(k, segwit, opts);
  return { weight, vsize: Math.ceil(weight / WITNESS_SCALE_FACTOR), segwit };
}

/** A short human name of an input kind ("p2wsh 2-of-3 multisig"). */
export function describeInputKind(k: InputKind): string {
  switch (k.type) {
    case 'p2sh-multi':
      return `p2sh ${k.m}-of-${k.n} multisig`;
    case 'p2wsh-multi':
      return `p2wsh ${k.m}-of-${k.n} multisig`;
    case 'p2sh-p2wsh-multi':
      return `p2sh-p2wsh ${k.m}-of-${k.n} multisig`;
    case 'p2tr':
      return 'p2tr key path';
    case 'path':
      return `${k.output} (${k.path})`;
    default:
      return k.type;
  }
}
