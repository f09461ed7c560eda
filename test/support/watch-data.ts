/** Small shared pieces of the SQLite store tests (watch-store, overview, store): addresses, ids, records, a profile. */
import { AppError } from '../../shared/errors';
import type { Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import type { UtxoRecord } from '../../electron/main/store/watch';

export const A = 'bcrt1qaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
export const B = 'bcrt1qbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
export const C = 'bcrt1qcccccccccccccccccccccccccccccccccccccc';
export const U = 'mwuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu';
export const tx = (c: string): string => c.repeat(64);
export const tip = (height: number, c = 'a'): { height: number; hash: string } => ({ height, hash: c.repeat(64) });
export const utxo = (txid: string, vout: number, amountSats: bigint, height: number | null): UtxoRecord => ({ txid, vout, amountSats, height });

/** A profile named `name` in `d` (password kept for the session only); returns its id. */
export function newProfile(d: Database, name = 'Home node'): string {
  return new ProfileRepository(d).create(
    { name, nodeUrl: 'http://127.0.0.1:18443/', auth: 'password', rpcUser: 'spy', cookiePath: '', wallet: 'watch', indexUrl: 'http://127.0.0.1:18444/' },
    { passwordStorage: 'session' },
  ).id;
}

/** The AppError `fn` throws (fails when it throws something else or nothing). */
export function appError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}
