/**
 * The Send form's rows, read strictly: an address of the node's chain, an amount (BTC or sats, as
 * the unit setting says) or "send max", a label; or an OP_RETURN output (text or hex) within the
 * node's data-carrier policy. Each failure names its row and field (the screen puts the message
 * under that field) and nothing is built from a form with any failure.
 */
import { COIN, MAX_MONEY } from '../amounts';
import { decodeDestination } from '../bitcoin/address';
import { fromHex, isHex, toHex } from '../bitcoin/hex';
import { MAINNET, REGTEST, TESTNET, type Network } from '../bitcoin/networks';
import { OP_PUSHDATA1, OP_PUSHDATA2, OP_RETURN } from '../bitcoin/script';
import { dustThreshold } from '../bitcoin/spend/dust';
import type { Recipient } from '../bitcoin/spend/coins';

export type AmountUnit = 'btc' | 'sats';

export type RecipientRow =
  | { kind: 'pay'; address: string; amount: string; sendMax?: boolean; label?: string }
  | { kind: 'data'; data: string; encoding: 'text' | 'hex' };

/** The form's fields a message can be shown at (the recipients' and the rest of the Send form's). */
export type RecipientField = 'address' | 'amount' | 'data' | 'recipients' | 'feeRate' | 'coins' | 'change' | 'locktime';

export interface FieldError {
  /** Row index (0-based), or -1 for the form as a whole. */
  row: number;
  field: RecipientField;
  message: string;
}

export interface ParsedRecipient {
  row: number;
  kind: 'pay' | 'data';
  /** The address as typed (bech32 lowercased); '' for data outputs. */
  address: string;
  script: Uint8Array;
  /** null for the send-max row until the selection fills it in. */
  value: bigint | null;
  label: string;
  /** OP_RETURN payload, hex. */
  dataHex: string | null;
}

/** Core's -datacarriersize default since v30 (MAX_OP_RETURN_RELAY): 100,000 bytes of scripts in all. */
export const DEFAULT_DATACARRIER_SIZE = 100_000;

/** An amount as typed, in the unit: BTC with up to 8 decimals, or whole satoshis. */
export function parseAmount(text: string, unit: AmountUnit): { ok: true; sats: bigint } | { ok: false; message: string } {
  const t = text.trim().replace(/[_\s]/g, '');
  if (t === '') return { ok: false, message: 'Enter an amount' };
  if (t.startsWith('-')) return { ok: false, message: 'The amount cannot be negative' };
  if (unit === 'sats') {
    if (!/^[0-9]+$/.test(t)) return { ok: false, message: /^[0-9]*\.[0-9]*$/.test(t) ? 'Satoshis are whole numbers (switch the unit to BTC for decimals)' : `"${text}" is not a number of satoshis` };
    const sats = BigInt(t);
    return checkRange(sats, `${t} sat`);
  }
  const m = /^([0-9]*)(?:\.([0-9]*))?$/.exec(t);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) return { ok: false, message: `"${text}" is not an amount in BTC (e.g. 0.015)` };
  const decimals = m[2] ?? '';
  if (decimals.length > 8) return { ok: false, message: `"${text}" has more than 8 decimals (1 satoshi is 0.00000001 BTC)` };
  const sats = BigInt(m[1] === '' ? '0' : m[1]!) * COIN + BigInt((decimals + '00000000').slice(0, 8));
  return checkRange(sats, `${t} BTC`);
}

function checkRange(sats: bigint, shown: string): { ok: true; sats: bigint } | { ok: false; message: string } {
  if (sats === 0n) return { ok: false, message: 'The amount is zero' };
  if (sats > MAX_MONEY) return { ok: false, message: `${shown} is more than the 21,000,000 BTC that can ever exist` };
  return { ok: true, sats };
}

/** CScript() << OP_RETURN << data: the payload in one push (direct, PUSHDATA1 or PUSHDATA2). */
export function opReturnScript(data: Uint8Array): Uint8Array {
  const n = data.length;
  const head = n < OP_PUSHDATA1 ? [OP_RETURN, n] : n <= 0xff ? [OP_RETURN, OP_PUSHDATA1, n] : [OP_RETURN, OP_PUSHDATA2, n & 0xff, n >>> 8];
  if (n > 0xffff) throw new RangeError('OP_RETURN data above 65,535 bytes');
  const s = new Uint8Array(head.length + n);
  s.set(head, 0);
  s.set(data, head.length);
  return s;
}

const CHAIN_NAMES: Array<[Network, string]> = [
  [MAINNET, 'mainnet'],
  [TESTNET, 'testnet or signet'],
  [REGTEST, 'regtest'],
];

