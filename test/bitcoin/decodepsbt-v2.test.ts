/**
 * decodepsbt as current Core (31.99, master of July 2026: the default generation) answers it:
 * every decodepsbt line of bitcoin-core-psbt-vectors.jsonl (Core's own test vectors, v0 and v2,
 * valid and invalid), bitcoin-core-spend.jsonl (v2 and v0 PSBTs through every step) and
 * bitcoin-core-v31.99-stateless.jsonl — same keys, order and values, the text path identical, errors
 * with the same code and message — and both generations side by side on the same requests. Rules
 * beyond the recordings were checked by hand against the real 31.99 and 30.99 nodes.
 */
import { describe, expect, it } from 'vitest';
import { coreFileGroup, type CoreFile, type CoreRecording } from '../fixtures';
import { badAmountTokens } from '../support/amount-tokens';
import { b64, globalsV2, i64, inputV2, kv, outputV2, psbtV0, psbtV2, u32 } from '../support/psbt-bytes';
import { writeJson } from '../../shared/json';
import { REGTEST } from '../../shared/bitcoin/networks';
import { CORE_LATEST, decodePsbt, decodePsbtJson, type CoreVersion } from '../../shared/bitcoin/psbt';

interface RpcBody {
  result: unknown;
  error: { code: number; message: string } | null;
}

const param = (rec: CoreRecording): unknown => (JSON.parse(rec.request.body) as { params: unknown[] }).params[0];

/** decodePsbt and decodePsbtJson agree and give Core's recorded answer. */
function expectCoreAnswer(p: string, body: RpcBody, coreVersion?: CoreVersion): void {
  const opts = coreVersion === undefined ? {} : { coreVersion };
  const got = decodePsbt(p, REGTEST, opts);
  const text = decodePsbtJson(p, REGTEST, opts);
  if (body.error) {
    expect(got.ok ? 'decoded' : { code: got.code, message: got.message }).toEqual(body.error);
    expect(text.ok ? 'decoded' : text.message).toBe(body.error.message);
    return;
  }
  expect(got.ok, got.ok ? '' : got.message).toBe(true);
  expect(text.ok).toBe(true);
  if (!got.ok || !text.ok) return;
  const json = writeJson(got.result);
  expect(JSON.stringify(JSON.parse(json))).toBe(JSON.stringify(body.result));
  expect(badAmountTokens(json)).toEqual([]);
  expect(text.json).toBe(json);
}

const FILES: { file: CoreFile; count: number }[] = [
  { file: 'bitcoin-core-psbt-vectors.jsonl', count: 140 },
  { file: 'bitcoin-core-spend.jsonl', count: 53 },
  { file: 'bitcoin-core-v31.99-stateless.jsonl', count: 66 },
];

describe('the default generation is current Core', () => {
  it('CORE_LATEST is 31.99', () => {
    expect(CORE_LATEST).toBe(31.99);
  });
});

for (const { file, count } of FILES) {
  describe(`decodepsbt (Core 31.99): ${file}`, () => {
    const cases = coreFileGroup(file, 'decodepsbt');
    it('has the recorded cases', () => {
      expect(cases.length).toBe(count);
    });
    for (const rec of cases) {
      const p = param(rec);
      if (typeof p !== 'string') {
        it.skip(`${rec.name} (RPC layer: parameter type check)`, () => {});
        continue;
      }
      it(rec.name, () => {
        expectCoreAnswer(p, rec.response.body as RpcBody);
        expectCoreAnswer(p, rec.response.body as RpcBody, 31.99);
      });
    }
  });
}

