/**
 * PSBT decoding speed: Spyglass decodePsbt (base64 → Core's decodepsbt result, serialized with
 * writeJson) against @scure/btc-signer's Transaction.fromPSBT (naive baseline: base64 → typed
 * PSBT, no JSON), best of 5, on the two large Core-made PSBTs in fixtures/perf.
 * Real Bitcoin Core v30 decodepsbt round trips: 23.5 ms and 2,007 ms (fixtures/perf/README.md); the
 * devnet's own decodepsbt round trip (JSON-RPC over loopback HTTP) is timed in the same run.
 *
 * Warm-up (not counted): 5 runs per row for the small taproot PSBT, whose ~10 ms runs otherwise
 * still measure V8 tiering up (runs 2–6 of a fresh process vary 10–40 ms on a shared 2-core
 * machine); 1 run for the p2wpkh PSBT (each run is long enough to warm up). The very first
 * decodePsbtJson call of the process (cold: parsing, JIT, x-only key checks not yet cached) is
 * timed on its own and shown in the note.
 *
 * PSBT version 2 (BIP370): the same two PSBTs converted to version 2 (convertPsbtBase64, as current
 * Core writes them) are decoded with current Core's rules into text and objects; the note compares
 * each with its version 0 form timed alternately in the same loop (v2/v0: 1.00× means as fast).
 *
 * Run alone: npx tsx bench/psbt.ts   (or as the `psbt` group of npm run bench)
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Transaction } from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { convertPsbtBase64, decodePsbt, decodePsbtJson } from '../shared/bitcoin/psbt';
import { REGTEST } from '../shared/bitcoin/networks';
import { writeJson } from '../shared/json';
import { startDevnet, type Devnet } from '../devnet/index';
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

/** Best of n for two functions run alternately (a fair comparison on a machine whose load changes). */
function bestOfPair(n: number, f: () => void, g: () => void, warmups: number): [number, number] {
  for (let i = 0; i < warmups; i++) {
    f();
    g();
  }
  let bf = Infinity;
  let bg = Infinity;
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    f();
    bf = Math.min(bf, performance.now() - t);
    t = performance.now();
    g();
    bg = Math.min(bg, performance.now() - t);
  }
  return [bf, bg];
}

async function bestOfAsync(n: number, f: () => Promise<void>, warmups: number): Promise<number> {
  for (let i = 0; i < warmups; i++) await f();
  let best = Infinity;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

/**
 * One `decodepsbt` JSON-RPC call to the devnet over loopback HTTP on a new connection (as bitcoin-cli
 * does; a kept-alive socket could have been closed by the server while the synchronous rows ran), the
 * reply read in full and checked.
 */
function devnetDecode(devnet: Devnet, psbt: string): Promise<number> {
  const body = `{"jsonrpc":"1.0","id":"bench","method":"decodepsbt","params":[${JSON.stringify(psbt)}]}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      devnet.rpcUrl,
      {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'text/plain', Authorization: `Basic ${Buffer.from(`${devnet.auth.user}:${devnet.auth.password}`).toString('base64')}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200 || !text.startsWith('{"result":{"tx":')) reject(new Error(`devnet decodepsbt: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
          else resolve(text.length);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function benchPsbt(): Promise<Row[]> {
  const devnet = await startDevnet({ scenario: 'empty' });
  try {
    return await benchPsbtWith(devnet);
  } finally {
    await devnet.close();
  }
}

async function benchPsbtWith(devnet: Devnet): Promise<Row[]> {
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
    let replyLen = 0;
    const roundTrip = await bestOfAsync(5, async () => {
      replyLen = await devnetDecode(devnet, f.text);
    }, f.warmups);
    const core = CORE_MS[f.name]!;
    const vsCore = (ms: number): string => `Core ${core} ms (ours/Core ${(ms / core).toFixed(2)}×)`;
    const unit = `ms (best of 5, ${f.warmups} warm-up run${f.warmups === 1 ? '' : 's'})`;

    // The same PSBT as version 2.
    const conv = convertPsbtBase64(f.text, 2);
    if (!conv.ok) throw new Error(conv.message);
    const v2 = conv.base64;
    let v2Len = 0;
    const textOf = (psbt: string): number => {
      const r = decodePsbtJson(psbt, REGTEST);
      if (!r.ok) throw new Error(r.message);
      return r.json.length;
    };
    const objectsOf = (psbt: string): void => {
      const r = decodePsbt(psbt, REGTEST);
      if (!r.ok) throw new Error(r.message);
    };
    // v0 and v2 alternately: the ratio in the note compares runs made under the same load.
    const [v0TextPaired, v2Text] = bestOfPair(5, () => void textOf(f.text), () => (v2Len = textOf(v2)), f.warmups);
    const [v0ObjectsPaired, v2Objects] = bestOfPair(5, () => objectsOf(f.text), () => objectsOf(v2), f.warmups);
    const v2Baseline = bestOf(5, () => {
      Transaction.fromPSBT(base64.decode(v2), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
    }, f.warmups);
    const vsV0 = (ms: number, v0: number): string => `the v0 form, run alternately with it: ${v0.toFixed(1)} ms (v2/v0 ${(ms / v0).toFixed(2)}×)`;
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
      {
        name: `${f.label}: devnet decodepsbt round trip (JSON-RPC over loopback HTTP)`,
        unit,
        ours: roundTrip,
        baseline,
        lowerIsBetter: true,
        note: `Transaction.fromPSBT; ${vsCore(roundTrip)} — the same measurement as Core's (request sent, reply read); devnet in the bench's process; reply ${(replyLen / 1e6).toFixed(1)} MB`,
      },
      {
        name: `${f.label} as PSBT v2 → JSON text (decodePsbtJson)`,
        unit,
        ours: v2Text,
        baseline: v2Baseline,
        lowerIsBetter: true,
        note: `Transaction.fromPSBT of the v2 PSBT; ${vsV0(v2Text, v0TextPaired)}; JSON ${(v2Len / 1e6).toFixed(1)} MB`,
      },
      {
        name: `${f.label} as PSBT v2 → objects (decodePsbt)`,
        unit,
        ours: v2Objects,
        baseline: v2Baseline,
        lowerIsBetter: true,
        note: `Transaction.fromPSBT of the v2 PSBT; ${vsV0(v2Objects, v0ObjectsPaired)}`,
      },
    );
  }
  return rows;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  void benchPsbt().then((rows) => printTable('psbt', rows));
}
