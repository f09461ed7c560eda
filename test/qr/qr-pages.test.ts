/**
 * The paged animated QR: the `psbt:qr` job (electron/main/psbt/jobs.ts qrJob) gives the first page of UR parts and any
 * later range, each part made directly; renderer/src/lib/qr-pages.ts asks for the page of the frame shown and the next
 * one. Here the pages come from the real job, and every frame of the animation, reached by stepping as a person (or
 * the e2e suite) does, is the part the whole encoding has there.
 */
import { describe, expect, it } from 'vitest';
import { qrJob } from '../../electron/main/psbt/jobs';
import { encodePsbtUr } from '../../electron/main/psbt/ur';
import { QR_PAGE } from '../../shared/ipc/psbt';
import { QrPartPages, type QrPage } from '../../renderer/src/lib/qr-pages';
import { nextFrame, previousFrame } from '../../renderer/src/lib/qr-svg';
import { rng } from './helpers';

function fakePsbt(length: number, seed: number): Uint8Array {
  const r = rng(seed);
  const bytes = Uint8Array.from({ length: 5 + length }, () => r.int(256));
  bytes.set([0x70, 0x73, 0x62, 0x74, 0xff]);
  return bytes;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

describe('psbt:qr pages', () => {
  it('the first page and any later range, with the kind and the total; the same parts as encoding them all', () => {
    const psbt = fakePsbt(30_000, 31);
    const text = b64(psbt);
    const all = encodePsbtUr(psbt, { maxFragmentLength: 250, fountainParts: 121 }); // 30,007 bytes → 121 fragments
    expect(all.seqLen).toBe(121);
    const first = qrJob({ text, encoding: 'auto', fragmentLength: 250 });
    expect(first).toMatchObject({ kind: 'multi', from: 0, total: 242, seqLen: 121, fragmentLength: all.fragmentLength });
    expect(first.parts).toEqual(all.parts.slice(0, QR_PAGE));
    // Out of order, across the pure / mixed boundary, cut at the end.
    for (const [from, count] of [[200, 10], [100, 40], [0, 5], [230, 32], [242, 32]] as const) {
      const page = qrJob({ text, encoding: 'auto', fragmentLength: 250, from, count });
      expect(page.from).toBe(from);
      expect(page.parts, `${from}+${count}`).toEqual(all.parts.slice(from, from + count));
    }
    // Another PSBT or density after the first: its own parts (the job keeps one PSBT's fragments).
    const other = qrJob({ text, encoding: 'auto', fragmentLength: 500, from: 3, count: 2 });
    expect(other.parts).toEqual(encodePsbtUr(psbt, { maxFragmentLength: 500, fountainParts: 61 }).parts.slice(3, 5));
    const small = qrJob({ text: b64(fakePsbt(100, 32)), encoding: 'auto', fragmentLength: 250 });
    expect(small).toMatchObject({ kind: 'single', from: 0, total: 1, seqLen: 1 });
    expect(small.parts).toEqual(encodePsbtUr(fakePsbt(100, 32)).parts);
  });

  it('stepping through the animation reaches every frame: the page shown and the next are asked for, each once', async () => {
    const psbt = fakePsbt(30_000, 33);
    const text = b64(psbt);
    const all = encodePsbtUr(psbt, { maxFragmentLength: 250, fountainParts: 121 }).parts;
    const asked: number[] = [];
    const fetch = (from: number, count: number): Promise<QrPage> => {
      asked.push(from);
      return Promise.resolve(qrJob({ text, encoding: 'auto', fragmentLength: 250, from, count }));
    };
    let changes = 0;
    const pages = new QrPartPages(qrJob({ text, encoding: 'auto', fragmentLength: 250 }), QR_PAGE, fetch, () => changes++);
    expect([pages.total, pages.loaded]).toEqual([242, QR_PAGE]);
    await pages.want(0); // frame 1 shown: the second page comes
    expect(asked).toEqual([QR_PAGE]);
    let k = 0;
    for (let i = 0; i < all.length; i++) {
      expect(pages.parts[k], `frame ${k + 1}`).toBe(all[k]); // already here when the animation gets to it
      k = nextFrame(k, pages.total);
      await pages.want(k);
    }
    expect(pages.loaded).toBe(242);
    expect(asked).toEqual([32, 64, 96, 128, 160, 192, 224]);
    expect(changes).toBe(7);
    // Stepping back from frame 1 to the last frame, on a fresh list: that page is asked for, then drawn.
    const back = new QrPartPages(qrJob({ text, encoding: 'auto', fragmentLength: 250 }), QR_PAGE, fetch, () => undefined);
    const last = previousFrame(0, back.total);
    expect(back.parts[last]).toBeNull();
    await back.want(last);
    expect(back.parts[last]).toBe(all[last]);
  });

  it('a page asked for twice before it lands is fetched once; a failed fetch can be asked for again', async () => {
    const text = b64(fakePsbt(30_000, 34));
    let calls = 0;
    let fail = true;
    const fetch = (from: number, count: number): Promise<QrPage> => {
      calls++;
      if (fail) return Promise.reject(new Error('worker lost'));
      return Promise.resolve(qrJob({ text, encoding: 'auto', fragmentLength: 250, from, count }));
    };
    const pages = new QrPartPages(qrJob({ text, encoding: 'auto', fragmentLength: 250 }), QR_PAGE, fetch, () => undefined);
    await expect(Promise.all([pages.want(40), pages.want(41)])).rejects.toThrow(/worker lost/);
    expect(calls).toBe(2); // pages 32 and 64, once each
    fail = false;
    await Promise.all([pages.want(40), pages.want(41)]);
    expect(calls).toBe(4);
    expect(pages.loaded).toBe(3 * QR_PAGE);
  });
});
