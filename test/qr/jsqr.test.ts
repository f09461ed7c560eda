/**
 * Every symbol must be readable: shared/qr's matrices rendered to pixels (4-module quiet zone) and read back with
 * jsqr, an independent decoder, for each version 1–40, each level, each mode and each mask (real UR frames: test/main/ur.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { encodeQr } from '../../shared/qr/encode';
import type { QrMode } from '../../shared/qr/segments';
import { EC_LEVELS } from '../../shared/qr/tables';
import { decodeWithJsqr, randomText, rng } from './helpers';

describe('jsqr reads shared/qr symbols', () => {
  it('one symbol per version 1–40, levels and modes in turn, at the smallest version that fits and the chosen mask', () => {
    const r = rng(40);
    const modes: QrMode[] = ['numeric', 'alphanumeric', 'byte'];
    for (let v = 1; v <= 40; v++) {
      const level = EC_LEVELS[v % 4]!; // version 23 gets H, whose error correction absorbs jsqr's wrong alignment table (encode.test.ts)
      const mode = modes[v % 3]!;
      // Grow the text until the symbol reaches version v (the smallest version that fits is the encoder's choice).
      let text = randomText(r, mode, 1);
      let m = encodeQr(text, { level, mode });
      while (m.version < v) {
        text += randomText(r, mode, Math.max(1, Math.floor(text.length / 8)));
        m = encodeQr(text, { level, mode });
      }
      const read = decodeWithJsqr(m, 2);
      expect(read, `v${m.version}-${level} ${mode}`).not.toBeNull();
      expect(read!.version).toBe(m.version);
      if (mode === 'byte') expect(new TextDecoder().decode(Uint8Array.from(read!.bytes))).toBe(text);
      else expect(read!.text).toBe(text);
    }
  });

  it('every mask reads back (v5-Q, alphanumeric)', () => {
    const text = 'UR:CRYPTO-PSBT/HDOSJOJKIDJYZMADAEJSAOAEAEAEAD';
    for (let mask = 0; mask < 8; mask++) expect(decodeWithJsqr(encodeQr(text, { level: 'Q', mask }))?.text).toBe(text);
  });
});
