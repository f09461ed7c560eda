/**
 * Mask penalties. shared/qr/penalty.ts scores 31–32 modules per operation (and the last, short words of both
 * directions as one where they fit: versions 4–7, 12–15, 20–23, 27–31, 35–39); here it is checked against
 *  - the qrcode package's own scoring functions (maskRules 'qrcode': rule for rule, mask for mask), and
 *  - test/qr/reference-penalty.ts, a plain module-by-module reading of ISO/IEC 18004 Table 11 (maskRules 'iso'),
 * and the two places where the package departs from the standard are shown on hand-made grids.
 */
import { describe, expect, it } from 'vitest';
import * as MaskPattern from 'qrcode/lib/core/mask-pattern.js';
import { encodeQr, maskPenalties, toModules } from '../../shared/qr/encode';
import type { QrMode } from '../../shared/qr/segments';
import { EC_LEVELS } from '../../shared/qr/tables';
import { librarySymbol, randomText, rng } from './helpers';
import { referencePenalty } from './reference-penalty';

const MODES: readonly QrMode[] = ['numeric', 'alphanumeric', 'byte'];

/** A grid as the package's scoring functions take it. */
const grid = (size: number, data: Uint8Array) => ({ size, data, get: (r: number, c: number) => data[r * size + c]! });

const libraryScores = (g: ReturnType<typeof grid>) => ({
  n1: MaskPattern.getPenaltyN1(g),
  n2: MaskPattern.getPenaltyN2(g),
  n3: MaskPattern.getPenaltyN3(g),
  n4: MaskPattern.getPenaltyN4(g),
});

