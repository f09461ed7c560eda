import { describe, expect, it } from 'vitest';
import { JsonParseError, parseJson, RawJson, uGet, writeJson } from '../shared/json';

describe('UniValue-like JSON', () => {
  it('keeps number text and duplicate keys', () => {
    const v = parseJson('{"a":0.10000000,"a":2,"b":[1e-8,null]}');
    expect(v.t).toBe('obj');
    if (v.t !== 'obj') return;
    expect(v.k).toEqual(['a', 'a', 'b']);
    expect(uGet(v, 'a')).toEqual({ t: 'num', v: '0.10000000' });
  });

  it('rejects trailing garbage and bad tokens', () => {
    for (const bad of ['{"a":1', '[1,]', '01', '{"a" 1}', '1 2', '', 'nul']) {
      expect(() => parseJson(bad), bad).toThrow(JsonParseError);
    }
  });

  it('writes raw 8-decimal amounts and skips undefined members', () => {
    expect(writeJson({ a: new RawJson('1.00000000'), b: undefined, c: 'x"\n\u0001' })).toBe(
      '{"a":1.00000000,"c":"x\\"\\n\\u0001"}',
    );
  });
});
