/**
 * The spend recordings of ../shared/fixtures/core/bitcoin-core-spend.jsonl (real Core 31.99,
 * regtest). Lines are parsed with Spyglass's UniValue parser so amounts are read from their JSON
 * token text (parseBtc), never through a float.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR } from '../../fixtures';
import { parseJson, uGet, type UValue } from '../../../shared/json';
import { parseBtc } from '../../../shared/amounts';

export interface SpendRecording {
  group: string;
  name: string;
  /** The request's JSON-RPC params. */
  params: UValue;
  /** The reply's `result` (null on an error reply). */
  result: UValue;
  /** The reply's `error` object, if any. */
  error: UValue;
}

let cache: SpendRecording[] | undefined;

function load(): SpendRecording[] {
  cache ??= readFileSync(join(FIXTURES_DIR, 'core', 'bitcoin-core-spend.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => parseJson(l))
    .filter((o) => uGet(o, 'request') !== undefined)
    .map((o) => {
      const body = uGet(uGet(o, 'response')!, 'body')!;
      const request = parseJson(str(uGet(uGet(o, 'request')!, 'body')!));
      return {
        group: str(uGet(o, 'group')!),
        name: str(uGet(o, 'name')!),
        params: uGet(request, 'params')!,
        result: uGet(body, 'result') ?? { t: 'null' },
        error: uGet(body, 'error') ?? { t: 'null' },
      };
    });
  return cache;
}

export function str(u: UValue): string {
  if (u.t !== 'str') throw new Error(`expected a JSON string, got ${u.t}`);
  return u.v;
}

/** An amount token in BTC (e.g. `1.5`, `8.8e-06`) as satoshis. */
export function sats(u: UValue): bigint {
  if (u.t !== 'num') throw new Error(`expected a JSON number, got ${u.t}`);
  if (/e/i.test(u.v)) {
    const [m, e] = u.v.toLowerCase().split('e') as [string, string];
    const [i, f = ''] = m.split('.') as [string, string?];
    const exp = Number(e) + 8 - f.length;
    const digits = BigInt(i + f);
    return exp >= 0 ? digits * 10n ** BigInt(exp) : digits / 10n ** BigInt(-exp);
  }
  return parseBtc(u.v);
}

export function spendRecordings(group: string): SpendRecording[] {
  return load().filter((r) => r.group === group);
}

export function spendRecording(group: string, name: string): SpendRecording {
  const r = spendRecordings(group).find((x) => x.name === name);
  if (!r) throw new Error(`no ${group} recording named "${name}" in bitcoin-core-spend.jsonl`);
  return r;
}

export interface ListUnspentEntry {
  txid: string;
  vout: number;
  scriptPubKey: string;
  value: bigint;
  confirmations: number;
  desc: string;
  redeemScript?: string;
  witnessScript?: string;
}

export function listUnspent(name: string): ListUnspentEntry[] {
  const r = spendRecording('listunspent', name).result;
  if (r.t !== 'arr') throw new Error('listunspent result is not an array');
  return r.v.map((u) => {
    const opt = (k: string): string | undefined => {
      const v = uGet(u, k);
      return v ? str(v) : undefined;
    };
    const e: ListUnspentEntry = {
      txid: str(uGet(u, 'txid')!),
      vout: Number((uGet(u, 'vout') as { v: string }).v),
      scriptPubKey: str(uGet(u, 'scriptPubKey')!),
      value: sats(uGet(u, 'amount')!),
      confirmations: Number((uGet(u, 'confirmations') as { v: string }).v),
      desc: str(uGet(u, 'desc')!),
    };
    const rs = opt('redeemScript');
    const ws = opt('witnessScript');
    if (rs) e.redeemScript = rs;
    if (ws) e.witnessScript = ws;
    return e;
  });
}
