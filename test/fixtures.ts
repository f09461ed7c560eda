/** Loads the real recordings in ../shared/fixtures (always present beside the repo, in CI too). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const SHARED_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared');
export const FIXTURES_DIR = join(SHARED_DIR, 'fixtures');

export interface CoreRecording {
  group: string;
  name: string;
  request: { path: string; method: string; body: string };
  response: { status: number; contentType: string; body: unknown };
}

/** The recordings of each Core generation: v30's first contract, and the same stateless requests answered by 31.99. */
export const CORE_FILES = { '30': 'bitcoin-core-v30.jsonl', '31.99': 'bitcoin-core-v31.99-stateless.jsonl' } as const;
export type RecordedGeneration = keyof typeof CORE_FILES;

const cache = new Map<RecordedGeneration, CoreRecording[]>();

/** Every request/reply line of a generation's file (default v30's) except the `meta` line. */
export function coreRecordings(generation: RecordedGeneration = '30'): CoreRecording[] {
  let recs = cache.get(generation);
  if (!recs) {
    const text = readFileSync(join(FIXTURES_DIR, 'core', CORE_FILES[generation]), 'utf8');
    recs = text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as CoreRecording & { group: string })
      .filter((r) => r.group !== 'meta');
    cache.set(generation, recs);
  }
  return recs;
}

/** The `meta` line of a generation's file: the recording node's getnetworkinfo version and subversion. */
export function coreMeta(generation: RecordedGeneration): { version: number; subversion: string } {
  const text = readFileSync(join(FIXTURES_DIR, 'core', CORE_FILES[generation]), 'utf8');
  const meta = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { group: string; version: number; subversion: string })
    .find((r) => r.group === 'meta');
  if (!meta) throw new Error(`${CORE_FILES[generation]} has no meta line`);
  return { version: meta.version, subversion: meta.subversion };
}

export function coreGroup(group: string, generation: RecordedGeneration = '30'): CoreRecording[] {
  return coreRecordings(generation).filter((r) => r.group === group);
}

/** The Core recording files (see ../shared/fixtures/core/README.md). */
export type CoreFile = 'bitcoin-core-v30.jsonl' | 'bitcoin-core-v31.99-stateless.jsonl' | 'bitcoin-core-spend.jsonl' | 'bitcoin-core-psbt-vectors.jsonl';

/** A spend-file fill vector (no request/response): an unsigned PSBT and what walletprocesspsbt made of it. */
export interface FillVector {
  group: 'fill-vector';
  name: string;
  network: string;
  psbt: string;
  descriptors: unknown[];
  prevtxs: Record<string, string>;
  expected: string;
}

const fileCache = new Map<CoreFile, Array<CoreRecording | FillVector>>();

/** Every line of one Core recording file except its `meta` line. */
export function coreFileLines(file: CoreFile): Array<CoreRecording | FillVector> {
  let lines = fileCache.get(file);
  if (!lines) {
    lines = readFileSync(join(FIXTURES_DIR, 'core', file), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as CoreRecording | FillVector)
      .filter((r) => r.group !== 'meta');
    fileCache.set(file, lines);
  }
  return lines;
}

/** One group's request/reply lines of a Core recording file. */
export function coreFileGroup(file: CoreFile, group: string): CoreRecording[] {
  return coreFileLines(file).filter((r): r is CoreRecording => r.group === group && 'request' in r);
}

export function isFillVector(line: CoreRecording | FillVector): line is FillVector {
  return line.group === 'fill-vector';
}

/** The spend file's fill vectors. */
export function fillVectors(): FillVector[] {
  return coreFileLines('bitcoin-core-spend.jsonl').filter(isFillVector);
}

export function indexSample(name: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, 'index-samples', name), 'utf8'));
}
