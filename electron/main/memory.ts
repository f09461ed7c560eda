// A full V8 garbage collection on request, for the few places that just dropped a lot of memory at
// once (a refresh of 10,000 addresses parses tens of MB of node and index replies that are garbage a
// moment later). V8 collects lazily: without a hint the main process keeps that garbage — and its
// resident memory — until the heap grows past its next limit, so a refresh of a large wallet left the
// process 60–80 MB bigger than what it actually holds.
//
// Node exposes gc() only with --expose-gc; like Jest's --logHeapUsage, the flag is turned on at run
// time and gc() taken from a fresh context. Where that is refused, collect() does nothing.
//
// The collection asked for is V8's "last resort" one (gc({flavor: 'last-resort'}), what
// Isolate::LowMemoryNotification runs): full collections until nothing more is freed, then the
// young generation shrunk and the freed pages given back. A plain gc() frees the objects but keeps
// the pages: on Node 24 (V8 13) the young generation grows to 128 MB during a refresh of 10,000
// addresses and kept 65–76 MB of it resident after a plain gc() with 13 MB of live heap, which put
// the main process at 230–266 MB instead of ~125 MB (BENCHMARKS.md, refresh). A V8 without the
// option reads the call as a plain full collection.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

/** Runs a full garbage collection when the runtime allows it; returns whether it did. */
export function collectGarbage(): boolean {
  if (gc === undefined) {
    gc = null;
    try {
      setFlagsFromString('--expose-gc');
      const f: unknown = runInNewContext('gc');
      if (typeof f === 'function') {
        const full = f as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
        gc = () => full({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      }
    } catch {
      gc = null;
    }
  }
  if (gc === null) return false;
  gc();
  return true;
}
