// Display helpers of the watch-only screens. Amounts arrive as decimal strings of satoshis and are
// turned into bigint here; floats never touch money (a Number is used only for pixel positions).
import { formatBtc } from '../../../shared/amounts';

export type Unit = 'btc' | 'sats';

/** A wire amount ("12345") as bigint; null stays null. */
export function sats(v: string | bigint | null | undefined): bigint | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'bigint' ? v : BigInt(v);
}

/** 1234567n → "1,234,567" (sign kept). */
export function groupSats(v: bigint): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString();
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return neg ? `-${out}` : out;
}

/** An amount in the chosen unit, without the unit name: "0.01234567" or "1,234,567". */
export function formatAmount(v: bigint, unit: Unit): string {
  return unit === 'btc' ? formatBtc(v) : groupSats(v);
}

/** An amount without the trailing zeros of its BTC decimals ("0.1", "12", "1,234 sats" as is): for narrow marks. */
export function formatAmountShort(v: bigint, unit: Unit): string {
  const s = formatAmount(v, unit);
  return unit === 'btc' && s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

export function unitName(unit: Unit): string {
  return unit === 'btc' ? 'BTC' : 'sats';
}

/** An amount with its unit: "0.01234567 BTC", "1,234,567 sats". */
export function formatAmountWithUnit(v: bigint, unit: Unit): string {
  return `${formatAmount(v, unit)} ${unitName(unit)}`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** ISO time → local "2025-01-31 14:03:07"; unparseable input is shown as given. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local "2025-01-31 14:03" (chart axes). */
export function formatShortTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "3 min ago", "2 h ago", "5 days ago" from an ISO time and now (ms). */
export function formatAge(iso: string, now: number = Date.now()): string {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** 1234567 → "1,234,567" for counts and heights. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return groupSats(BigInt(Math.trunc(n)));
}

/** A long address or hash shortened in the middle to `max` characters: "bc1qxy2k…0wlh". */
export function middle(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = max - 1;
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
}

/** Address types as people call them (shared with main, which filters a large wallet's rows). */
export { ADDRESS_TYPES, addressType } from '../../../shared/balance-query';
