// The design tokens (renderer/src/styles/tokens.css) in both themes: every text colour on every
// background it is drawn on reaches WCAG AA (4.5:1); the dark theme redefines every colour; and no
// component hard-codes a colour instead of using a token (the QR codes, black on white on purpose, aside).
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RENDERER = fileURLToPath(new URL('../../renderer/src', import.meta.url));
const TOKENS = readFileSync(join(RENDERER, 'styles/tokens.css'), 'utf8');

/** The custom properties of the first block whose selector is exactly `selector`. */
function block(css: string, selector: string): Map<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`no ${selector} block in tokens.css`);
  const body = css.slice(css.indexOf('{', start) + 1, css.indexOf('}', start));
  const out = new Map<string, string>();
  for (const m of body.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/(--[a-z0-9-]+)\s*:\s*([^;]+);/g)) out.set(m[1]!, m[2]!.trim());
  return out;
}

const LIGHT = block(TOKENS, ':root');
const DARK = new Map([...LIGHT, ...block(TOKENS, ":root[data-theme='dark']")]);
const THEMES = { light: LIGHT, dark: DARK } as const;

function rgb(value: string): [number, number, number] {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value);
  if (!hex) throw new Error(`not an opaque hex colour: ${value}`);
  const h = hex[1]!.length === 3 ? [...hex[1]!].map((c) => c + c).join('') : hex[1]!;
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

function luminance(value: string): number {
  const [r, g, b] = rgb(value).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const PLAIN_TEXT = ['--text', '--text-2', '--text-3', '--accent', '--accent-hover', '--ok', '--warn', '--danger'];
const PLAIN_BACKGROUNDS = ['--bg', '--surface', '--surface-2'];
/** Text drawn on a tinted background: [text, background]. */
const TINTED: Array<[string, string]> = [
  ['--text', '--accent-soft'],
  ['--text-2', '--accent-soft'],
  ['--accent', '--accent-soft'],
  ['--accent-hover', '--accent-soft'],
  ['--text', '--info-surface'],
  ['--text-2', '--info-surface'],
  ['--on-accent', '--accent'],
  ['--on-accent', '--accent-hover'],
  ['--ok', '--ok-soft'],
  ['--ok', '--ok-surface'],
  ['--text', '--ok-surface'],
  ['--warn', '--warn-soft'],
  ['--on-warn-soft', '--warn-soft'],
  ['--text', '--warn-soft'],
  ['--on-warn-mark', '--warn-mark'],
  ['--danger', '--danger-soft'],
  ['--on-danger-soft', '--danger-soft'],
  ['--text', '--danger-soft'],
  ['--danger', '--danger-row'],
  ['--text', '--danger-row'],
  ['--on-danger', '--danger'],
  ['--on-danger', '--danger-hover'],
  ['--foreign', '--foreign-soft'],
  ['--testnet', '--testnet-soft'],
  ['--text', '--row-odd'],
  ['--text', '--row-hover'],
  ['--text-2', '--row-hover'],
  ['--text', '--row-active-idle'],
];

describe('design tokens', () => {
  for (const [theme, tokens] of Object.entries(THEMES)) {
    describe(`${theme} theme`, () => {
      const pairs: Array<[string, string]> = [...PLAIN_TEXT.flatMap((t) => PLAIN_BACKGROUNDS.map((b): [string, string] => [t, b])), ...TINTED];
      it.each(pairs)('%s on %s reaches 4.5:1', (text, background) => {
        const fg = tokens.get(text);
        const bg = tokens.get(background);
        expect(fg, `${text} is defined`).toBeDefined();
        expect(bg, `${background} is defined`).toBeDefined();
        expect(contrast(fg!, bg!)).toBeGreaterThanOrEqual(4.5);
      });
    });
  }

  it('the contrast function gives the known ratios (black on white 21:1, equal colours 1:1)', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777', '#777777')).toBeCloseTo(1, 5);
    // WebAIM's example: #767676 on white is the lightest grey that passes AA.
    expect(contrast('#767676', '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrast('#777777', '#ffffff')).toBeLessThan(4.5);
  });

  it('the dark theme redefines every colour token (none of the light palette shows through)', () => {
    const dark = block(TOKENS, ":root[data-theme='dark']");
    const colours = [...LIGHT].filter(([, v]) => /^(#|rgb\()/.test(v) || /\brgb\(/.test(v)).map(([k]) => k);
    expect(colours.length).toBeGreaterThan(30);
    expect(colours.filter((k) => !dark.has(k))).toEqual([]);
  });

  it('no stylesheet or component outside tokens.css hard-codes a colour (QR codes aside)', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));
    const offenders: string[] = [];
    for (const file of walk(RENDERER).filter((f) => /\.(css|vue)$/.test(f) && !f.endsWith('tokens.css'))) {
      const text = readFileSync(file, 'utf8');
      const styles = file.endsWith('.css') ? [text] : [...text.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
      for (const css of styles) {
        for (const rule of css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
          const selector = rule[1]!.trim();
          if (/\bqr\b|qr-/i.test(selector)) continue;
          for (const m of rule[2]!.matchAll(/#[0-9a-f]{3,8}\b|\brgba?\(|\bhsla?\(/gi)) offenders.push(`${relative(RENDERER, file)}: ${selector} ${m[0]}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
