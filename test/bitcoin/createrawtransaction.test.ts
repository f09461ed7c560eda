import { describe, expect, it } from 'vitest';
import { parseJson, type UValue } from '../../shared/json';
import { REGTEST } from '../../shared/bitcoin/networks';
import { createRawTransaction } from '../../shared/bitcoin/createrawtransaction';
import { coreGroup } from '../fixtures';

const TXID = 'f6e0d57ed64e459cc8750f8af45eda10d79e442a58db8486b8a96122900beace';
const ADDR = 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef';
const ADDR2 = 'msPT5pbRGzXBc4iaQuFLsoMhh5jKYDJRqE';

/** Runs createRawTransaction on positional params written as JSON text. */
function crt(paramsJson: string): ReturnType<typeof createRawTransaction> {
  const p = parseJson(paramsJson);
  if (p.t !== 'arr') throw new Error('params must be an array');
  const [inputs, outputs, locktime, replaceable, version] = p.v as (UValue | undefined)[];
  return createRawTransaction(
    { inputs: inputs ?? { t: 'null' }, outputs: outputs ?? { t: 'null' }, locktime, replaceable, version },
    REGTEST,
  );
}

const err = (code: number, message: string) => ({ ok: false, code, message });
const IN = `[{"txid":"${TXID}","vout":0}]`;

describe('createRawTransaction: Core v30 recordings', () => {
  // Lines whose error is raised by the RPC framework (argument count / declared types) are
  // replayed through RpcServer in test/devnet/rpc-framework.test.ts.
  const FRAMEWORK = new Set(['missing outputs param', 'inputs not array']);
  for (const rec of coreGroup('createrawtransaction')) {
    if (FRAMEWORK.has(rec.name)) continue;
    it(rec.name, () => {
      const paramsText = JSON.stringify((JSON.parse(rec.request.body) as { params: unknown }).params);
      // Parsed with parseJson to keep number tokens exactly.
      const raw = parseJson(rec.request.body);
      const params = raw.t === 'obj' ? raw.v[raw.k.indexOf('params')] : undefined;
      expect(params?.t).toBe('arr');
      const [inputs, outputs, locktime, replaceable, version] = (params as { v: UValue[] }).v as (UValue | undefined)[];
      const res = createRawTransaction(
        { inputs: inputs!, outputs: outputs ?? { t: 'null' }, locktime, replaceable, version },
        REGTEST,
      );
      const expected = rec.response.body as { result: string | null; error: { code: number; message: string } | null };
      if (expected.error) expect(res, paramsText).toEqual(err(expected.error.code, expected.error.message));
      else expect(res).toEqual({ ok: true, hex: expected.result });
    });
  }
});

