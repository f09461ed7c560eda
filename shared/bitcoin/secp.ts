/** secp256k1 field checks used to tell valid keys the way Core's CPubKey/XOnlyPubKey do. */

/** The field prime p = 2^256 − 2^32 − 977. */
export const FIELD_P = 2n ** 256n - 2n ** 32n - 977n;

/** Jacobi symbol (a/n) for odd n > 0: 1, −1, or 0. */
export function jacobi(a: bigint, n: bigint): number {
  a %= n;
  let t = 1;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      const r = n & 7n;
      if (r === 3n || r === 5n) t = -t;
    }
    const tmp = a;
    a = n;
    n = tmp;
    if ((a & 3n) === 3n && (n & 3n) === 3n) t = -t;
    a %= n;
  }
  return n === 1n ? t : 0;
}

/** x³ + 7 mod p: the curve's right-hand side for x. */
export function curveRhs(x: bigint): bigint {
  return (((x * x) % FIELD_P) * x + 7n) % FIELD_P;
}

/** Some point of the curve has this x coordinate (x < p and x³ + 7 is a square mod p). */
export function isCurveX(x: bigint): boolean {
  return x < FIELD_P && jacobi(curveRhs(x), FIELD_P) !== -1;
}
