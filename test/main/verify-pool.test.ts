// The verify pool (electron/main/psbt/verify-pool.ts): a big PSBT's signatures are checked by helper
// threads (real worker_threads running worker.ts through tsx) and this one, each on its own slice of
// inputs; what the helpers reached becomes this thread's, and the combine/finalize that follows gives
// exactly the reply it gives alone — a spoilt signature in a helper's slice is still named and left
// out. A helper that cannot start costs time, never a verdict. Through the PSBT worker (the app's
// path) the jobs answer as inline. (How much faster: `npm run bench -- psbt-roles`, never asserted.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combinePsbtsBase64, encodeBase64, exportSignatureVerdicts, parsePsbt, serializePsbt } from '../../shared/bitcoin/psbt';
import { forgetSignatureVerdicts } from '../../shared/bitcoin/psbt/checker';
import { combineJob, finalizeJob } from '../../electron/main/send/jobs';
import { VerifyPool, POOL_MIN_INPUTS } from '../../electron/main/psbt/verify-pool';
import { InlineRunner, sourceWorkerScript, WorkerRunner } from '../../electron/main/psbt/runner';
import { openDatabase } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { DraftStore } from '../../electron/main/send/drafts-store';
import { multisigPsbts } from '../support/multisig-psbts';

const N = 120;
const helperScript = { href: new URL('../../electron/main/psbt/worker.ts', import.meta.url).href, execArgv: ['--import', 'tsx'] };

/** b with the signature of input `i` spoilt (one bit of s flipped: still DER, no longer valid). */
function spoil(b: Uint8Array, i: number): Uint8Array {
  const r = parsePsbt(b);
  if (!r.ok) throw new Error(r.message);
  const [k, v] = [...r.psbt.inputs[i]!.partialSigs][0]!;
  const sig = Uint8Array.from(v.sig);
  sig[sig.length - 2]! ^= 1;
  r.psbt.inputs[i]!.partialSigs.set(k, { ...v, sig });
  return serializePsbt(r.psbt);
}

const [a, b] = multisigPsbts(N);
const psbts = [encodeBase64(a), encodeBase64(spoil(b, 100))];

function combineBase64(list: string[]): string {
  const r = combinePsbtsBase64(list);
  if (!r.ok) throw new Error(r.error);
  return r.psbt;
}

function alone<T>(f: () => T): T {
  forgetSignatureVerdicts();
  return f();
}

describe('verify pool', () => {
  let pool: VerifyPool;
  afterAll(async () => pool?.close());

  it('helpers verify their slices; the combine and finalize that follow answer as alone, the spoilt signature named', async () => {
    const combinedAlone = alone(() => combineJob({ psbts }));
    expect(combinedAlone.dropped).toEqual([expect.stringMatching(/^signed PSBT 1: input 100, key [0-9a-f]{66}: the signature does not verify/)]);
    // Combined without dropping it (as combinepsbt does): finalize must refuse that input by name.
    const withBad = combineBase64(psbts);
    const finalAlone = alone(() => finalizeJob({ psbt: withBad }));

    pool = new VerifyPool(helperScript, 2);
    forgetSignatureVerdicts();
    expect(await pool.preverify(psbts)).toBe(3);
    // This thread verified inputs 0–39 only (80 signatures); the other 160 came from the helpers.
    expect(exportSignatureVerdicts().ecdsa).toHaveLength(2 * N);
    expect(combineJob({ psbts })).toEqual(combinedAlone);
    forgetSignatureVerdicts();
    expect(await pool.preverify([withBad])).toBe(3);
    expect(finalizeJob({ psbt: withBad })).toEqual(finalAlone);
    expect(finalAlone.complete).toBe(false);
    expect(finalAlone.refused.join('\n')).toMatch(/input 100, key/);
  });

  it('a small PSBT stays in this thread; a helper that cannot start changes nothing but the time', async () => {
    const [s1, s2] = multisigPsbts(POOL_MIN_INPUTS - 1);
    expect(await pool.preverify([encodeBase64(s1), encodeBase64(s2)])).toBe(1);
    const broken = new VerifyPool({ href: new URL('./no-such-worker.ts', import.meta.url).href, execArgv: ['--import', 'tsx'] }, 1);
    forgetSignatureVerdicts();
    await broken.preverify(psbts);
    expect(exportSignatureVerdicts().ecdsa).toHaveLength(2 * 60); // only this thread's half
    expect(combineJob({ psbts })).toEqual(alone(() => combineJob({ psbts })));
    await broken.close();
  });
});

describe('the PSBT worker with its pool (the app path)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-pool-'));
  const dbFile = join(dir, 'spyglass.sqlite');
  let worker: WorkerRunner;
  let inline: InlineRunner;
  beforeAll(() => {
    const db = openDatabase(dbFile);
    inline = new InlineRunner({ repo: new WatchRepository(db), profiles: new ProfileRepository(db), drafts: new DraftStore(db) });
    worker = new WorkerRunner(sourceWorkerScript(), dbFile, { info() {}, warn() {}, error() {} } as never);
  });
  afterAll(async () => {
    await worker?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('send-combine and send-finalize answer as inline', async () => {
    const c = await worker.run('send-combine', { psbts });
    expect(c).toEqual(alone(() => combineJob({ psbts })));
    const good = [encodeBase64(a), encodeBase64(b)];
    const cg = await worker.run('send-combine', { psbts: good });
    const f = await worker.run('send-finalize', { psbt: cg.combined });
    expect(f.complete).toBe(true);
    forgetSignatureVerdicts();
    expect(f).toEqual(await inline.run('send-finalize', { psbt: cg.combined }));
  });
});
