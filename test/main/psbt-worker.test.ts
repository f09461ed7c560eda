// The PSBT worker thread (electron/main/psbt/runner.ts + worker.ts) on a real SQLite file: a job gives
// the same reply there as inline, errors cross the thread as the same AppError, and — the point of it —
// this thread runs on while the worker decodes and reviews a 100,000-input PSBT. (How long this thread
// waits is measured in `npm run bench -- psbt-worker`, never asserted here.)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import { InlineRunner, sourceWorkerScript, WorkerRunner } from '../../electron/main/psbt/runner';
import { CORE_JSON_INLINE, type ReviewRequest } from '../../electron/main/psbt/jobs';
import { AppError } from '../../shared/errors';
import { REVIEW_PAGE, type PsbtInputView } from '../../shared/ipc/psbt';
import { manyInputsPsbt } from '../support/psbt-bytes';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-worker-'));
const dbFile = join(dir, 'spyglass.sqlite');
const log = { info: () => {}, warn: () => {}, error: () => {} };
let worker: WorkerRunner;
let inline: InlineRunner;

const request = (text: string): ReviewRequest => ({
  text,
  encoding: 'auto',
  profileId: null,
  nodeChain: 'regtest',
  nodeCoreVersion: 31.99,
  nodeTip: null,
  reportHeight: 200,
  offline: false,
  now: 1_800_000_000,
});

beforeAll(() => {
  const db = openDatabase(dbFile);
  inline = new InlineRunner({ repo: new WatchRepository(db), profiles: new ProfileRepository(db) });
  worker = new WorkerRunner(sourceWorkerScript(), dbFile, log as never);
});
afterAll(async () => {
  await worker?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('PSBT worker thread', () => {
  it('reviews a PSBT exactly as inline', async () => {
    const taproot = readFileSync(new URL('../../../shared/fixtures/perf/taproot-1000-inputs.psbt.txt', import.meta.url), 'utf8').trim();
    const a = await worker.run('review', request(taproot));
    const b = await inline.run('review', request(taproot));
    expect(a).toEqual(b);
    // The reply carries the first page of rows; the summary counts all 1,000.
    expect(a.review.inputs).toHaveLength(REVIEW_PAGE);
    expect(a.review.summary.inputCount).toBe(1000);
    expect(a.reviewKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('Core’s JSON longer than the reply holds comes by the review key, the same text as a short one inline', async () => {
    const small = await worker.run('review', request(Buffer.from(manyInputsPsbt(3)).toString('base64')));
    expect(small.coreJson).not.toBeNull();
    expect(small.coreJsonChars).toBe(small.coreJson?.length);
    expect(await worker.run('review-core-json', { key: small.reviewKey, review: null })).toBe(small.coreJson);
    const text = Buffer.from(manyInputsPsbt(5000)).toString('base64');
    const big = await worker.run('review', request(text));
    expect(big.coreJson).toBeNull();
    expect(big.coreJsonChars).toBeGreaterThan(CORE_JSON_INLINE);
    const json = await worker.run('review-core-json', { key: big.reviewKey, review: null });
    expect(json).toHaveLength(big.coreJsonChars);
    expect(JSON.parse(json ?? 'null')).toMatchObject({ inputs: expect.any(Array) });
    expect(json).toBe(await inline.run('review-core-json', { key: big.reviewKey, review: request(text) }));
  });

  it('serves any range of the reviewed rows from its copy; reviews again from the text when that copy is gone', async () => {
    const taproot = readFileSync(new URL('../../../shared/fixtures/perf/taproot-1000-inputs.psbt.txt', import.meta.url), 'utf8').trim();
    const first = await worker.run('review', request(taproot));
    const pages: PsbtInputView[] = [...first.review.inputs];
    while (pages.length < 1000) {
      const p = await worker.run('review-page', { key: first.reviewKey, review: null, side: 'inputs', from: pages.length, count: 300 });
      expect(p.total).toBe(1000);
      expect(p.from).toBe(pages.length);
      expect(p.outputs).toEqual([]);
      pages.push(...p.inputs);
    }
    expect(pages.map((i) => i.index)).toEqual([...Array(1000).keys()]);
    const outs = await worker.run('review-page', { key: first.reviewKey, review: null, side: 'outputs', from: 0, count: 10 });
    expect(outs.outputs).toEqual(first.review.outputs.slice(0, 10));
    expect(outs.total).toBe(first.review.summary.outputCount);

    // Another PSBT reviewed since: the key alone is refused, with the text the review is made again.
    await worker.run('review', request(Buffer.from(manyInputsPsbt(3)).toString('base64')));
    const gone = await worker.run('review-page', { key: first.reviewKey, review: null, side: 'inputs', from: 900, count: 100 }).catch((x: unknown) => x);
    expect(gone).toBeInstanceOf(AppError);
    expect((gone as AppError).detail?.field).toBe('key');
    const again = await worker.run('review-page', { key: first.reviewKey, review: request(taproot), side: 'inputs', from: 900, count: 100 });
    expect(again.inputs).toEqual(pages.slice(900));
    // The text of another review under this key (when its copy is gone) is refused rather than served as this one.
    await worker.run('review', request(Buffer.from(manyInputsPsbt(3)).toString('base64')));
    const wrong = await worker.run('review-page', { key: first.reviewKey, review: request(Buffer.from(manyInputsPsbt(3)).toString('base64')), side: 'inputs', from: 0, count: 1 }).catch((x: unknown) => x);
    expect((wrong as AppError).detail?.field).toBe('key');
  });

  it('a job that fails rejects with the same AppError, code, message and detail', async () => {
    const e = await worker.run('review', request('not a psbt')).catch((x: unknown) => x);
    const i = await inline.run('review', request('not a psbt')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).toIpc()).toEqual((i as AppError).toIpc());
    expect((e as AppError).code).toBe('input.invalid');
  });

  it('this thread runs on while the worker reviews 100,000 inputs; inline it would wait', async () => {
    const big = Buffer.from(manyInputsPsbt(100_000)).toString('base64');
    const order: string[] = [];
    const ticks = (label: string): Promise<void> => new Promise((r) => setTimeout(() => (order.push(label), r()), 0));
    // Worker: the timer set after the job was sent fires before the job's reply.
    const job = worker.run('review', request(big)).then((r) => (order.push('worker done'), r));
    await ticks('tick');
    const reply = await job;
    expect(order).toEqual(['tick', 'worker done']);
    expect(reply.review.summary.inputCount).toBe(100_000);
    // Inline: the same job holds this thread; the timer fires only after it.
    order.length = 0;
    const tick = ticks('tick');
    await inline.run('review', request(big)).then(() => order.push('inline done'));
    await tick;
    expect(order).toEqual(['inline done', 'tick']);
  });

  it('closing rejects what is still running, and nothing runs after', async () => {
    const w = new WorkerRunner(sourceWorkerScript(), dbFile, log as never);
    const pending = expect(w.run('review', request(Buffer.from(manyInputsPsbt(20_000)).toString('base64')))).rejects.toMatchObject({ code: 'cancelled' });
    await w.close();
    await pending;
    await expect(w.run('convert', { text: 'x', encoding: 'auto', to: 0 })).rejects.toMatchObject({ code: 'cancelled' });
  });
});
