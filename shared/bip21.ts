// BIP21 payment requests (`bitcoin:<address>?amount=…&label=…&message=…`), as a link, a QR code or
// pasted text. Parsed strictly: an amount is BTC in plain decimal with at most 8 decimals, every
// parameter at most once, and an unknown `req-` parameter refuses the whole request (BIP21: "clients
// MUST consider the entire URI invalid"). Other unknown parameters are kept and shown, never used.
import { COIN, MAX_MONEY } from './amounts';
import { LIMITS, sizeProblem } from './limits';
import { decodeDestination, encodeDestination } from './bitcoin/address';
import { MAINNET, REGTEST, TESTNET, type Network } from './bitcoin/networks';

/** Longest URI accepted (shared/limits.ts: a QR code holds at most 4,296 characters). */
export const MAX_BIP21_LENGTH = LIMITS.bip21.chars;

export interface PaymentRequest {
  /** The address as written, bech32 lowercased. */
  address: string;
  /** The chains whose address format it fits ('test' covers testnet3, testnet4 and signet). */
  chains: Array<'main' | 'test' | 'regtest'>;
  amountSats: bigint | null;
  label: string | null;
  message: string | null;
  /** Parameters BIP21 lets a wallet ignore (e.g. lightning, pj), in the order given. */
  other: Array<{ name: string; value: string }>;
}

export type Bip21Field = 'uri' | 'address' | 'amount' | 'label' | 'message' | 'parameter';
export type Bip21Result = { ok: true; request: PaymentRequest } | { ok: false; field: Bip21Field; error: string };

const fail = (field: Bip21Field, error: string): Bip21Result => ({ ok: false, field, error });

/** Whether `text` looks like a BIP21 URI at all (the scheme is case-insensitive). */
export function isBip21(text: string): boolean {
  return /^bitcoin:/i.test(text.trim());
}

/** No lone UTF-16 surrogate (text that cannot be written back as UTF-8 or percent-encoded). */
function wellFormed(s: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

function decodeComponent(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** BIP21's amount: digits with an optional decimal point (no sign, exponent or separator), in BTC. */
export function parseBip21Amount(text: string): { ok: true; sats: bigint } | { ok: false; error: string } {
  const m = /^([0-9]*)(?:\.([0-9]*))?$/.exec(text);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return { ok: false, error: `"${text}" is not an amount in BTC (digits and one decimal point, e.g. 0.015)` };
  const decimals = m[2] ?? '';
  if (decimals.length > 8) return { ok: false, error: `"${text}" has more than 8 decimals (1 satoshi is 0.00000001 BTC)` };
  const whole = BigInt(m[1] === '' ? '0' : m[1]!);
  const sats = whole * COIN + BigInt((decimals + '00000000').slice(0, 8));
  if (sats === 0n) return { ok: false, error: 'The amount is zero' };
  if (sats > MAX_MONEY) return { ok: false, error: `${text} BTC is more than the 21,000,000 BTC that can ever exist` };
  return { ok: true, sats };
}

const CHAIN_NETWORKS: ReadonlyArray<readonly ['main' | 'test' | 'regtest', Network]> = [
  ['main', MAINNET],
  ['test', TESTNET],
  ['regtest', REGTEST],
];

export function parseBip21(input: string): Bip21Result {
  const uri = input.trim();
  if (uri.length > MAX_BIP21_LENGTH) return fail('uri', sizeProblem('bip21', uri.length, 'This payment request')!);
  if (!isBip21(uri)) return fail('uri', 'A payment request starts with bitcoin:');
  const rest = uri.slice('bitcoin:'.length);
  const q = rest.indexOf('?');
  const rawAddress = q < 0 ? rest : rest.slice(0, q);
  const query = q < 0 ? '' : rest.slice(q + 1);

  const address0 = decodeComponent(rawAddress);
  if (address0 === null || address0 === '') return fail('address', 'The payment request has no address');
  const chains = CHAIN_NETWORKS.filter(([, net]) => decodeDestination(address0, net).ok).map(([c]) => c);
  if (chains.length === 0) {
    const why = decodeDestination(address0, MAINNET);
    return fail('address', `"${address0}" is not a Bitcoin address${!why.ok && why.error ? ` (${why.error})` : ''}`);
  }
  // The address as Core writes it: Bech32 may be written in capitals (they make smaller QR codes),
  // and Base58 may carry spaces Core skips; the address is the same.
  const decoded = decodeDestination(address0, CHAIN_NETWORKS.find(([c]) => c === chains[0])![1]);
  const address = (decoded.ok && encodeDestination(decoded.dest, CHAIN_NETWORKS.find(([c]) => c === chains[0])![1])) || address0;

  const request: PaymentRequest = { address, chains, amountSats: null, label: null, message: null, other: [] };
  const seen = new Set<string>();
  for (const part of query === '' ? [] : query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
    const value = decodeComponent(eq < 0 ? '' : part.slice(eq + 1));
    if (name === null || value === null) return fail('parameter', `"${part}" is not correctly percent-encoded`);
    if (!wellFormed(name) || !wellFormed(value)) return fail('parameter', `"${part}" holds a broken character (half of a UTF-16 surrogate pair)`);
    const key = name.toLowerCase();
    if (seen.has(key)) return fail('parameter', `The parameter "${name}" appears more than once`);
    seen.add(key);
    if (key === 'amount') {
      const a = parseBip21Amount(value);
      if (!a.ok) return fail('amount', a.error);
      request.amountSats = a.sats;
    } else if (key === 'label') request.label = value;
    else if (key === 'message') request.message = value;
    else if (key.startsWith('req-')) {
      return fail('parameter', `The request requires "${name}", which Spyglass does not support; BIP21 says to refuse such a request`);
    } else request.other.push({ name, value });
  }
  return { ok: true, request };
}

/** Writes a BIP21 URI (the receive screen's QR code); the amount in plain decimal BTC. */
export function formatBip21(req: { address: string; amountSats?: bigint | null; label?: string | null; message?: string | null }): string {
  const params: string[] = [];
  if (req.amountSats != null) {
    const whole = req.amountSats / COIN;
    const frac = (req.amountSats % COIN).toString().padStart(8, '0').replace(/0+$/, '');
    params.push(`amount=${whole}${frac ? `.${frac}` : ''}`);
  }
  if (req.label) params.push(`label=${encodeURIComponent(req.label)}`);
  if (req.message) params.push(`message=${encodeURIComponent(req.message)}`);
  return `bitcoin:${req.address}${params.length ? `?${params.join('&')}` : ''}`;
}
