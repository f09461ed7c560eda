/**
 * The satisfier's decoder (shared/bitcoin/miniscript/decode.ts, Core's FromScript) over every
 * descriptor of the recorded corpus Core accepted (test/fixtures/miniscript/core-31.99.jsonl):
 * each wsh() witness script and each tapscript leaf must read back as miniscript whose script is
 * the same bytes, of a valid top-level type. Scripts that are not miniscript must not decode.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDescriptor } from '../../shared/bitcoin/descriptor';
import { fromScript } from '../../shared/bitcoin/miniscript/decode';
import { toScript } from '../../shared/bitcoin/miniscript/script';
import type { MsContext } from '../../shared/bitcoin/miniscript/types';
import { REGTEST } from '../../shared/bitcoin/networks';
import { hash160 } from '../../shared/bitcoin/psbt/edit';
import { fromHex, toHex } from '../../shared/bitcoin/hex';

interface CorpusLine {
  note: string;
  checked: string;
  info?: unknown;
}

const lines = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'miniscript', 'core-31.99.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as CorpusLine)
  .filter((l) => l.info && /^(wsh|sh\(wsh|tr)\(/.test(l.checked));

/** Decodes and re-encodes: a pk_h's "key" is kept as its 20-byte hash. */
function roundTrip(script: Uint8Array, ctx: MsContext): Uint8Array | null {
  const d = fromScript(script, ctx, { fromPk: (b) => ((ctx === 'p2wsh' ? b.length === 33 && (b[0] === 2 || b[0] === 3) : b.length === 32) ? b : null), fromPkh: (h) => h });
  if (!d) return null;
  expect(d.node.isValidTopLevel()).toBe(true);
  return toScript(d.node, { pk: (i) => d.keys[i]!, pkh: (i) => (d.keys[i]!.length === 20 ? d.keys[i]! : hash160(d.keys[i]!)) });
}

describe('miniscript from script (Core FromScript)', () => {
  it('covers the corpus', () => {
    expect(lines.length).toBeGreaterThan(100);
  });

  it('reads back every witness script and tapscript leaf of the corpus, byte for byte', () => {
    let scripts = 0;
    for (const l of lines) {
      const d = parseDescriptor(l.checked, REGTEST);
      for (const e of d.expand(0)) {
        const wsh = e.witnessScript;
        if (wsh) {
          scripts++;
          expect(toHex(roundTrip(wsh, 'p2wsh') ?? new Uint8Array(0)), l.note).toBe(toHex(wsh));
        }
        for (const leaf of e.tapLeaves ?? []) {
          scripts++;
          expect(toHex(roundTrip(leaf.script, 'tapscript') ?? new Uint8Array(0)), l.note).toBe(toHex(leaf.script));
        }
      }
    }
    expect(scripts).toBeGreaterThan(100);
  });

  it('refuses what is not miniscript', () => {
    const k = '02' + '11'.repeat(32);
    // non-minimal push of 1, OP_CHECKSIG OP_VERIFY instead of CHECKSIGVERIFY, a bare key, P2PKH-like trailing ops
    for (const hex of ['0101', `21${k}ac69`, `21${k}`, `21${k}ac76`, '']) {
      expect(fromScript(fromHex(hex), 'p2wsh', { fromPk: (b) => b, fromPkh: () => null }), hex).toBeNull();
    }
    // an x-only key is not a P2WSH key, a 33-byte key not a tapscript one
    expect(fromScript(fromHex(`20${'11'.repeat(32)}ac`), 'p2wsh', { fromPk: (b) => (b.length === 33 ? b : null), fromPkh: () => null })).toBeNull();
    expect(fromScript(fromHex(`21${k}ac`), 'tapscript', { fromPk: (b) => (b.length === 32 ? b : null), fromPkh: () => null })).toBeNull();
    // multi() is P2WSH only
    expect(fromScript(fromHex(`5121${k}51ae`), 'tapscript', { fromPk: (b) => b, fromPkh: () => null })).toBeNull();
    expect(fromScript(fromHex(`5121${k}51ae`), 'p2wsh', { fromPk: (b) => b, fromPkh: () => null })).not.toBeNull();
  });
});
