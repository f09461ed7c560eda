/**
 * Seed material for the fuzz targets, taken from the real Bitcoin Core recordings
 * (../shared/fixtures/core/*.jsonl) and the wallet test vectors: every string in a request or a
 * reply that is a descriptor, an address or a raw transaction.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeDestination } from '../../shared/bitcoin/address';
import { decodeHexTx } from '../../shared/bitcoin/decode';
import { REGTEST } from '../../shared/bitcoin/networks';
import { FIXTURES_DIR } from '../fixtures';

const DESCRIPTOR_START = /^(sh|wsh|pkh|wpkh|tr|multi|sortedmulti|pk|combo|addr|raw|rawtr|multi_a|sortedmulti_a)\(/;

function walk(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) walk(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x, out);
}

let cache: string[] | null = null;

/** Every string value of every recorded request and reply. */
export function recordedStrings(): string[] {
  if (cache) return cache;
  const out: string[] = [];
  const dir = join(FIXTURES_DIR, 'core');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl')).sort()) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let o: unknown;
      try {
        o = JSON.parse(line);
      } catch {
        continue;
      }
      const rec = o as { request?: { body?: string }; response?: { body?: unknown } };
      if (rec.request?.body) {
        try {
          walk(JSON.parse(rec.request.body), out);
        } catch {
          // a recorded request that is no JSON (the "garbage" cases): nothing to take
        }
      }
      walk(rec.response?.body, out);
    }
  }
  cache = [...new Set(out)];
  return cache;
}

export function recordedDescriptors(): string[] {
  return recordedStrings().filter((s) => DESCRIPTOR_START.test(s) && s.length < 20_000);
}

export function recordedAddresses(): string[] {
  return recordedStrings().filter((s) => s.length <= 100 && decodeDestination(s, REGTEST).ok);
}

export function recordedRawTxs(): string[] {
  return recordedStrings().filter((s) => s.length >= 120 && s.length < 400_000 && /^[0-9a-f]+$/.test(s) && !s.startsWith('70736274ff') && decodeHexTx(s) !== null);
}
