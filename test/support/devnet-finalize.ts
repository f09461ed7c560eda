/**
 * The devnet answers recorded finalizepsbt calls (and analyzepsbt, with `analyze`) exactly as the
 * Core build that recorded them: a devnet of that generation per suite (miniscript-finalize and
 * miniscript-finalize-hash tests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { finalizePsbtBase64, type CoreVersion, type SignatureCheck } from '../../shared/bitcoin/psbt';
import { TestRpc } from './rpc';

export interface RecordedFinalize {
  note: string;
  signed: string;
  finalized: unknown;
  extracted: unknown;
  analyzed?: unknown;
}

export function devnetFinalizesAsCore(title: string, coreVersion: number, cases: readonly RecordedFinalize[], opts: { analyze: boolean }): void {
  describe(title, () => {
    let devnet: Devnet;
    let rpc: TestRpc;
    beforeAll(async () => {
      devnet = await startDevnet({ rpcUser: 'spy', rpcPassword: 'glass', scenario: 'empty', coreVersion: coreVersion === 30 ? '30' : '31.99' });
      rpc = new TestRpc(devnet.rpcUrl, 'spy', 'glass');
    });
    afterAll(async () => {
      await devnet?.close();
    });

    it('answers every recorded line as Core did', async () => {
      for (const c of cases) {
        expect(await rpc.call('finalizepsbt', [c.signed, false]), c.note).toEqual(c.finalized);
        expect(await rpc.call('finalizepsbt', [c.signed]), c.note).toEqual(c.extracted);
        if (opts.analyze) expect(await rpc.call('analyzepsbt', [c.signed]), c.note).toEqual(c.analyzed);
      }
    });
  });
}

/**
 * Our finalize answers a recorded line as Core's finalizepsbt did, strict or not, with and without
 * extract; strict refuses the signatures `refused` expects (none by default; a strict refusal never
 * changes the answer where Core's is incomplete). Returns the inputs it left unfinalized when not
 * strict (with their reasons), which is none exactly when Core's answer is complete.
 */
export function finalizesAsCore(c: RecordedFinalize, coreVersion: CoreVersion, refused: (checks: SignatureCheck[]) => void = (checks) => expect(checks, c.note).toEqual([])): { input: number; reason: string }[] {
  for (const strict of [true, false]) {
    const r = finalizePsbtBase64(c.signed, { coreVersion, strict });
    expect(r, c.note).toMatchObject({ ok: true, result: c.finalized });
    if (r.ok) {
      if (strict) refused(r.refused);
      else expect(r.refused).toEqual([]);
    }
    expect(finalizePsbtBase64(c.signed, { coreVersion, strict, extract: true }), c.note).toMatchObject({ ok: true, result: c.extracted });
  }
  const r = finalizePsbtBase64(c.signed, { coreVersion, strict: false });
  if (!r.ok) throw new Error(r.error);
  if ((c.finalized as { complete?: boolean }).complete) expect(r.incomplete).toEqual([]);
  return r.incomplete;
}
