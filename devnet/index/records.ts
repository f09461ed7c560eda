/**
 * What the devnet index's record builders share: the API error (HTTP status, bitaps error_code,
 * message) with its codes, the record type, and byte and number helpers. The builders of the index
 * (interface B) records from the devnet ChainView are block-record.ts (spec section 2),
 * tx-record.ts (3.1–3.5) and utxo-records.ts (6). Spec: shared/spec/index-api.md. Records keep the
 * server's key order; amounts are JSON integers (JS numbers, exact below 2^53); Python floats are
 * PyFloat (pyjson.ts).
 */
import type { ChainTx } from '../chain/types';
import type { PyJson } from './pyjson';

/** An API error: HTTP status, bitaps `error_code` and message (spec section 7). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const NOT_FOUND = 0;
export const INTERNAL_SERVER_ERROR = 1;
export const INVALID_BLOCK_POINTER = 2;
export const PARAMETER_ERROR = 5;

export type Rec = { [key: string]: PyJson | undefined };

function fromHex(h: string): Uint8Array {
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) throw new Error(`bad hex: ${h}`);
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Display hex (RPC order) → internal byte order. */
export function internalBytes(displayHex: string): Uint8Array {
  return fromHex(displayHex).reverse();
}

export function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8);
  if (n <= 0xffffffff) return Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
  const b = new Uint8Array(9);
  b[0] = 0xff;
  let v = BigInt(n);
  for (let i = 1; i < 9; i++) {
    b[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return b;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function num(v: bigint): number {
  return Number(v);
}

/** Python `int(text)` for ASCII input: surrounding whitespace, sign, digits with single underscores. */
export function pyInt(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined) return undefined;
  const t = text.trim();
  if (!/^[+-]?\d+(_\d+)*$/.test(t)) return undefined;
  // Beyond 2^53 the value is approximate, which only matters for lookups that fail anyway.
  const v = Number(t.replace(/_/g, ''));
  return Number.isFinite(v) ? v : undefined;
}

export function sumOutputs(tx: ChainTx): bigint {
  return tx.vout.reduce((a, o) => a + o.value, 0n);
}
