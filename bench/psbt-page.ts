/**
 * npm run bench -- psbt-page: the review reply of the 100,000-input PSBT (issue 27 item 3). The real
 * app's services (createApp on a SQLite file, the PSBT worker) review the 9.3 MB PSBT; the reply now
 * carries the first page of rows (REVIEW_PAGE) and the summary over all of them. Baseline: the same
 * reply with every input row in it (as psbt:review answered before paging; its rows fetched here by
 * psbt:review-page, so the content is identical). Measured: the reply's size as JSON (what the web
 * bridge sends) and the time to serialise it (the baseline with Core's JSON, which now comes by
 * psbt:review-core-json when its section is opened) — JSON.stringify and structuredClone (what Electron's IPC
 * does) — then the time a further page takes (psbt:review-page from the worker's copy).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../electron/main/app';
import type { PsbtInputView, PsbtReviewPageReply, PsbtReviewReply } from '../shared/ipc/contract';
import { REVIEW_PAGE, REVIEW_PAGE_MAX } from '../shared/ipc/psbt';
import { manyInputsPsbt } from '../test/support/psbt-bytes';
import type { Row } from './table';

const INPUTS = 100_000;
const RUNS = 3;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

function timeIt(f: () => unknown): number {
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    f();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

export async function benchPsbtPage(): Promise<Row[]> {
  const psbt = Buffer.from(manyInputsPsbt(INPUTS)).toString('base64');
  const dir = mkdtempSync(join(tmpdir(), 'spyglass-bench-page-'));
  const app = createApp({ dataDir: dir, info: { version: 'bench', platform: process.platform, bridge: true }, secretBackend: null });
  try {
    const r = await app.dispatch('psbt:review', { psbt });
    if (!r.ok) throw new Error(r.error.message);
    const paged = r.value as PsbtReviewReply;
    const page = async (from: number, count: number): Promise<PsbtReviewPageReply> => {
      const p = await app.dispatch('psbt:review-page', { key: paged.reviewKey, side: 'inputs', from, count });
      if (!p.ok) throw new Error(p.error.message);
      return p.value as PsbtReviewPageReply;
    };
    // The next page as the renderer asks it (the worker's copy; labels read per page).
    const pageMs = median(await Promise.all([0, 1, 2].map(async (k) => {
      const t = performance.now();
      await page(REVIEW_PAGE * (k + 1), REVIEW_PAGE);
      return performance.now() - t;
    })));
    const inputs: PsbtInputView[] = [...paged.review.inputs];
    const t = performance.now();
    while (inputs.length < INPUTS) inputs.push(...(await page(inputs.length, REVIEW_PAGE_MAX)).inputs);
    const allPagesMs = performance.now() - t;
    const tj = performance.now();
    const cj = await app.dispatch('psbt:review-core-json', { key: paged.reviewKey });
    const coreJsonMs = performance.now() - tj;
    if (!cj.ok) throw new Error(cj.error.message);
    const coreJson = (cj.value as { json: string | null }).json;
    const whole: PsbtReviewReply = { ...paged, coreJson, review: { ...paged.review, inputs } };

    const size = (x: unknown): number => Buffer.byteLength(JSON.stringify(x));
    const bytesPaged = size(paged);
    const bytesWhole = size(whole);
    const rowsPaged = size(paged.review.inputs) + size(paged.review.outputs);
    const rowsWhole = size(whole.review.inputs) + size(whole.review.outputs);
    const jsonPaged = timeIt(() => JSON.stringify(paged));
    const jsonWhole = timeIt(() => JSON.stringify(whole));
    const clonePaged = timeIt(() => structuredClone(paged));
    const cloneWhole = timeIt(() => structuredClone(whole));
    const mb = (n: number): string => `${(n / 1e6).toFixed(1)} MB`;
    const rest = `coreJson ${mb(size(paged.coreJson))} vs ${mb(size(coreJson))}; of the rest: base64 ${mb(size(paged.base64))}, warnings ${mb(size(paged.review.warnings))}`;
    return [
      {
        name: `psbt:review reply of ${INPUTS.toLocaleString('en-US')} inputs, as JSON`,
        unit: 'MB',
        ours: bytesPaged / 1e6,
        baseline: bytesWhole / 1e6,
        lowerIsBetter: true,
        note: `baseline = every input row and Core's JSON in the reply (before paging); the rows: ${mb(rowsPaged)} vs ${mb(rowsWhole)}; ${rest}`,
      },
      { name: 'psbt:review reply, JSON.stringify (the web bridge)', unit: 'ms', ours: jsonPaged, baseline: jsonWhole, lowerIsBetter: true, note: `baseline = every input row and Core's JSON; median of ${RUNS}` },
      { name: 'psbt:review reply, structuredClone (Electron IPC, the worker’s postMessage)', unit: 'ms', ours: clonePaged, baseline: cloneWhole, lowerIsBetter: true, note: `baseline = every input row and Core's JSON; median of ${RUNS}` },
      {
        name: `psbt:review-page of ${REVIEW_PAGE} inputs from the worker’s copy (dispatch → reply)`,
        unit: 'ms',
        ours: pageMs,
        baseline: allPagesMs,
        lowerIsBetter: true,
        note: `baseline = all ${INPUTS.toLocaleString('en-US')} rows by pages of ${REVIEW_PAGE_MAX.toLocaleString('en-US')} (what “show every row” costs); median of 3 pages`,
      },
      {
        name: `psbt:review-core-json, Core's JSON of ${INPUTS.toLocaleString('en-US')} inputs when its section is opened (dispatch → reply)`,
        unit: 'ms',
        ours: coreJsonMs,
        baseline: jsonWhole,
        lowerIsBetter: true,
        note: `baseline = JSON.stringify of the whole reply (every review paid it before); ${mb(size(coreJson))} as JSON`,
      },
    ];
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
