/**
 * PSBT decoding speed: Spyglass decodePsbt (base64 → Core's decodepsbt result, serialized with
 * writeJson) against @scure/btc-signer's Transaction.fromPSBT (naive baseline: base64 → typed
 * PSBT, no JSON), best of 5, on the two large Core-made PSBTs in fixtures/perf.
 * Real Bitcoin Core v30 decodepsbt round trips: 23.5 ms and 2,007 ms (fixtures/perf/README.md).
 *
 * Warm-up (not counted): 5 runs per row for the small taproot PSBT, whose ~10 ms runs otherwise
 * still measure V8 tiering up (runs 2–6 of a fresh process vary 10–40 ms on a shared 2-core
 * machine); 1 run for the p2wpkh PSBT (each run is long enough to warm up). The very first
 * decodePsbtJson call of the process (cold: parsing, JIT, x-only key checks not yet cached) is
 * timed on its own and shown in the note.
 *
 * Run alone: npx tsx bench/psbt.ts   (or as the `psbt` group of npm run bench)
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { decodePsbt, decodePsbtJson } from '../shared/bitcoin/psbt';
import { REGTEST } from '../shared/bitcoin/networks';
import { writeJson } from '../shared/json';
import { printTable, type Row } from './table';

const PERF = join(fileURLToPath(import.meta.url), '..', '..', '..', 'shared', 'fixtures', 'perf');

const CORE_MS: Record<string, number> = { taproot: 23.5, p2wpkh: 2007 };

function bestOf(n: number, f: () => void, warmups: number): number {
  for (let i = 0; i < warmups; i++) f(); // warm-up (JIT), not counted
  let best = Infinity;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    f();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

export async function benchPsbt(): Promise<Row[]> {
  const files = [
    {
      name: 'taproot',
      label: 'decode taproot-1000-inputs',
      warmups: 5,
      text: readFileSync(join(PERF, 'taproot-1000-inputs.psbt.txt'), 'utf8').trim(),
    },
    {
      name: 'p2wpkh',
      label: 'decode p2wpkh-1000-inputs-non-witness',
      warmups: 1,
      text: gunzipSync(readFileSync(join(PERF, 'p2wpkh-1000-inputs-non-witness.psbt.txt.gz'))).toString('utf8').trim(),
    },
  ];
  const rows: Row[] = [];
  let cold: number | undefined;
  for (const f of files) {
    let outLen = 0;
    const decodeText = (): void => {
      const r = decodePsbtJson(f.text, REGTEST);
      if (!r.ok) throw new Error(r.message);
      outLen = r.json.length;
    };
    let coldNote = '';
    if (cold === undefined) {
      // The process's first decodePsbtJson call, counted as the first warm-up run.
      const t = performance.now();
      decodeText();
      cold = performance.now() - t;
      coldNote = `; first call of the process (cold) ${cold.toFixed(0)} ms`;
    }
    const text = bestOf(5, decodeText, coldNote ? f.warmups - 1 : f.warmups);
    const objects = bestOf(5, () => {
      const r = decodePsbt(f.text, REGTEST);
      if (!r.ok) throw new Error(r.message);
    }, f.warmups);
    const objectsJson = bestOf(5, () => {
      const r = decodePsbt(f.text, REGTEST);
      if (!r.ok) throw new Error(r.message);
      writeJson(r.result);
    }, f.warmups);
    const baseline = bestOf(5, () => {
      Transaction.fromPSBT(base64.decode(f.text), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
    }, f.warmups);
    const core = CORE_MS[f.name]!;
    const vsCore = (ms: number): string => `Core ${core} ms (ours/Core ${(ms / core).toFixed(2)}×)`;
    const unit = `ms (best of 5, ${f.warmups} warm-up run${f.warmups === 1 ? '' : 's'})`;
    rows.push(
      {
        name: `${f.label} → JSON text (decodePsbtJson)`,
        unit,
        ours: text,
        baseline,
        lowerIsBetter: true,
        note: `Transaction.fromPSBT; ${vsCore(text)}; JSON ${(outLen / 1e6).toFixed(1)} MB${coldNote}`,
      },
      {
        name: `${f.label} → objects (decodePsbt)`,
        unit,
        ours: objects,
        baseline,
        lowerIsBetter: true,
        note: `Transaction.fromPSBT; ${vsCore(objects)}`,
      },
      {
        name: `${f.label} → objects + writeJson`,
        unit,
        ours: objectsJson,
        baseline,
        lowerIsBetter: true,
        note: `Transaction.fromPSBT; ${vsCore(objectsJson)}`,
      },
    );
  }
  return rows;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  void benchPsbt().then((rows) => printTable('psbt', rows));
}
