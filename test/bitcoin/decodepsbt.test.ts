/**
 * decodepsbt against every recorded Bitcoin Core v30 reply (fixtures/core, group decodepsbt), read
 * with Core v30's rules (`{ coreVersion: 30 }`): same keys, order and values; amounts written with
 * exactly 8 decimals; errors with the same code and message. The newer generation's recordings:
 * decodepsbt-v2.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { coreGroup } from '../fixtures';
import { badAmountTokens } from '../support/amount-tokens';
import { writeJson } from '../../shared/json';
import { MAINNET, REGTEST } from '../../shared/bitcoin/networks';
import { decodeBase64Core, decodePsbt as decodeLatest, decodePsbtJson as decodeJsonLatest, isFullyValidPubkey } from '../../shared/bitcoin/psbt';
import type { Network } from '../../shared/bitcoin/networks';

/** Core v30's decodepsbt (this file's recordings). */
const decodePsbt = (b64: string, net: Network) => decodeLatest(b64, net, { coreVersion: 30 });
const decodePsbtJson = (b64: string, net: Network) => decodeJsonLatest(b64, net, { coreVersion: 30 });

interface RpcBody {
  result: unknown;
  error: { code: number; message: string } | null;
}

const cases = coreGroup('decodepsbt');

describe('decodepsbt: Bitcoin Core v30 recordings', () => {
  it('has the recorded cases', () => {
    expect(cases.length).toBe(66);
  });

  for (const rec of cases) {
    const req = JSON.parse(rec.request.body) as { params: unknown[] };
    const param = req.params[0];
    const body = rec.response.body as RpcBody;
    if (typeof param !== 'string') {
      // A non-string parameter is rejected by the RPC layer's type check (-3), before decoding.
      it.skip(`${rec.name} (RPC layer: parameter type check)`, () => {});
      continue;
    }
    it(rec.name, () => {
      const got = decodePsbt(param, REGTEST);
      if (body.error) {
        expect(got.ok).toBe(false);
        if (!got.ok) expect({ code: got.code, message: got.message }).toEqual(body.error);
        return;
      }
      expect(got.ok).toBe(true);
      if (!got.ok) return;
      const text = writeJson(got.result);
      expect(JSON.stringify(JSON.parse(text))).toBe(JSON.stringify(body.result));
      expect(badAmountTokens(text)).toEqual([]);
    });
  }
});

