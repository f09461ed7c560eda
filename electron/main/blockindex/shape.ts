// The field checks of the block index's record validation (validate.ts): a Shape throws
// 'index.bad_reply' naming the path of the first key that is missing or of the wrong JSON type.
import { badReply, describe, excerpt, type Obj } from './reply-body';

export type Check<T> = (v: unknown, path: string) => T;

export class Shape {
  constructor(readonly endpoint: string) {}

  fail(what: string): never {
    throw badReply(this.endpoint, what);
  }

  object(v: unknown, path: string): Obj {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(`${path} is ${describe(v)}, not an object`);
    return v as Obj;
  }

  array(v: unknown, path: string): unknown[] {
    if (!Array.isArray(v)) this.fail(`${path} is ${describe(v)}, not an array`);
    return v;
  }

  /** A required key. */
  need<T>(o: Obj, key: string, path: string, check: Check<T>): T {
    if (!Object.hasOwn(o, key) || o[key] === undefined) this.fail(`${path}.${key} is missing`);
    return check(o[key], `${path}.${key}`);
  }

  /** A key the server may omit: null when absent. */
  opt<T>(o: Obj, key: string, path: string, check: Check<T>): T | null {
    if (!Object.hasOwn(o, key) || o[key] === undefined) return null;
    return check(o[key], `${path}.${key}`);
  }

  nullable<T>(check: Check<T>): Check<T | null> {
    return (v, path) => (v === null ? null : check(v, path));
  }

  int = (v: unknown, path: string): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) this.fail(`${path} is ${describe(v)}, not a non-negative integer`);
    return v;
  };

  /** Header version: signed 32-bit as the node reports it (also accept the unsigned form). */
  int32 = (v: unknown, path: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < -0x80000000 || v > 0xffffffff) this.fail(`${path} is ${describe(v)}, not a 32-bit integer`);
    return v;
  };

  uint32 = (v: unknown, path: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) this.fail(`${path} is ${describe(v)}, not a 32-bit unsigned integer`);
    return v;
  };

  /** Satoshis: a non-negative JSON integer, exact in a double. */
  sats = (v: unknown, path: string): bigint => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) this.fail(`${path} is ${describe(v)}, not an amount in satoshis (a non-negative integer)`);
    return BigInt(v);
  };

  num = (v: unknown, path: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(`${path} is ${describe(v)}, not a number`);
    return v;
  };

  bool = (v: unknown, path: string): boolean => {
    if (typeof v !== 'boolean') this.fail(`${path} is ${describe(v)}, not true or false`);
    return v;
  };

  str = (v: unknown, path: string): string => {
    if (typeof v !== 'string') this.fail(`${path} is ${describe(v)}, not a string`);
    return v;
  };

  /** Hex of any even length (scripts, witness items); lowercased. */
  hex = (v: unknown, path: string): string => {
    const s = this.str(v, path);
    if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) this.fail(`${path} is ${describe(v)}, not hex`);
    return s.toLowerCase();
  };

  /** A 32-byte hash as 64 hex chars; lowercased. */
  hash = (v: unknown, path: string): string => {
    const s = this.str(v, path);
    if (!/^[0-9a-fA-F]{64}$/.test(s)) this.fail(`${path} is ${describe(v)}, not a 64-character hex hash`);
    return s.toLowerCase();
  };

  base64 = (v: unknown, path: string): string => {
    const s = this.str(v, path);
    if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) this.fail(`${path} is ${describe(v)}, not base64`);
    return s;
  };

  /** `vIn`/`vOut`: an object keyed "0", "1", … "n-1" (any key order); returned in index order. */
  indexed(v: unknown, path: string): [number, Obj, string][] {
    const o = this.object(v, path);
    const keys = Object.keys(o);
    const out: [number, Obj, string][] = [];
    for (const k of keys) {
      if (!/^(0|[1-9][0-9]*)$/.test(k) || Number(k) >= keys.length) this.fail(`${path} has the key "${excerpt(k, 12)}"; expected keys "0" to "${keys.length - 1}"`);
      const p = `${path}["${k}"]`;
      out.push([Number(k), this.object(o[k], p), p]);
    }
    return out.sort((a, b) => a[0] - b[0]);
  }
}
