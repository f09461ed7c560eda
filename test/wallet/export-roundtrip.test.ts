/**
 * Whatever imports also exports (issue #27): every accepted import of the wallet tests goes out
 * through both exports (the descriptor text, its multipath line alone, the BSMS 1.0 record) and
 * comes back as the same wallet. Plus Core's rule for multipath keys beside plain ones, and a text
 * of only comments.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REGTEST, type Network } from '../../shared/bitcoin/networks';
import { detectImport, exportBsms, exportDescriptors, importWallet, isWalletText, type ImportOptions, type WalletDescription } from '../../shared/wallet/index';
import { FIXTURES_DIR } from '../fixtures';
import { expectImportError } from './helpers';
import { COSIGNERS, FILES, KEY_INPUTS, NODE } from './vectors';

const P2WSH = COSIGNERS.map((c) => `[${c.fingerprint}/48h/1h/0h/2h]${c.p2wsh}`);
const P2SH_P2WSH = COSIGNERS.map((c) => `[${c.fingerprint}/48h/1h/0h/1h]${c.p2shP2wsh}`);

/** Core accepts a multipath key beside plain ones: the plain key is the same in both branches. */
const MIXED: Record<string, string> = {
  'wsh, first key <0;1>, others /0': `wsh(sortedmulti(2,${P2WSH[0]}/<0;1>/*,${P2WSH[1]}/0/*,${P2WSH[2]}/0/*))`,
  'wsh, two keys <0;1>, last /0': `wsh(sortedmulti(2,${P2WSH[0]}/<0;1>/*,${P2WSH[1]}/<0;1>/*,${P2WSH[2]}/0/*))`,
  'sh(wsh), unsorted, last key <0;3>': `sh(wsh(multi(2,${P2SH_P2WSH[0]}/0/*,${P2SH_P2WSH[1]}/0/*,${P2SH_P2WSH[2]}/<0;3>/*)))`,
  'wsh, each key its own change branch': `wsh(sortedmulti(2,${P2WSH[0]}/<0;1>/*,${P2WSH[1]}/<0;5>/*,${P2WSH[2]}/0/*))`,
};

function coreJson(): string {
  const rec = readFileSync(join(FIXTURES_DIR, 'core', 'bitcoin-core-spend.jsonl'), 'utf8').split('\n').find((l) => l.includes('"name":"watch-only wallet"'))!;
  return JSON.stringify((JSON.parse(rec) as { response: { body: { result: unknown } } }).response.body.result);
}

/** Every input the wallet tests import, with the options they import it with. */
function accepted(): [string, string, ImportOptions][] {
  const out: [string, string, ImportOptions][] = [];
  for (const [name, text] of Object.entries(FILES)) out.push([`file ${name}`, text, {}]);
  for (const [name, n] of Object.entries(NODE)) {
    out.push([`${name} receive descriptor`, n.external, {}]);
    out.push([`${name} receive and change descriptors`, `${n.external}\n${n.internal}`, {}]);
  }
  for (const [name, k] of Object.entries(KEY_INPUTS)) {
    const { xpub, ...opts } = k as { xpub: string } & ImportOptions;
    out.push([`extended key ${name}`, xpub, opts]);
  }
  for (const st of ['p2wpkh', 'p2tr', 'p2pkh', 'p2sh-p2wpkh'] as const) out.push([`Core listdescriptors (${st})`, coreJson(), { scriptType: st }]);
  for (const [name, text] of Object.entries(MIXED)) out.push([`mixed multipath: ${name}`, text, {}]);
  return out;
}

function same(a: WalletDescription, b: WalletDescription): void {
  expect({ external: b.external, internal: b.internal, threshold: b.threshold, sorted: b.sorted, scriptType: b.scriptType }).toEqual({
    external: a.external,
    internal: a.internal,
    threshold: a.threshold,
    sorted: a.sorted,
    scriptType: a.scriptType,
  });
}

