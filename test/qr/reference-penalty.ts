/**
 * A deliberately plain implementation of the mask penalty rules (ISO/IEC 18004 §7.8.3, Table 11), written from
 * the standard's wording on a module grid with no bit tricks, to check shared/qr/penalty.ts against. `rules`:
 *  'iso'    the quiet zone outside the symbol is light (it is part of a light area for N3);
 *           N4 = 10 × the number of whole 5 % steps the dark share deviates from 50 %.
 *  'qrcode' the qrcode package's reading (lib/core/mask-pattern.js): N3's light modules must lie inside the symbol,
 *           N4 = 10·|⌈P/5⌉ − 10|.
 */
export type Rules = 'iso' | 'qrcode';

export interface RefPenalty {
  n1: number;
  n2: number;
  n3: number;
  n4: number;
}

/** modules[r * size + c] = 1 for dark. */
export function referencePenalty(modules: ArrayLike<number>, size: number, rules: Rules): RefPenalty {
  const at = (r: number, c: number): number => (r < 0 || c < 0 || r >= size || c >= size ? -1 : modules[r * size + c]!);
  // Lines: every row, then every column, as arrays of module values.
  const lines: number[][] = [];
  for (let r = 0; r < size; r++) lines.push(Array.from({ length: size }, (_, c) => at(r, c)));
  for (let c = 0; c < size; c++) lines.push(Array.from({ length: size }, (_, r) => at(r, c)));

  // N1: each maximal run of one colour of length 5 + i scores 3 + i.
  let n1 = 0;
  for (const line of lines) {
    let start = 0;
    for (let i = 1; i <= size; i++) {
      if (i === size || line[i] !== line[start]) {
        const len = i - start;
        if (len >= 5) n1 += 3 + (len - 5);
        start = i;
      }
    }
  }

  // N2: each 2×2 block of one colour scores 3 (a m×n block thus scores 3·(m−1)·(n−1)).
  let n2 = 0;
  for (let r = 0; r + 1 < size; r++) {
    for (let c = 0; c + 1 < size; c++) {
      const v = at(r, c);
      if (at(r, c + 1) === v && at(r + 1, c) === v && at(r + 1, c + 1) === v) n2 += 3;
    }
  }

  // N3: 1:1:3:1:1 (dark, light, dark ×3, light, dark), preceded by 4 light modules: 40; followed by 4 light: 40.
  const pattern = [1, 0, 1, 1, 1, 0, 1];
  const light = (line: number[], i: number): boolean => (i < 0 || i >= size ? rules === 'iso' : line[i] === 0);
  let n3 = 0;
  for (const line of lines) {
    for (let i = 0; i + 7 <= size; i++) {
      if (!pattern.every((v, j) => line[i + j] === v)) continue;
      if ([1, 2, 3, 4].every((d) => light(line, i - d))) n3 += 40;
      if ([0, 1, 2, 3].every((d) => light(line, i + 7 + d))) n3 += 40;
    }
  }

  // N4: proportion of dark modules.
  let dark = 0;
  for (let i = 0; i < size * size; i++) dark += modules[i]!;
  const percent = (dark * 100) / (size * size);
  const n4 = rules === 'iso' ? 10 * Math.floor(Math.abs(percent - 50) / 5) : 10 * Math.abs(Math.ceil(percent / 5) - 10);
  return { n1, n2, n3, n4 };
}