describe('decodepsbt: rules beyond the recordings', () => {
  it('base64 follows Core DecodeBase64 (length, padding, pad bits)', () => {
    expect(decodeBase64Core('')).toEqual(new Uint8Array(0));
    expect(decodeBase64Core('aGk=')).toEqual(new Uint8Array([0x68, 0x69]));
    expect(decodeBase64Core('aGl=')).toBeNull(); // non-zero pad bits
    expect(decodeBase64Core('aGk')).toBeNull();
    expect(decodeBase64Core('a=Gk')).toBeNull();
    expect(decodeBase64Core('aG k')).toBeNull();
  });

  it('pubkey validity (IsFullyValid)', () => {
    const g = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
    const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
    expect(isFullyValidPubkey(hex(g))).toBe(true);
    expect(isFullyValidPubkey(hex('02' + '00'.repeat(31) + '05'))).toBe(false);
    expect(isFullyValidPubkey(hex('04' + g.slice(2)))).toBe(false);
    const gy = '483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
    expect(isFullyValidPubkey(hex('04' + g.slice(2) + gy))).toBe(true);
    expect(isFullyValidPubkey(hex('06' + g.slice(2) + gy))).toBe(true);
    expect(isFullyValidPubkey(hex('07' + g.slice(2) + gy))).toBe(false);
  });

  const msg = (b64: string) => {
    const r = decodePsbt(b64, REGTEST);
    return r.ok ? 'ok' : r.message;
  };
  const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
  // unsigned tx: version 2, 1 input, 1 output, locktime 0
  const utx =
    '02000000' + '01' + '11'.repeat(32) + '00000000' + '00' + 'ffffffff' + '01' + '1027000000000000' + '00' + '00000000';
  const utxLen = (utx.length / 2).toString(16).padStart(2, '0');
  const head = '70736274ff' + '0100' + utxLen + utx;

  it('extra data, missing separator, version, counts', () => {
    expect(msg(b64(head + '00' + '00' + '00'))).toBe('ok');
    expect(msg(b64(head + '00' + '00' + '00' + '00'))).toBe('TX decode failed extra data after PSBT');
    expect(msg(b64(head))).toBe('TX decode failed Separator is missing at the end of the global map: iostream error');
    expect(msg(b64(head + '00'))).toBe(
      'TX decode failed Inputs provided does not match the number of inputs in transaction.: iostream error',
    );
    expect(msg(b64(head + '00' + '00'))).toBe(
      'TX decode failed Outputs provided does not match the number of outputs in transaction.: iostream error',
    );
    expect(msg(b64(head + '01fb' + '0402000000' + '00' + '00' + '00'))).toBe(
      'TX decode failed Unsupported version number: iostream error',
    );
    expect(msg(b64(head + '01fb' + '0400000000' + '00' + '00' + '00'))).toBe('ok');
    expect(msg(b64('70736274ff' + '00'))).toBe('TX decode failed No unsigned transaction was provided: iostream error');
    expect(msg(b64('70736274ff' + '03fd0100' + '00'))).toBe('TX decode failed non-canonical ReadCompactSize(): iostream error');
    expect(msg(b64('70736274ff' + 'fe00000004'))).toBe('TX decode failed ReadCompactSize(): size too large: iostream error');
  });

  it('fee: negative allowed, absent without every utxo, sighash cast to unsigned char', () => {
    // witness utxo of 5000 sats < 10000 sats output -> fee -0.00005000
    const wu = '8813000000000000' + '00';
    const r = decodePsbt(b64(head + '00' + '0101' + '09' + wu + '0103' + '0401010000' + '00' + '00'), REGTEST);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const text = writeJson(r.result);
    expect(text).toContain('"fee":-0.00005000');
    expect(text).toContain('"sighash":"ALL"');
  });

  it('proprietary and unknown keys are sorted like std::map / std::set', () => {
    const prop = (id: string, sub: string, kd: string, v: string) => {
      const key = 'fc' + (id.length / 2).toString(16).padStart(2, '0') + id + sub + kd;
      return (key.length / 2).toString(16).padStart(2, '0') + key + (v.length / 2).toString(16).padStart(2, '0') + v;
    };
    const g =
      head +
      prop('aa', '02', '', 'beef') +
      prop('aa', '01', '', 'cafe') +
      '02' + 'f101' + '01' + '99' +
      '02' + 'f0ff' + '01' + '98' +
      '00' + '00' + '00';
    const r = decodePsbt(b64(g), REGTEST);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.result.proprietary).toEqual([
      { identifier: 'aa', subtype: 1, key: 'fc01aa01', value: 'cafe' },
      { identifier: 'aa', subtype: 2, key: 'fc01aa02', value: 'beef' },
    ]);
    expect(Object.keys(r.result.unknown as object)).toEqual(['f0ff', 'f101']);
  });
});