describe('whatever imports also exports', () => {
  const net: Network = REGTEST;
  const inputs = accepted();
  it('covers every kind of accepted input', () => {
    expect(inputs.length).toBeGreaterThanOrEqual(4 + 2 * Object.keys(NODE).length + Object.keys(KEY_INPUTS).length + 4 + Object.keys(MIXED).length);
  });
  for (const [name, text, opts] of inputs) {
    it(name, () => {
      const w = importWallet(text, net, opts);
      const d = exportDescriptors(w);
      same(w, importWallet(d.text, net));
      if (d.multipath) same(w, importWallet(d.multipath, net));
      else expect(w.internal === null || w.internal === w.external).toBe(true);
      same(w, importWallet(exportBsms(w), net));
    });
  }

  it('a multipath key beside plain ones: exported with <a;b> where the branches differ and the plain step where they do not', () => {
    const w = importWallet(MIXED['wsh, first key <0;1>, others /0']!, REGTEST);
    expect(w.external).toContain(`${COSIGNERS[0].p2wsh}/0/*`);
    expect(w.internal).toContain(`${COSIGNERS[0].p2wsh}/1/*`);
    expect(w.internal).toContain(`${COSIGNERS[1].p2wsh}/0/*`);
    const d = exportDescriptors(w);
    expect(d.multipath).toMatch(new RegExp(`${COSIGNERS[0].p2wsh}/<0;1>/\\*,.*${COSIGNERS[1].p2wsh}/0/\\*,.*${COSIGNERS[2].p2wsh}/0/\\*\\)\\)#`));
    expect(d.multipath).not.toContain('<0;0>');
    // BSMS's one template cannot give the keys different branches: the multipath descriptor itself.
    expect(exportBsms(w).split('\n').slice(1, 3)).toEqual([d.multipath, 'No path restrictions']);
  });

  it('wallets whose keys share their branches keep the BSMS template with /0/*,/1/*', () => {
    const w = importWallet(`${NODE['caravan']!.external}\n${NODE['caravan']!.internal}`, REGTEST);
    const lines = exportBsms(w).split('\n');
    expect(lines[1]).toMatch(/\/\*\*,/);
    expect(lines[2]).toBe('/0/*,/1/*');
  });

  it("multipath keys of different lengths are refused with Core's reason", () => {
    const text = `wsh(sortedmulti(2,${P2WSH[0]}/<0;1>/*,${P2WSH[1]}/<0;1;2>/*,${P2WSH[2]}/0/*))`;
    expectImportError(() => importWallet(text, REGTEST), 'invalid', 'descriptor', 'multi(): Multipath derivation paths have mismatched lengths');
  });
});

describe('a text of only comments', () => {
  const texts = ['#', '# my cold storage', '# one\n\n   # two\r\n#', '\uFEFF# with a byte order mark\n', '', '  \n\t'];
  it('is detected as empty, not as a wallet, addresses or an error', () => {
    for (const t of texts) expect(detectImport(t)).toEqual({ format: 'empty', wallet: false, description: 'nothing yet (only blank lines and # comments)' });
    for (const t of texts) expect(isWalletText(t)).toBe(false);
  });

  it('is refused by the import with its own reason, whatever format is asked', () => {
    for (const t of texts) expectImportError(() => importWallet(t, REGTEST), 'empty', 'file', /nothing to import: the text has only blank lines and # comments/);
    expectImportError(() => importWallet('# my xpub', REGTEST, { format: 'xpub' }), 'empty', 'file');
    expectImportError(() => importWallet('# my descriptor', REGTEST, { format: 'descriptor' }), 'empty', 'file');
  });

  it('typed one character at a time, every prefix is detected without an error', () => {
    const text = `# my cold storage\n${NODE['caravan']!.external}`;
    for (let i = 0; i <= text.length; i++) expect(() => detectImport(text.slice(0, i))).not.toThrow();
    expect(isWalletText(text)).toBe(true);
  });
});
