/** HTTP Basic authentication as Core's RPCAuthorized (src/httprpc.cpp) checks it. */
import { timingSafeEqual } from 'node:crypto';

/** Core's DecodeBase64: strict alphabet, padding only at the end, length a multiple of 4 after padding. */
function decodeBase64Strict(s: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) return null;
  return Buffer.from(s, 'base64');
}

function equalConstantTime(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * An `auth` callback for RpcServer accepting `Basic base64(user:password)` for one user/password
 * pair (also what the cookie file holds: `__cookie__:<hex>`). The header must start with exactly
 * `Basic `; the credentials must decode and contain `:`.
 */
export function basicAuth(user: string, password: string): (header: string | undefined) => boolean {
  return (header) => {
    if (header === undefined || !header.startsWith('Basic ')) return false;
    const decoded = decodeBase64Strict(header.slice(6).trim());
    if (decoded === null) return false;
    const userPass = decoded.toString('latin1');
    const colon = userPass.indexOf(':');
    if (colon < 0) return false;
    const expected = Buffer.from(`${user}:${password}`, 'utf8').toString('latin1');
    return equalConstantTime(userPass, expected);
  };
}

/** The Authorization header value for `user:password`. */
export function basicAuthHeader(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}
