/**
 * Raw transaction parsing/serialization against Bitcoin Core v30 recordings: every
 * non_witness_utxo (and unsigned tx) carried by the recorded decodepsbt inputs is parsed and its
 * txid, wtxid, size, vsize, weight (and the whole TxToUniv object) compared with Core's reply.
 */
import { describe, expect, it } from 'vitest';
import { coreGroup } from '../fixtures';
import { writeJson } from '../../shared/json';
import { REGTEST } from '../../shared/bitcoin/networks';
import { ByteReader, parseTx, serializeTx, StreamError, hexReversed, sha256d } from '../../shared/bitcoin/tx';
import { decodeRawTransaction, decodeRawTransactionJson } from '../../shared/bitcoin/decode';

interface Found {
  name: string;
  raw: Uint8Array;
  recorded: Record<string, unknown>;
}

/** Walks a PSBT's key/value maps (raw layer only) to collect the unsigned tx and non_witness_utxos. */
function collect(): Found[] {
  const found: Found[] = [];
  for (const rec of coreGroup('decodepsbt')) {
    const body = rec.response.body as { result: Record<string, unknown> | null };
    const param = (JSON.parse(rec.request.body) as { params: unknown[] }).params[0];
    if (!body.result || typeof param !== 'string') continue;
    const bytes = Uint8Array.from(Buffer.from(param, 'base64'));
    const r = new ByteReader(bytes, 5);
    const readMap = (): Map<number, Uint8Array> => {
      const m = new Map<number, Uint8Array>();
      for (;;) {
        const key = r.varBytes();
        if (key.length === 0) return m;
        const v = r.varBytes();
        if (key.length === 1) m.set(key[0]!, v);
      }
    };
    const global = readMap();
    const utx = global.get(0)!;
    found.push({ name: `${rec.name} unsigned tx`, raw: utx, recorded: body.result.tx as Record<string, unknown> });
    const nIn = parseTx(utx, { allowWitness: false }).vin.length;
    const inputs = body.result.inputs as Record<string, unknown>[];
    for (let i = 0; i < nIn; i++) {
      const m = readMap();
      const nwu = m.get(0);
      if (nwu) found.push({ name: `${rec.name} input ${i}`, raw: nwu, recorded: inputs[i]!.non_witness_utxo as Record<string, unknown> });
    }
  }
  return found;
}

const all = collect();

describe('tx: recorded transactions', () => {
  it('found non_witness_utxos in the fixtures', () => {
    expect(all.filter((f) => f.name.includes('input')).length).toBeGreaterThan(15);
  });

  for (const f of all) {
    it(`${f.name}: txid, wtxid, size, vsize, weight, round trip, TxToUniv`, () => {
      const tx = parseTx(f.raw, { allowWitness: true });
      const rec = f.recorded;
      expect(tx.txid).toBe(rec.txid);
      expect(tx.wtxid).toBe(rec.hash);
      expect(tx.size).toBe(rec.size);
      expect(tx.vsize).toBe(rec.vsize);
      expect(tx.weight).toBe(rec.weight);
      expect(tx.version).toBe(rec.version);
      expect(tx.locktime).toBe(rec.locktime);
      // serialization round trip, and the stripped serialization hashes to the txid
      expect(Buffer.from(serializeTx(tx, { witness: true })).toString('hex')).toBe(Buffer.from(f.raw).toString('hex'));
      const stripped = serializeTx(tx, { witness: false });
      expect(stripped.length).toBe(tx.strippedSize);
      expect(hexReversed(sha256d(stripped))).toBe(rec.txid);
      // the whole decoded object
      expect(JSON.parse(writeJson(decodeRawTransactionJson(tx, REGTEST)))).toEqual(rec);
      const viaRpc = decodeRawTransaction(Buffer.from(f.raw).toString('hex'), REGTEST);
      expect(viaRpc.ok).toBe(true);
      if (viaRpc.ok) expect(JSON.stringify(JSON.parse(writeJson(viaRpc.result)))).toBe(JSON.stringify(rec));
    });
  }
});