/** Why an address does not decode on `net`: another chain's address says so by name. */
export function addressError(address: string, net: Network): string | null {
  const a = address.trim();
  if (a === '') return 'Enter an address';
  const d = decodeDestination(a, net);
  if (d.ok) return null;
  const other = CHAIN_NAMES.find(([n]) => n.chain !== net.chain && !(n === TESTNET && net.bech32 === 'tb') && decodeDestination(a, n).ok);
  if (other) return `This is a ${other[1]} address, but your node is on ${net.chain === 'main' ? 'mainnet' : net.chain}: it cannot be paid from this wallet`;
  return `Not a valid address: ${d.error || 'Invalid address'}`;
}

function dataBytes(row: Extract<RecipientRow, { kind: 'data' }>): { ok: true; bytes: Uint8Array } | { ok: false; message: string } {
  if (row.encoding === 'hex') {
    const h = row.data.trim();
    if (h.length % 2 !== 0 || !isHex(h)) return { ok: false, message: 'Hex data is an even number of 0-9 and a-f characters' };
    return { ok: true, bytes: fromHex(h) };
  }
  return { ok: true, bytes: new TextEncoder().encode(row.data) };
}

export interface ParseRecipientsOptions {
  network: Network;
  unit: AmountUnit;
  /** The node's -datacarriersize (getmempoolinfo `maxdatacarriersize`, v30+), default 100,000. */
  maxDataCarrierBytes?: number;
  /** The node's -datacarrier=0 (no OP_RETURN relayed at all). */
  dataCarrierOff?: boolean;
}

/** Every row checked; the recipients when all are valid, else every error (by row and field). */
export function parseRecipients(rows: readonly RecipientRow[], o: ParseRecipientsOptions): { ok: true; recipients: ParsedRecipient[] } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const out: ParsedRecipient[] = [];
  if (rows.length === 0) errors.push({ row: -1, field: 'recipients', message: 'Add at least one recipient' });
  let maxRow = -1;
  let dataTotal = 0;
  const seen = new Map<string, number>();
  rows.forEach((r, row) => {
    if (r.kind === 'data') {
      const d = dataBytes(r);
      if (!d.ok) return void errors.push({ row, field: 'data', message: d.message });
      const script = opReturnScript(d.bytes);
      dataTotal += script.length;
      if (o.dataCarrierOff) return void errors.push({ row, field: 'data', message: 'Your node relays no OP_RETURN outputs (-datacarrier=0)' });
      const max = o.maxDataCarrierBytes ?? DEFAULT_DATACARRIER_SIZE;
      if (dataTotal > max) {
        return void errors.push({ row, field: 'data', message: `The OP_RETURN output is ${script.length} bytes; your node relays at most ${max} bytes of them per transaction (-datacarriersize)` });
      }
      out.push({ row, kind: 'data', address: '', script, value: 0n, label: '', dataHex: toHex(d.bytes) });
      return;
    }
    const address = /^(bc|tb|bcrt)1/i.test(r.address.trim()) ? r.address.trim().toLowerCase() : r.address.trim();
    const addrErr = addressError(address, o.network);
    if (addrErr) errors.push({ row, field: 'address', message: addrErr });
    else if (seen.has(address)) errors.push({ row, field: 'address', message: `This address is already paid in row ${seen.get(address)! + 1}: put the whole amount in one row` });
    else seen.set(address, row);
    let value: bigint | null = null;
    if (r.sendMax) {
      if (maxRow >= 0) errors.push({ row, field: 'amount', message: `Only one recipient can take the maximum (row ${maxRow + 1} does)` });
      maxRow = row;
    } else {
      const a = parseAmount(r.amount, o.unit);
      if (!a.ok) errors.push({ row, field: 'amount', message: a.message });
      else value = a.sats;
    }
    if (addrErr) return;
    const script = decodeDestination(address, o.network) as { ok: true; script: Uint8Array };
    if (value !== null) {
      const dust = dustThreshold(script.script);
      if (value < dust) return void errors.push({ row, field: 'amount', message: `${value} sat is below the dust threshold of this address type (${dust} sat): nodes do not relay such outputs` });
    }
    out.push({ row, kind: 'pay', address, script: script.script, value, label: (r.label ?? '').trim(), dataHex: null });
  });
  const sum = out.reduce((a, r) => a + (r.value ?? 0n), 0n);
  if (errors.length === 0 && sum > MAX_MONEY) errors.push({ row: -1, field: 'recipients', message: 'The amounts add up to more than 21,000,000 BTC' });
  return errors.length ? { ok: false, errors } : { ok: true, recipients: out };
}

/** The spend core's recipients, in the form's order. */
export function toSpendRecipients(rs: readonly ParsedRecipient[]): Recipient[] {
  return rs.map((r) => (r.value === null ? { script: r.script, sendMax: true as const } : { script: r.script, value: r.value }));
}