describe('mask penalty', () => {
  it("maskRules 'qrcode': every rule of every mask equals the package's scoring of its own symbol", () => {
    const r = rng(5);
    for (let n = 0; n < 48; n++) {
      const mode = r.pick(MODES);
      const level = r.pick(EC_LEVELS);
      const text = randomText(r, mode, 1 + r.int(n < 16 ? 120 : n < 32 || mode === 'byte' ? 600 : 2000));
      const ours = maskPenalties(text, { level, mode, maskRules: 'qrcode' });
      for (let mask = 0; mask < 8; mask++) {
        const lib = librarySymbol(text, mode, { level, mask });
        const { total, ...rules } = ours[mask]!;
        expect(rules, `${mode} ${text.length} chars, ${level}, mask ${mask}`).toEqual(libraryScores(grid(lib.size, lib.modules)));
        expect(total).toBe(rules.n1 + rules.n2 + rules.n3 + rules.n4);
      }
    }
  });

  it("maskRules 'iso': every rule of every mask equals the plain reading of the standard, and the lowest wins", () => {
    const r = rng(6);
    for (let n = 0; n < 48; n++) {
      const mode = r.pick(MODES);
      const level = r.pick(EC_LEVELS);
      const text = randomText(r, mode, 1 + r.int(n < 16 ? 120 : n < 32 || mode === 'byte' ? 600 : 2000));
      const ours = maskPenalties(text, { level, mode, maskRules: 'iso' });
      const totals: number[] = [];
      for (let mask = 0; mask < 8; mask++) {
        const m = encodeQr(text, { level, mode, mask });
        const ref = referencePenalty(toModules(m), m.size, 'iso');
        const { total, ...rules } = ours[mask]!;
        expect(rules, `${mode} ${text.length} chars, ${level}, mask ${mask}`).toEqual(ref);
        totals.push(ref.n1 + ref.n2 + ref.n3 + ref.n4);
        expect(total).toBe(totals[mask]);
      }
      expect(encodeQr(text, { level, mode, maskRules: 'iso' }).mask).toBe(totals.indexOf(Math.min(...totals)));
      expect(encodeQr(text, { level, mode }).mask, "'iso' is the default").toBe(totals.indexOf(Math.min(...totals)));
    }
  });

  it('versions 33–40 (six words a line; merged last words on 35–39), both rule sets', () => {
    const r = rng(8);
    const versions: number[] = [];
    for (const len of [3000, 3300, 3600, 3900, 4250]) {
      const text = randomText(r, 'alphanumeric', len);
      const iso = maskPenalties(text, { level: 'L', maskRules: 'iso' });
      const pkg = maskPenalties(text, { level: 'L', maskRules: 'qrcode' });
      for (let mask = 0; mask < 8; mask++) {
        const m = encodeQr(text, { level: 'L', mask });
        const { total: _t, ...isoRules } = iso[mask]!;
        const { total: _u, ...pkgRules } = pkg[mask]!;
        expect(isoRules).toEqual(referencePenalty(toModules(m), m.size, 'iso'));
        const lib = librarySymbol(text, 'alphanumeric', { level: 'L', mask });
        expect(pkgRules).toEqual(libraryScores(grid(lib.size, lib.modules)));
        if (mask === 0) versions.push(m.version);
      }
    }
    expect(versions).toEqual([33, 35, 37, 38, 40]);
  });

  it('the reference scores hand-made grids as Table 11 says', () => {
    // All light, 21×21: 42 lines of one 21-module run (3 + 16 each), 20×20 blocks, no finder-like pattern,
    // 0 % dark (10 steps of 5 % from 50 %).
    const light = new Uint8Array(21 * 21);
    expect(referencePenalty(light, 21, 'iso')).toEqual({ n1: 42 * 19, n2: 400 * 3, n3: 0, n4: 100 });
    expect(libraryScores(grid(21, light))).toEqual({ n1: 42 * 19, n2: 400 * 3, n3: 0, n4: 100 });
    // Checkerboard: no runs, no blocks, no 1011101; 221 of 441 dark = 50.1 %.
    const checker = Uint8Array.from({ length: 21 * 21 }, (_, i) => (Math.floor(i / 21) + (i % 21)) % 2 === 0 ? 1 : 0);
    expect(referencePenalty(checker, 21, 'iso')).toEqual({ n1: 0, n2: 0, n3: 0, n4: 0 });
  });

  it('where the qrcode package departs from ISO/IEC 18004: N3 at the edge of the symbol', () => {
    // Row 10 starts with 1011101 and is light after it; everything else is light. The pattern is followed by 4 light
    // modules (both count it) and preceded by the quiet zone, which is light (only the standard counts it).
    const g = new Uint8Array(21 * 21);
    [1, 0, 1, 1, 1, 0, 1].forEach((v, c) => (g[10 * 21 + c] = v));
    expect(referencePenalty(g, 21, 'iso').n3).toBe(80);
    expect(referencePenalty(g, 21, 'qrcode').n3).toBe(40);
    expect(MaskPattern.getPenaltyN3(grid(21, g))).toBe(40);
  });

  it('where the qrcode package departs from ISO/IEC 18004: N4 just above 50 % dark', () => {
    // 25×25 = 625 modules. 325 dark = 52 %: within 5 % of 50 %, no points by the standard; the package gives 10.
    const above = Uint8Array.from({ length: 625 }, (_, i) => (i < 325 ? 1 : 0));
    expect(referencePenalty(above, 25, 'iso').n4).toBe(0);
    expect(referencePenalty(above, 25, 'qrcode').n4).toBe(10);
    expect(MaskPattern.getPenaltyN4(grid(25, above))).toBe(10);
    // 300 dark = 48 %: both 0. 250 dark = 40 % exactly: both 20 (two whole steps).
    const below = Uint8Array.from({ length: 625 }, (_, i) => (i < 300 ? 1 : 0));
    expect([referencePenalty(below, 25, 'iso').n4, MaskPattern.getPenaltyN4(grid(25, below))]).toEqual([0, 0]);
    const forty = Uint8Array.from({ length: 625 }, (_, i) => (i < 250 ? 1 : 0));
    expect([referencePenalty(forty, 25, 'iso').n4, MaskPattern.getPenaltyN4(grid(25, forty))]).toEqual([20, 20]);
    // 345 dark = 55.2 %: one whole step by the standard (10), two by the package (20).
    const more = Uint8Array.from({ length: 625 }, (_, i) => (i < 345 ? 1 : 0));
    expect([referencePenalty(more, 25, 'iso').n4, MaskPattern.getPenaltyN4(grid(25, more))]).toEqual([10, 20]);
  });

  it('the two rule sets do pick different masks for some symbols (so the choice of rules matters)', () => {
    const r = rng(11);
    let differ = 0;
    for (let n = 0; n < 60; n++) {
      const text = randomText(r, 'alphanumeric', 20 + r.int(400));
      if (encodeQr(text, { level: 'L', maskRules: 'iso' }).mask !== encodeQr(text, { level: 'L', maskRules: 'qrcode' }).mask) differ++;
    }
    expect(differ).toBeGreaterThan(0);
  });
});
