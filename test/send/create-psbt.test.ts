// The offline creator against Core's createpsbt replies (bitcoin-core-spend.jsonl): every recorded
// success byte for byte, in the PSBT version the node was asked for (its default 2, or 0).
import { describe, expect, it } from 'vitest';
import { parseBtc } from '../../shared/amounts';
import { decodeDestination } from '../../shared/bitcoin/address';
import { fromHex } from '../../shared/bitcoin/hex';
import { REGTEST } from '../../shared/bitcoin/networks';
import { encodeBase64 } from '../../shared/bitcoin/psbt';
import { createPsbtBytes, defaultSequence, MAX_BIP125_RBF_SEQUENCE, MAX_SEQUENCE_NONFINAL, SEQUENCE_FINAL } from '../../shared/send/create-psbt';
import { opReturnScript } from '../../shared/send/recipients';
import { coreFileGroup } from '../fixtures';

type Out = Record<string, number | string>;

function specOf(params: unknown[]) {
  const [inputs, outputs, locktime = 0, replaceable = true, version = 2, psbtVersion = 2] = params as [
    Array<{ txid: string; vout: number; sequence?: number }>,
    Out[] | Out,
    number?,
    boolean?,
    number?,
    (0 | 2)?,
  ];
  const pairs = Array.isArray(outputs) ? outputs.flatMap((o) => Object.entries(o)) : Object.entries(outputs);
  const outs = pairs.map(([k, v]) => {
    if (k === 'data') return { script: opReturnScript(fromHex(String(v))), value: 0n };
    const d = decodeDestination(k, REGTEST);
    if (!d.ok) throw new Error(d.error);
    return { script: d.script, value: parseBtc(typeof v === 'number' ? v.toFixed(8) : v) };
  });
  return {
    spec: {
      version,
      locktime,
      inputs: inputs.map((i) => ({ txid: i.txid, vout: i.vout, sequence: i.sequence ?? defaultSequence(replaceable, locktime) })),
      outputs: outs,
    },
    psbtVersion,
    duplicate: new Set(pairs.map(([k]) => k)).size !== pairs.length,
  };
}

describe('createpsbt offline', () => {
  const recs = coreFileGroup('bitcoin-core-spend.jsonl', 'createpsbt');

  it('the recordings hold successes of both PSBT versions', () => {
    const ok = recs.filter((r) => (r.response.body as { result: unknown }).result !== null);
    expect(ok.length).toBeGreaterThanOrEqual(6);
  });

  for (const r of recs) {
    const body = r.response.body as { result: string | null; error: { message: string } | null };
    if (body.result === null) continue;
    it(`byte for byte: ${r.name}`, () => {
      const req = JSON.parse(r.request.body) as { params: unknown[] };
      const { spec, psbtVersion, duplicate } = specOf(req.params);
      expect(duplicate).toBe(false);
      expect(encodeBase64(createPsbtBytes(spec, psbtVersion))).toBe(body.result);
    });
  }

  it("Core's default sequences", () => {
    expect(defaultSequence(true, 0)).toBe(MAX_BIP125_RBF_SEQUENCE);
    expect(defaultSequence(true, 150)).toBe(MAX_BIP125_RBF_SEQUENCE);
    expect(defaultSequence(false, 150)).toBe(MAX_SEQUENCE_NONFINAL);
    expect(defaultSequence(false, 0)).toBe(SEQUENCE_FINAL);
  });

  it('OP_RETURN pushes: direct under 76 bytes, PUSHDATA1, PUSHDATA2', () => {
    expect(Array.from(opReturnScript(new Uint8Array(5)).subarray(0, 2))).toEqual([0x6a, 5]);
    expect(Array.from(opReturnScript(new Uint8Array(80)).subarray(0, 3))).toEqual([0x6a, 0x4c, 80]);
    expect(Array.from(opReturnScript(new Uint8Array(300)).subarray(0, 4))).toEqual([0x6a, 0x4d, 300 & 0xff, 1]);
  });
});
