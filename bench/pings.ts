// What the stall benches (stall.ts, overview-page.ts) measure a request with: a ping is a timer in
// the process the app's services run in, due every PING_MS; its worst lateness while `fn` runs is the
// longest the app could answer nothing (IPC, the bridge, the monitor's timers).
import type { SpyglassApp } from '../electron/main/app';

export const PING_MS = 10;

/** Duration, CPU time of the whole process (every thread: on a busy machine the duration is mostly waiting), worst ping lateness. */
export interface Sample {
  ms: number;
  cpuMs: number;
  worstPingMs: number;
}

/** Runs `fn` while a PING_MS timer notes how late it fires: the duration, the CPU time, the worst lateness (ms) and fn's value. */
export async function withPings<T>(fn: () => Promise<T> | T): Promise<Sample & { value: T }> {
  const c0 = process.cpuUsage();
  let worst = 0;
  let due = performance.now() + PING_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - due);
    due = now + PING_MS;
  }, PING_MS);
  const t0 = performance.now();
  let value: T;
  try {
    value = await fn();
  } finally {
    clearInterval(timer);
  }
  const end = performance.now();
  worst = Math.max(worst, end - due); // a stall still running when fn ended
  const c = process.cpuUsage(c0);
  return { ms: end - t0, cpuMs: (c.user + c.system) / 1000, worstPingMs: worst, value };
}

/** A request as the IPC handlers make it (dispatch); its error as an exception. */
export async function call<T>(app: SpyglassApp, channel: string, payload: unknown): Promise<T> {
  const r = (await app.dispatch(channel, payload)) as { ok: true; value: T } | { ok: false; error: { message: string } };
  if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
  return r.value;
}