describe('decodepsbt: global xpubs (BIP174 example, separator appended)', () => {
  it('xpub, fingerprint, path, partial signatures, fee', () => {
    const v =
      'cHNidP8BAJ0BAAAAAnEOp2q0XFy2Q45gflnMA3YmmBgFrp4N/ZCJASq7C+U1AQAAAAD/////GQmU1qizyMgsy8+y+6QQaqBmObhyqNRHRlwNQliNbWcAAAAAAP////8CAOH1BQAAAAAZdqkUtrwsDuVlWoQ9ea/t0MzD991kNAmIrGBa9AUAAAAAFgAUEYjvjkzgRJ6qyPsUHL9aEXbmoIgAAAAATwEEiLIeA55TDKyAAAAAPbyKXJdp8DGxfnf+oVGGAyIaGP0Y8rmlTGyMGsdcvDUC8jBYSxVdHH8c1FEgplPEjWULQxtnxbLBPyfXFCA3wWkQJ1acUDEAAIAAAACAAAAAgAABAR8A4fUFAAAAABYAFDO5gvkbKPFgySC0q5XljOUN2jpKIgIDMJaA8zx9446mpHzU7NZvH1pJdHxv+4gI7QkDkkPjrVxHMEQCIC1wTO2DDFapCTRL10K2hS3M0QPpY7rpLTjnUlTSu0JFAiAthsQ3GV30bAztoITyopHD2i1kBw92v5uQsZXn7yj3cgEiBgMwloDzPH3jjqakfNTs1m8fWkl0fG/7iAjtCQOSQ+OtXBgnVpxQMQAAgAAAAIAAAACAAAAAAAEAAAAAAQEfAOH1BQAAAAAWABQ4j7lEMH63fvRRl9CwskXgefAR3iICAsd3Fh9z0LfHK57nveZQKT0T8JW8dlatH1Jdpf0uELEQRzBEAiBMsftfhpyULg4mEAV2ElQ5F5rojcqKncO6CPeVOYj6pgIgUh9JynkcJ9cOJzybFGFphZCTYeJb4nTqIA1+CIJ+UU0BIgYCx3cWH3PQt8crnue95lApPRPwlbx2Vq0fUl2l/S4QsRAYJ1acUDEAAIAAAACAAAAAgAAAAAAAAAAAAAA=';
    const b = Buffer.concat([Buffer.from(v, 'base64'), Buffer.from([0])]).toString('base64');
    const r = decodePsbt(b, MAINNET);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.result.global_xpubs).toEqual([
      {
        xpub: 'xpub6CpGH79LXVkeiux2ZPWMpEubBrRfgcGCgy2HiagyN6NW3qdioJaqFYyD1fG6LDfxWEhMXJqcDuU5VneKt5UQYUGPa5Mfxdw2D2NArwX5TBm',
        master_fingerprint: '27569c50',
        path: 'm/49h/0h/0h',
      },
    ]);
    expect(writeJson(r.result.fee)).toBe('0.00100000');
    // a repeated xpub (same pubkey and chain code) is rejected like Core
    const raw = Buffer.from(b, 'base64');
    const xkey = raw.subarray(raw.indexOf(Buffer.from('4f01', 'hex')), raw.indexOf(Buffer.from('4f01', 'hex')) + 2 + 78 + 1 + 16);
    const dup = Buffer.concat([raw.subarray(0, 5), xkey, raw.subarray(5)]).toString('base64');
    const d = decodePsbt(dup, MAINNET);
    expect(!d.ok && d.message).toBe('TX decode failed Duplicate key, global xpub already provided: iostream error');
    // Core ≥ 31.99 fails on the repeated key itself, before looking at its type.
    const d2 = decodeLatest(dup, MAINNET);
    expect(!d2.ok && d2.message).toBe(`TX decode failed Duplicate Key, global key "${xkey.subarray(1, 80).toString('hex')}" already provided: iostream error`);
  });
});

describe('decodePsbtJson (RPC text path)', () => {
  it('writes the same text as writeJson(decodePsbt().result) for every recorded case', () => {
    for (const rec of cases) {
      const param = (JSON.parse(rec.request.body) as { params: unknown[] }).params[0];
      if (typeof param !== 'string') continue;
      const a = decodePsbt(param, REGTEST);
      const b = decodePsbtJson(param, REGTEST);
      expect(b.ok).toBe(a.ok);
      if (a.ok && b.ok) expect(b.json).toBe(writeJson(a.result));
      if (!a.ok && !b.ok) expect(b.message).toBe(a.message);
    }
  });
});

describe('decodepsbt: errors are data', () => {
  it('never throws on mutated recorded PSBTs (fixed-seed fuzz)', () => {
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const bases = cases
      .map((r) => (JSON.parse(r.request.body) as { params: unknown[] }).params[0])
      .filter((p): p is string => typeof p === 'string' && p.startsWith('cHNidP8'));
    for (let it = 0; it < 3000; it++) {
      let out = Buffer.from(bases[rnd(bases.length)]!, 'base64');
      for (let j = 1 + rnd(3); j > 0; j--) {
        const op = rnd(3);
        const pos = rnd(out.length);
        if (op === 0) out[pos] = rnd(256);
        else if (op === 1) out = Buffer.concat([out.subarray(0, pos), out.subarray(pos + 1 + rnd(4))]);
        else out = Buffer.concat([out.subarray(0, pos), Buffer.from([rnd(256)]), out.subarray(pos)]);
      }
      const r = decodePsbt(out.toString('base64'), REGTEST);
      if (r.ok) writeJson(r.result);
      else expect(r.message.startsWith('TX decode failed ')).toBe(true);
    }
  });
});