describe('both generations on the same requests', () => {
  const v30 = new Map(coreFileGroup('bitcoin-core-v30.jsonl', 'decodepsbt').map((r) => [r.name, r]));
  const v31 = coreFileGroup('bitcoin-core-v31.99-stateless.jsonl', 'decodepsbt');

  it('the stateless files hold the same requests; each generation answers as its node did', () => {
    expect(v31.length).toBe(v30.size);
    let differing = 0;
    for (const rec of v31) {
      const old = v30.get(rec.name)!;
      expect(old.request.body, rec.name).toBe(rec.request.body);
      const p = param(rec);
      if (typeof p !== 'string') continue;
      expectCoreAnswer(p, old.response.body as RpcBody, 30);
      expectCoreAnswer(p, rec.response.body as RpcBody, 31.99);
      if (JSON.stringify(old.response.body) !== JSON.stringify(rec.response.body)) differing++;
    }
    // The README's list: end of data from a SpanReader, generic duplicate-key and key-size texts.
    expect(differing).toBe(14);
  });

  it('Core v30 refuses every version 2 PSBT and decodes every version 0 one as current Core does', () => {
    let v2 = 0;
    let v0 = 0;
    for (const { file } of FILES) {
      for (const rec of coreFileGroup(file, 'decodepsbt')) {
        const p = param(rec);
        const body = rec.response.body as RpcBody;
        if (typeof p !== 'string' || body.error) continue;
        const version = (body.result as { psbt_version: number }).psbt_version;
        const old = decodePsbt(p, REGTEST, { coreVersion: 30 });
        if (version === 2) {
          v2++;
          expect(old.ok ? 'decoded' : old.message, rec.name).toBe('TX decode failed Unsupported version number: iostream error');
        } else {
          v0++;
          expect(old.ok && writeJson(old.result), rec.name).toBe(writeJson((decodePsbt(p, REGTEST) as { ok: true; result: unknown }).result));
        }
      }
    }
    expect({ v2, v0 }).toEqual({ v2: 48, v0: 93 });
  });
});

/** Decoded as each generation: 'ok' or Core's message. */
function both(hex: string): { 30: string; 31.99: string } {
  const one = (coreVersion: CoreVersion): string => {
    const r = decodePsbt(b64(hex), REGTEST, { coreVersion });
    return r.ok ? 'ok' : r.message;
  };
  return { 30: one(30), 31.99: one(31.99) };
}

const failed = (what: string): string => `TX decode failed ${what}: iostream error`;
const UNSUPPORTED = failed('Unsupported version number');

