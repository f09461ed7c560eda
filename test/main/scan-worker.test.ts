/**
 * scan:frame through the real app (createApp on a SQLite file, the scan worker thread from source): the frames
 * of issue #27 are answered with a typed refusal in words, the app keeps answering, and a real PSBT's animated
 * QR — Bitcoin Core's recording, fountain parts included, some frames lost — is read whole afterwards in the
 * same session (the refusals come from main's check, ur-part.ts, and leave the scan as it was). How long a ping waits meanwhile is measured in `npm run bench -- qr-scan`, not here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { encodePsbtUr } from '../../electron/main/psbt/ur';
import { InlineScanRunner, sourceScanWorkerScript, WorkerScanRunner } from '../../electron/main/psbt/scan-runner';
import { parseUrPart } from '../../electron/main/psbt/ur-part';
import type { ScanProgressView } from '../../shared/ipc/send';
import { ISSUE_FRAMES, recordedPsbts } from '../support/ur-parts';

let dir: string;
let app: SpyglassApp;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-scan-'));
  app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null });
});

afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

async function frame(session: string, text: string): Promise<ScanProgressView> {
  const r = await app.dispatch('scan:frame', { session, text });
  if (!r.ok) throw new Error(r.error.message);
  return r.value as ScanProgressView;
}

describe('scan:frame', () => {
  it('refuses the frames of issue #27 in words, keeps the scan it was in, and reads a real animated QR after them', async () => {
    const psbt = recordedPsbts().find((p) => p.length > 1500)!;
    const { parts, seqLen } = encodePsbtUr(psbt, { maxFragmentLength: 120, fountainParts: 40 });
    expect(seqLen).toBeGreaterThan(10);
    const first = await frame('scan-a', parts[0]!);
    expect(first).toMatchObject({ received: 1, expected: seqLen, done: false, error: null, errorCode: null });
    const refused = await Promise.all(ISSUE_FRAMES.map((f) => frame('scan-a', f)));
    expect(refused.map((r) => r.errorCode)).toEqual(['too-large', 'too-large', 'corrupt']);
    expect(refused[0]!.error).toBe('This animated QR announces 4,294,967,295 parts; the largest PSBT Spyglass reads (15 MiB) needs at most 1,572,865, so this is not a PSBT to scan');
    // What the screen keeps showing: the progress of the scan, not zero.
    for (const r of refused) expect(r).toMatchObject({ received: 1, expected: seqLen, done: false, psbt: null });
    const info = await app.dispatch('app:info', {});
    expect(info.ok).toBe(true);
    // Every third pure frame lost; the fountain parts make up for them.
    let last: ScanProgressView = first;
    for (const [i, p] of parts.entries()) {
      if (i === 0 || (i < seqLen && i % 3 === 0)) continue;
      last = await frame('scan-a', p);
      if (last.done) break;
    }
    expect(last.done).toBe(true);
    expect(Buffer.from(last.psbt!, 'base64').equals(Buffer.from(psbt))).toBe(true);
  });

  it('a text longer than any QR code is refused at the IPC boundary', async () => {
    const r = await app.dispatch('scan:frame', { session: 'scan-b', text: `ur:crypto-psbt/1-2/${'ae'.repeat(2200)}` });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/A QR code holds at most 4,296 characters/);
  });
});

describe('the scan worker', () => {
  it('gives what the inline runner gives, part for part, and a new worker after close is refused', async () => {
    const psbt = recordedPsbts().find((p) => p.length > 800)!;
    const { parts } = encodePsbtUr(psbt, { maxFragmentLength: 60, fountainParts: 10 });
    const worker = new WorkerScanRunner(sourceScanWorkerScript(), { info() {}, warn() {}, error() {} } as never);
    const inline = new InlineScanRunner();
    try {
      for (const p of parts.slice(1)) {
        const part = parseUrPart(p);
        expect(await worker.scan('s', part)).toEqual(await inline.scan('s', part));
      }
    } finally {
      await worker.close();
    }
    await expect(worker.scan('s', parseUrPart(parts[0]!))).rejects.toMatchObject({ code: 'decoder-stopped' });
  });
});