describe('createRawTransaction: rules from rawtransaction_util.cpp', () => {
  it('zero inputs and outputs, dictionary form', () => {
    expect(crt('[[],{}]')).toEqual({ ok: true, hex: '02000000000000000000' });
  });

  it('version argument (v30)', () => {
    expect(crt('[[],[],0,null,3]')).toEqual({ ok: true, hex: '03000000000000000000' });
    expect(crt('[[],[],0,null,1]')).toEqual({ ok: true, hex: '01000000000000000000' });
    expect(crt('[[],[],0,null,0]')).toEqual(err(-8, 'Invalid parameter, version out of range(1~3)'));
    expect(crt('[[],[],0,null,4]')).toEqual(err(-8, 'Invalid parameter, version out of range(1~3)'));
    expect(crt('[[],[],0,null,-1]')).toEqual(err(-1, 'JSON integer out of range'));
    expect(crt('[[],[],0,null,4294967296]')).toEqual(err(-1, 'JSON integer out of range'));
    // The version is read (getInt<uint32_t>) before ConstructTransaction checks the locktime.
    expect(crt('[[],[],-1,null,1.5]')).toEqual(err(-1, 'JSON integer out of range'));
    // ... but range-checked after the locktime.
    expect(crt('[[],[],-1,null,7]')).toEqual(err(-8, 'Invalid parameter, locktime out of range'));
  });

  it('locktime integers', () => {
    expect(crt('[[],[],1.5]')).toEqual(err(-1, 'JSON integer out of range'));
    expect(crt('[[],[],1e3]')).toEqual(err(-1, 'JSON integer out of range'));
    expect(crt('[[],[],4294967295]')).toEqual({ ok: true, hex: '020000000000ffffffff' });
    expect(crt('[[],[],99999999999999999999]')).toEqual(err(-1, 'JSON integer out of range'));
  });

  it('input element checks', () => {
    expect(crt(`[[1],[]]`)).toEqual(err(-3, 'JSON value of type number is not of expected type object'));
    expect(crt(`[[{"vout":0}],[]]`)).toEqual(err(-3, 'JSON value of type null is not of expected type string'));
    expect(crt(`[[{"txid":5,"vout":0}],[]]`)).toEqual(err(-3, 'JSON value of type number is not of expected type string'));
    expect(crt(`[[{"txid":"foo","vout":0}],[]]`)).toEqual(err(-8, "txid must be of length 64 (not 3, for 'foo')"));
    expect(crt(`[[{"txid":"${TXID}","vout":1.5}],[]]`)).toEqual(err(-1, 'JSON integer out of range'));
    expect(crt(`[[{"txid":"${TXID}","vout":2147483648}],[]]`)).toEqual(err(-1, 'JSON integer out of range'));
    expect(crt(`[[{"txid":"${TXID}","vout":null}],[]]`)).toEqual(err(-8, 'Invalid parameter, missing vout key'));
    // A non-numeric sequence is ignored.
    const ok = crt(`[[{"txid":"${TXID}","vout":2147483647,"sequence":"x"}],[]]`);
    expect(ok).toEqual({
      ok: true,
      hex: `0200000001${TXID.match(/../g)!.reverse().join('')}ffffff7f00fdffffff0000000000`,
    });
    expect(crt(`[[{"txid":"${TXID}","vout":0,"sequence":1.5}],[]]`)).toEqual(err(-1, 'JSON integer out of range'));
    // Uppercase hex txid is accepted.
    expect(crt(`[[{"txid":"${TXID.toUpperCase()}","vout":0}],[]]`).ok).toBe(true);
  });

  it('sequence defaults and the replaceable contradiction', () => {
    const seqOf = (r: ReturnType<typeof crt>): string => (r.ok ? r.hex.slice(84, 92) : `error ${r.message}`);
    expect(seqOf(crt(`[${IN},[]]`))).toBe('fdffffff');
    expect(seqOf(crt(`[${IN},[],0,false]`))).toBe('ffffffff');
    expect(seqOf(crt(`[${IN},[],1,false]`))).toBe('feffffff');
    expect(seqOf(crt(`[${IN},[],1,null]`))).toBe('fdffffff');
    // replaceable omitted: explicit final sequence is fine.
    const finalIn = `[{"txid":"${TXID}","vout":0,"sequence":4294967294}]`;
    expect(seqOf(crt(`[${finalIn},[]]`))).toBe('feffffff');
    expect(crt(`[${finalIn},[],0,true]`)).toEqual(
      err(-8, 'Invalid parameter combination: Sequence number(s) contradict replaceable option'),
    );
    // No inputs: no contradiction.
    expect(crt('[[],[],0,true]').ok).toBe(true);
    expect(crt(`[${IN},[],0,"yes"]`)).toEqual(err(-3, 'JSON value of type string is not of expected type bool'));
  });

  it('outputs normalization', () => {
    expect(crt(`[${IN},null]`)).toEqual(err(-8, 'Invalid parameter, output argument must be non-null'));
    expect(crt(`[${IN},"x"]`)).toEqual(err(-3, 'JSON value of type string is not of expected type array'));
    expect(crt(`[${IN},5]`)).toEqual(err(-3, 'JSON value of type number is not of expected type array'));
    expect(crt(`[${IN},[5]]`)).toEqual(err(-8, 'Invalid parameter, key-value pair not an object as expected'));
    expect(crt(`[${IN},[{}]]`)).toEqual(err(-8, 'Invalid parameter, key-value pair must contain exactly one key'));
    // Normalization runs over all elements before any output is parsed.
    expect(crt(`[${IN},[{"bad":1},5]]`)).toEqual(err(-8, 'Invalid parameter, key-value pair not an object as expected'));
  });

  it('data outputs', () => {
    // A JSON number is read as its text: OP_RETURN <push 0x99>, value 0.
    expect(crt('[[],[{"data":99}]]')).toEqual({ ok: true, hex: '0200000000010000000000000000036a019900000000' });
    expect(crt('[[],[{"data":""}]]')).toEqual(err(-8, "Data must be hexadecimal string (not '')"));
    expect(crt('[[],[{"data":true}]]')).toEqual(err(-8, "Data must be hexadecimal string (not '1')"));
    expect(crt('[[],[{"data":null}]]')).toEqual(err(-8, "Data must be hexadecimal string (not '')"));
    expect(crt('[[],[{"data":"abc"}]]')).toEqual(err(-8, "Data must be hexadecimal string (not 'abc')"));
    // 80 bytes: OP_PUSHDATA1.
    const r = crt(`[[],[{"data":"${'ab'.repeat(80)}"}]]`);
    expect(r.ok && r.hex.includes(`536a4c50${'ab'.repeat(80)}`)).toBe(true);
    // Dictionary form with a duplicated data key.
    expect(crt('[[],{"data":"00","data":"01"}]')).toEqual(err(-8, 'Invalid parameter, duplicate key: data'));
  });

  it('amounts (checked before the address) and duplicates', () => {
    expect(crt(`[[],[{"nonsense":true}]]`)).toEqual(err(-3, 'Amount is not a number or string'));
    expect(crt(`[[],[{"nonsense":"+1"}]]`)).toEqual(err(-3, 'Invalid amount'));
    expect(crt(`[[],[{"nonsense":1}]]`)).toEqual(err(-5, 'Invalid Bitcoin address: nonsense'));
    expect(crt(`[[],[{"${ADDR}":1e-8}]]`).ok).toBe(true);
    expect(crt(`[[],[{"${ADDR}":"21000000"}]]`).ok).toBe(true);
    expect(crt(`[[],[{"${ADDR}":"21000000.00000001"}]]`)).toEqual(err(-3, 'Amount out of range'));
    expect(crt(`[[],[{"${ADDR}":".5"}]]`)).toEqual(err(-3, 'Invalid amount'));
    expect(crt(`[[],[{"${ADDR}":0.100000000}]]`).ok).toBe(true);
    // Core reads outputs[name], the FIRST value under a repeated key: the duplicate wins over a bad amount.
    expect(crt(`[[],[{"${ADDR}":1},{"${ADDR}":true}]]`)).toEqual(
      err(-8, `Invalid parameter, duplicated address: ${ADDR}`),
    );
    expect(crt(`[[],{"${ADDR}":1,"${ADDR}":2}]`)).toEqual(err(-8, `Invalid parameter, duplicated address: ${ADDR}`));
    // Same destination written in upper case is a duplicate too.
    expect(crt(`[[],[{"${ADDR}":1},{"${ADDR.toUpperCase()}":2}]]`)).toEqual(
      err(-8, `Invalid parameter, duplicated address: ${ADDR.toUpperCase()}`),
    );
    expect(crt(`[[],[{"${ADDR}":1},{"${ADDR2}":2}]]`).ok).toBe(true);
  });
});