describe('rules beyond the recordings (answers checked against the real 31.99 and 30.99 nodes)', () => {
  it('version 2 fields in a version 0 PSBT: current Core refuses them, Core v30 reads them as unknown keys', () => {
    expect(both(psbtV0([kv('03', u32(5))]))).toEqual({ 30: 'ok', 31.99: failed('PSBT_GLOBAL_FALLBACK_LOCKTIME is not allowed in PSBTv0') });
    expect(both(psbtV0([kv('06', '01')]))).toEqual({ 30: 'ok', 31.99: failed('PSBT_GLOBAL_TX_MODIFIABLE is not allowed in PSBTv0') });
    expect(both(psbtV0([], [], [kv('03', '1027000000000000')]))).toEqual({ 30: 'ok', 31.99: failed('Output amount is not allowed in PSBTv0') });
    expect(both(psbtV0([], [], [kv('0300', '1027000000000000')]))).toEqual({ 30: 'ok', 31.99: failed('Size of key was not 1 for the type Output Amount') });
  });

  it('version 2 maps: key sizes, repeats, counts, required fields', () => {
    const g = globalsV2(1, 1);
    expect(both(psbtV2(g, [inputV2([kv('0e', '11'.repeat(32))])], [outputV2()]))).toEqual({ 30: UNSUPPORTED, 31.99: failed('Duplicate Key, input key "0e" already provided') });
    expect(both(psbtV2(g, [kv('0e00', '11'.repeat(32)) + inputV2()], [outputV2()]))[31.99]).toBe(failed('Size of key was not 1 for the type Input Previous TXID'));
    expect(both(psbtV2(g, [kv('0e', '11'.repeat(31)) + kv('0f', u32(0)) + '00'], [outputV2()]))[31.99]).toBe(failed('Size of value was not the stated size'));
    expect(both(psbtV2(globalsV2(2, 1), [inputV2()], [outputV2()]))[31.99]).toBe(failed('Size of value was not the stated size'));
    expect(both(psbtV2(globalsV2(1, 0), [inputV2()], [outputV2()]))[31.99]).toBe('TX decode failed extra data after PSBT');
    expect(both(psbtV2(kv('0200', u32(2)) + g, [inputV2()], [outputV2()]))[31.99]).toBe(failed('Size of key was not 1 for the type Global Transaction Version'));
    expect(both(psbtV2(globalsV2(1, 1, [kv('fb', u32(2))]), [inputV2()], [outputV2()]))[31.99]).toBe(failed('Duplicate Key, global key "fb" already provided'));
    expect(both(psbtV2(g, [inputV2()], [kv('03', '1027000000000000') + '00']))[31.99]).toBe(failed('Output script is required in PSBTv2'));
    expect(both(psbtV2(g, [inputV2([kv('11', u32(499_999_999))])], [outputV2()]))[31.99]).toBe(failed('Required time based locktime is invalid (less than 500000000)'));
    expect(both(psbtV2(g, [inputV2([kv('00', '02000000' + '01' + '33'.repeat(32) + '00000000' + '00' + 'ffffffff' + '01' + '1027000000000000' + '00' + '00000000')])], [outputV2()]))[31.99]).toBe(
      failed('Non-witness UTXO does not match outpoint hash'),
    );
    const v3 = kv('02', u32(2)) + kv('04', '01') + kv('05', '01') + kv('fb', u32(3));
    expect(both(psbtV2(v3, [inputV2()], [outputV2()]))).toEqual({ 30: UNSUPPORTED, 31.99: UNSUPPORTED });
  });

  it('version 2 results: optional fields only when present, flags as three booleans, any amount and script', () => {
    const decode = (hex: string): Record<string, unknown> => {
      const r = decodePsbt(b64(hex), REGTEST);
      if (!r.ok) throw new Error(r.message);
      return JSON.parse(writeJson(r.result)) as Record<string, unknown>;
    };
    const minimal = decode(psbtV2(globalsV2(1, 1), [inputV2()], [outputV2()]));
    expect(Object.keys(minimal)).toEqual(['global_xpubs', 'tx_version', 'input_count', 'output_count', 'psbt_version', 'proprietary', 'unknown', 'inputs', 'outputs']);
    expect(minimal.inputs).toEqual([{ previous_txid: '11'.repeat(32), previous_vout: 0 }]);
    const flags = decode(psbtV2(globalsV2(1, 1, [kv('03', u32(123)), kv('06', '05')]), [inputV2([kv('10', u32(0xfffffffd))])], [outputV2()]));
    expect(flags).toMatchObject({ fallback_locktime: 123, inputs_modifiable: true, outputs_modifiable: false, has_sighash_single: true });
    expect(Object.keys(flags).slice(1, 8)).toEqual(['tx_version', 'fallback_locktime', 'input_count', 'output_count', 'inputs_modifiable', 'outputs_modifiable', 'has_sighash_single']);
    expect(flags.inputs).toEqual([{ previous_txid: '11'.repeat(32), previous_vout: 0, sequence: 0xfffffffd }]);
    const locks = decode(psbtV2(globalsV2(2, 1), [inputV2([kv('11', u32(600_000_000))]), inputV2([kv('12', u32(100))], '22'.repeat(32))], [outputV2()]));
    expect(locks.inputs).toEqual([
      { previous_txid: '11'.repeat(32), previous_vout: 0, time_locktime: 600_000_000 },
      { previous_txid: '22'.repeat(32), previous_vout: 0, height_locktime: 100 },
    ]);
    const odd = decode(psbtV2(globalsV2(1, 1), [inputV2()], [kv('03', i64(-1n)) + kv('04', '51') + '00']));
    expect(odd.outputs).toEqual([{ amount: -1e-8, script: { asm: '1', desc: 'raw(51)#8lvh9jxk', hex: '51', type: 'nonstandard' } }]);
  });

  it('a repeated unknown key: one text per generation', () => {
    expect(both(psbtV0([kv('f0', ''), kv('f0', '')]))).toEqual({
      30: failed('Duplicate Key, key for unknown value already provided'),
      31.99: failed('Duplicate Key, global key "f0" already provided'),
    });
  });

  it('an unknown generation is refused', () => {
    expect(() => decodePsbt('cHNidP8=', REGTEST, { coreVersion: 29 as CoreVersion })).toThrow('unknown Bitcoin Core generation 29');
  });
});
