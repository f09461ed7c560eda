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

let cache: CoreRecording[] | undefined;

/** Every request/reply line of bitcoin-core-v30.jsonl except the `meta` line. */
export function coreRecordings(): CoreRecording[] {
  if (!cache) {
    const text = readFileSync(join(FIXTURES_DIR, 'core', 'bitcoin-core-v30.jsonl'), 'utf8');
    cache = text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as CoreRecording & { group: string })
      .filter((r) => r.group !== 'meta');
  }
  return cache;
}

export function coreGroup(group: string): CoreRecording[] {
  return coreRecordings().filter((r) => r.group === group);
}

export function indexSample(name: string): unknown {
  return JSON.parse(readFileSync(join(FIXTURES_DIR, 'index-samples', name), 'utf8'));
}
