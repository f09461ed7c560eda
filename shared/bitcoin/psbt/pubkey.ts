/** Public keys as Core's PSBT reader checks them (CPubKey::IsFullyValid, without libsecp256k1). */
import { hexOf } from '../tx';
import { FIELD_P, curveRhs, isCurveX } from '../secp';

function bytesToBig(b: Uint8Array, start: number, end: number): bigint {
  return BigInt('0x' + hexOf(b, start, end));
}

/** CPubKey::GetLen(header). */
function pubkeyLen(h: number): number {
  if (h === 2 || h === 3) return 33;
  if (h === 4 || h === 6 || h === 7) return 65;
  return 0;
}

/** CPubKey(bytes).IsFullyValid(): right size for the header and a point on secp256k1. */
export function isFullyValidPubkey(b: Uint8Array): boolean {
  const h = b[0];
  if (h === undefined || pubkeyLen(h) !== b.length) return false;
  const x = bytesToBig(b, 1, 33);
  if (b.length === 33) return isCurveX(x);
  if (x >= FIELD_P) return false;
  const y = bytesToBig(b, 33, 65);
  if (y >= FIELD_P) return false;
  if ((y * y) % FIELD_P !== curveRhs(x)) return false;
  if (h === 6 || h === 7) return Number(y & 1n) === (h & 1);
  return true;
}
