/**
 * The weight a signed transaction would have if every signature had its largest standard size
 * (ECDSA 72 bytes with sighash, Schnorr 65): the signed bytes with each signature replaced by a
 * dummy of that size, scripts re-encoded, measured by Spyglass's transaction parser. The size
 * estimate must equal it exactly; and the signature sizes actually met are reported.
 */
import { parseTx, serializeTx, type TxIn } from '../../../shared/bitcoin/tx';
import { isValidSignatureEncoding, parseScriptOps } from '../../../shared/bitcoin/script';

export interface SigStats {
  /** Lengths (with sighash byte) of every ECDSA signature, scriptSig and witness. */
  ecdsa: number[];
  /** Lengths of every Schnorr key-path signature. */
  schnorr: number[];
}

function pushBytes(data: Uint8Array): number[] {
  const n = data.length;
  if (n < 0x4c) return [n, ...data];
  if (n <= 0xff) return [0x4c, n, ...data];
  return [0x4d, n & 0xff, n >> 8, ...data];
}

function isEcdsaSig(item: Uint8Array): boolean {
  return item.length >= 9 && item[0] === 0x30 && isValidSignatureEncoding(item);
}

function padScriptSig(scriptSig: Uint8Array, stats: SigStats): Uint8Array {
  const out: number[] = [];
  for (const op of parseScriptOps(scriptSig)) {
    if (op.data && op.data.length > 0) {
      if (isEcdsaSig(op.data)) {
        stats.ecdsa.push(op.data.length);
        out.push(...pushBytes(new Uint8Array(72)));
      } else out.push(...pushBytes(op.data));
    } else out.push(op.op);
  }
  return Uint8Array.from(out);
}

function padWitness(witness: Uint8Array[], stats: SigStats): Uint8Array[] {
  if (witness.length === 1 && (witness[0]!.length === 64 || witness[0]!.length === 65)) {
    stats.schnorr.push(witness[0]!.length);
    return [new Uint8Array(65)];
  }
  return witness.map((item) => {
    if (isEcdsaSig(item)) {
      stats.ecdsa.push(item.length);
      return new Uint8Array(72);
    }
    return item;
  });
}

export function paddedWeight(signed: Uint8Array): { weight: number; vsize: number; actualWeight: number; actualVsize: number; stats: SigStats } {
  const tx = parseTx(signed);
  const stats: SigStats = { ecdsa: [], schnorr: [] };
  const vin: TxIn[] = tx.vin.map((i) => ({ ...i, scriptSig: padScriptSig(i.scriptSig, stats), witness: padWitness(i.witness, stats) }));
  const padded = parseTx(serializeTx({ ...tx, vin }, { witness: tx.hasWitness }));
  return { weight: padded.weight, vsize: padded.vsize, actualWeight: tx.weight, actualVsize: tx.vsize, stats };
}
