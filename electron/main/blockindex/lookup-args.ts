// What a caller asks the index for — a block pointer, a transaction id, an address — checked before
// any request is made (input.invalid with the field), and how each is written in the request path.
import { AppError } from '../../../shared/errors';
import { decodeBase58Check } from '../../../shared/bitcoin/base58';
import { excerpt } from './reply-body';

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** An address as the index takes it (14–100 letters and digits), or input.invalid. */
export function checkAddress(address: string): void {
  if (typeof address !== 'string' || !/^[A-Za-z0-9]{14,100}$/.test(address)) {
    throw new AppError('input.invalid', `"${excerpt(String(address), 40)}" is not an address (expected 14–100 letters and digits).`, { field: 'address' });
  }
}

/** A 64-hex hash, lower-cased, or input.invalid naming `what`. */
export function hexHash(hash: string, what: string): string {
  if (typeof hash !== 'string' || !HEX64.test(hash)) {
    throw new AppError('input.invalid', `"${excerpt(String(hash), 70)}" is not a ${what}: expected 64 hex characters.`, { field: what });
  }
  return hash.toLowerCase();
}

/** Block pointer: a height (number or decimal string), a 64-hex hash, or 'last'. */
export function blockPointer(pointer: number | string): { segment: string; what: string; height?: number; hash?: string } {
  if (typeof pointer === 'number') {
    if (!Number.isSafeInteger(pointer) || pointer < 0) {
      throw new AppError('input.invalid', `${String(pointer)} is not a block height: expected a whole number ≥ 0.`, { field: 'block' });
    }
    return { segment: String(pointer), what: `at height ${pointer}`, height: pointer };
  }
  if (pointer === 'last') return { segment: 'last', what: 'last' };
  if (typeof pointer === 'string' && /^(0|[1-9][0-9]{0,10})$/.test(pointer)) {
    const height = Number(pointer);
    return { segment: pointer, what: `at height ${height}`, height };
  }
  if (typeof pointer === 'string' && HEX64.test(pointer)) {
    const hash = pointer.toLowerCase();
    return { segment: hash, what: `with hash ${hash}`, hash };
  }
  throw new AppError('input.invalid', `"${excerpt(String(pointer), 70)}" is not a block pointer: expected a height, a 64-hex block hash or 'last'.`, { field: 'block' });
}

/** A base58 P2PKH address (version byte 0x00 on mainnet, 0x6f on the test networks). */
export function isP2pkhAddress(address: string): boolean {
  if (!/^[1mn]/.test(address)) return false; // no other kind of address starts so
  const payload = decodeBase58Check(address, 21);
  return payload !== null && payload.length === 21 && (payload[0] === 0x00 || payload[0] === 0x6f);
}