describe('tx: Core deserializer rules', () => {
  const err = (hex: string, allowWitness = true): string => {
    try {
      parseTx(Uint8Array.from(Buffer.from(hex, 'hex')), { allowWitness });
      return 'ok';
    } catch (e) {
      return e instanceof StreamError ? e.message : String(e);
    }
  };
  const input = '11'.repeat(32) + '00000000' + '00' + 'ffffffff';
  const output = '1027000000000000' + '00';

  it('end of data, compact sizes, witness flags', () => {
    expect(err('')).toBe('DataStream::read(): end of data');
    expect(err('02000000' + '01' + input + '01' + output + '00000000')).toBe('ok');
    expect(err('02000000' + 'fd0100')).toBe('non-canonical ReadCompactSize()');
    expect(err('02000000' + 'fe00000004')).toBe('ReadCompactSize(): size too large');
    expect(err('02000000' + 'ff0000000001000000')).toBe('ReadCompactSize(): size too large');
    expect(err('02000000' + 'ff0100000000000000')).toBe('non-canonical ReadCompactSize()');
    // marker + flag 1 with only empty witnesses
    expect(err('02000000' + '0001' + '01' + input + '01' + output + '00' + '00000000')).toBe('Superfluous witness record');
    expect(err('02000000' + '0002' + '01' + input + '01' + output + '00000000')).toBe('Unknown transaction optional data');
    // without witness support the marker is an empty vin and the flag a one-output vout
    expect(err('02000000' + '0001' + '01' + input + '01' + output + '00000000', false)).not.toBe('ok');
    // empty vin + flags 0: no vout is read (Core quirk)
    const t = parseTx(Uint8Array.from(Buffer.from('02000000' + '00' + '00' + '00000000', 'hex')));
    expect(t.vin.length + t.vout.length).toBe(0);
  });

  it('decoderawtransaction: DecodeHexTx rules', () => {
    expect(decodeRawTransaction('', REGTEST)).toEqual({ ok: false, code: -22, message: 'TX decode failed' });
    expect(decodeRawTransaction('zz', REGTEST)).toEqual({ ok: false, code: -22, message: 'TX decode failed' });
    expect(decodeRawTransaction('020', REGTEST).ok).toBe(false);
    const tx = '02000000' + '01' + input + '01' + output + '00000000';
    expect(decodeRawTransaction(tx + '00', REGTEST).ok).toBe(false); // trailing bytes
    expect(decodeRawTransaction(tx.toUpperCase(), REGTEST).ok).toBe(true);
    // coinbase form
    const cb = '01000000' + '01' + '00'.repeat(32) + 'ffffffff' + '0151' + 'ffffffff' + '01' + output + '00000000';
    const r = decodeRawTransaction(cb, REGTEST);
    expect(r.ok && (r.result.vin as unknown[])[0]).toEqual({ coinbase: '51', sequence: 4294967295 });
    // version is printed as Core v30's uint32
    const v = decodeRawTransaction('ffffffff' + tx.slice(8), REGTEST);
    expect(v.ok && v.result.version).toBe(4294967295);
  });
});

describe('tx: serializeTx from a built transaction', () => {
  it('serializes without prevHash, with and without witness', () => {
    const tx = {
      version: 2,
      locktime: 0,
      vin: [{ prevTxid: '11'.repeat(31) + '22', vout: 1, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [new Uint8Array([1, 2])] }],
      vout: [{ value: 10000n, script: new Uint8Array([0x51]) }],
    };
    const full = serializeTx(tx, { witness: true });
    const parsed = parseTx(full);
    expect(parsed.vin[0]!.prevTxid).toBe(tx.vin[0]!.prevTxid);
    expect(parsed.hasWitness).toBe(true);
    expect(parsed.size).toBe(full.length);
    const stripped = serializeTx(tx, { witness: false });
    expect(parsed.strippedSize).toBe(stripped.length);
    expect(parsed.weight).toBe(stripped.length * 3 + full.length);
    expect(parsed.txid).toBe(hexReversed(sha256d(stripped)));
    expect(parsed.wtxid).toBe(hexReversed(sha256d(full)));
  });
});
