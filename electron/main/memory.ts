// A full V8 garbage collection on request, for the few places that just dropped a lot of memory at
// once (a refresh of 10,000 addresses parses tens of MB of node and index replies that are garbage a
// moment later). V8 collects lazily: without a hint the main process keeps that garbage — and its
// resident memory — until the heap grows past its next limit, so a refresh of a large wallet left the
// process 60–80 MB bigger than what it actually holds.
//
// Node exposes gc() only with --expose-gc; like Jest's --logHeapUsage, the flag is turned on at run
// time and gc() taken from a fresh context. Where that is refused, collect() does nothing.
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
      if (typeof f === 'function') gc = f as () => void;
    } catch {
      gc = null;
    }
  }
  if (gc === null) return false;
  gc();
  return true;
}
