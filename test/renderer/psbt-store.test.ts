import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { PsbtCrosscheckReply, PsbtInputView, PsbtReviewReply, PsbtWarningView, Request } from '../../shared/ipc/contract';
import { REVIEW_PAGE_MAX } from '../../shared/ipc/psbt';
import { PSBT_WARNING_CODES } from '../../shared/bitcoin/psbt-review';
import { setApi } from '../../renderer/src/api/client';
import {
  MAX_PSBT_FILE,
  MAX_PSBT_TEXT,
  WARNING_TITLES,
  base64ToBytes,
  bytesToBase64,
  exportStem,
  externalDestinations,
  fileToPsbtText,
  formatBytes,
  indentJson,
  isBinaryPsbt,
  sortWarnings,
  usePsbtStore,
} from '../../renderer/src/stores/psbt';
import { fakeApi, type FakeApi } from './fake-api';
import { parseTx, serializeTx } from '../../shared/bitcoin/tx';

let api: FakeApi;

beforeEach(() => {
  api = fakeApi();
  setApi(api);
  setActivePinia(createPinia());
});

// The renderer's tests have no Node types: hex and a plain reference base64 encoder here.
const fromHex = (h: string): Uint8Array<ArrayBuffer> => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
const toHex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function refBase64(b: Uint8Array): string {
  let out = '';
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + (i + 1 < b.length ? ALPHABET[(n >> 6) & 63]! : '=') + (i + 2 < b.length ? ALPHABET[n & 63]! : '=');
  }
  return out;
}

// Only the bytes matter to the store: the magic and a few more.
const PSBT_BYTES = fromHex('70736274ff01000a0200000000000000000000');
/** A signed P2WPKH spend as a signer's binary .txn holds it (a shape-only signature and key in its witness). */
const SIGNED_TXN = (() => {
  // version 2, one input (11…11:0, final sequence), one output of 10,000 sats, locktime 0
  const unsigned = parseTx(fromHex('0200000001' + '11'.repeat(32) + '00000000' + '00' + 'ffffffff' + '01' + '1027000000000000' + '00' + '00000000'));
  const witness = [Uint8Array.from([0x30, ...new Array<number>(70).fill(7)]), Uint8Array.from([0x02, ...new Array<number>(32).fill(9)])];
  return serializeTx({ ...unsigned, vin: unsigned.vin.map((i) => ({ ...i, witness })) }, { witness: true });
})();
const PSBT_B64 = refBase64(PSBT_BYTES);

function warning(code: PsbtWarningView['code'], severity: PsbtWarningView['severity'], over: Partial<PsbtWarningView> = {}): PsbtWarningView {
  return { code, severity, message: `${code} message`, inputs: [], outputs: [], ...over };
}

function reply(over: Partial<PsbtReviewReply> = {}, warnings: PsbtWarningView[] = [warning('rbf', 'info')]): PsbtReviewReply {
  return {
    review: {
      summary: {
        version: 0,
        txVersion: 2,
        txid: 'ab'.repeat(32),
        txidFinal: true,
        inputCount: 1,
        outputCount: 3,
        changeOutputs: 1,
        opReturnOutputs: 0,
        externalDestinations: 1,
        inputTotalSats: '100000',
        outputTotalSats: '99000',
        sentSats: '60000',
        changeSats: '39000',
        burnedSats: '0',
        feeSats: '1000',
        vsize: 141,
        weight: 561,
        vsizeExact: false,
        feeRate: '7.09',
        feePercent: '1.67',
        locktime: { value: 0, kind: 'none', enforced: true },
        rbf: true,
        finalized: false,
        signaturesComplete: false,
      },
      inputs: [
        {
          index: 0,
          txid: 'cd'.repeat(32),
          vout: 0,
          outpoint: `${'cd'.repeat(32)}:0`,
          sequence: 0xfffffffd,
          address: 'bcrt1qme',
          amountSats: '100000',
          spendType: 'p2wpkh',
          watched: true,
          utxo: 'both',
          sighash: null,
          signatureSighashes: [],
          signatures: { present: 0, required: 1, total: 1 },
          finalized: false,
          label: null,
          paths: null,
        },
      ],
      outputs: [
        { index: 0, address: 'bcrt1qthem', amountSats: '30000', scriptType: 'p2wpkh', scriptHex: '0014', kind: 'external', changeReason: null, used: false, dustThresholdSats: '294', dust: false, opReturn: null, label: null },
        { index: 1, address: 'bcrt1qthem', amountSats: '30000', scriptType: 'p2wpkh', scriptHex: '0014', kind: 'external', changeReason: null, used: false, dustThresholdSats: '294', dust: false, opReturn: null, label: null },
        { index: 2, address: 'bcrt1qme', amountSats: '39000', scriptType: 'p2wpkh', scriptHex: '0014', kind: 'change', changeReason: 'watched', used: false, dustThresholdSats: '294', dust: false, opReturn: null, label: null },
      ],
      warnings,
    },
    reviewKey: 'ef'.repeat(32),
    coreJson: '{"tx":{"txid":"ab"},"fee":0.00001000}',
    coreJsonChars: 37,
    coreError: null,
    base64: PSBT_B64,
    bytes: PSBT_BYTES.length,
    version: 0,
    encoding: 'base64',
    context: { chain: 'regtest', chainSource: 'watched-addresses', watchedAddresses: 2, tipHeight: null, tipSource: null, snapshotId: null, snapshotTakenAt: null, offline: true, nodeCoreVersion: null },
    ...over,
  };
}

const notAvailable: PsbtCrosscheckReply = {
  agrees: false,
  nodeAvailable: false,
  reason: 'Spyglass is not connected to a node, so only the offline decode is available.',
  node: null,
  asked: null,
  differences: [],
  truncated: false,
  offlineError: null,
  nodeError: null,
};

describe('helpers', () => {
  it('recognises a binary PSBT by its magic bytes', () => {
    expect(isBinaryPsbt(PSBT_BYTES)).toBe(true);
    expect(isBinaryPsbt(new TextEncoder().encode('cHNidP8B'))).toBe(false);
    expect(isBinaryPsbt(new TextEncoder().encode('70736274ff'))).toBe(false);
    expect(isBinaryPsbt(Uint8Array.of(0x70, 0x73, 0x62, 0x74))).toBe(false);
    expect(isBinaryPsbt(Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xfe))).toBe(false);
  });

  it('base64 both ways equals the reference, for every length around the chunk size and for 3 MB', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 0x6000 - 1, 0x6000, 0x6000 + 1, 0x6000 * 2 + 2]) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 131 + 7) & 0xff);
      const s = bytesToBase64(b);
      expect(s).toBe(refBase64(b));
      expect(toHex(base64ToBytes(s))).toBe(toHex(b));
    }
    const big = Uint8Array.from({ length: 3_000_001 }, (_, i) => (i * 7919) & 0xff);
    expect(bytesToBase64(big)).toBe(refBase64(big));
  });

  it('the renderer reads a binary .txn as bytes and sends it as hex; a binary PSBT as base64; garbage is refused naming both', () => {
    expect(fileToPsbtText(SIGNED_TXN, 'payment.txn')).toEqual({ ok: true, text: toHex(SIGNED_TXN), binary: true });
    expect(fileToPsbtText(PSBT_BYTES, 'a.psbt')).toEqual({ ok: true, text: PSBT_B64, binary: true });
    const hexFile = new TextEncoder().encode(toHex(SIGNED_TXN) + '\n');
    expect(fileToPsbtText(hexFile, 'payment-hex.txn')).toEqual({ ok: true, text: toHex(SIGNED_TXN) + '\n', binary: false });
    const bad = fileToPsbtText(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), 'photo.png');
    expect(bad.ok === false && bad.error.message).toMatch(/^“photo\.png” is not a PSBT or a signed transaction: .*starts with 89 50 4e 47 0d/);
  });
  it('file bytes to text: binary → base64, text kept (BOM dropped), garbage refused with the magic bytes named', () => {
    expect(fileToPsbtText(PSBT_BYTES, 'a.psbt')).toEqual({ ok: true, text: PSBT_B64, binary: true });
    expect(fileToPsbtText(new TextEncoder().encode(`\ufeff${PSBT_B64}\n`), 'a.txt')).toEqual({ ok: true, text: `${PSBT_B64}\n`, binary: false });
    const hex = toHex(PSBT_BYTES);
    expect(fileToPsbtText(new TextEncoder().encode(hex), 'a.hex')).toEqual({ ok: true, text: hex, binary: false });
    const bad = fileToPsbtText(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), 'photo.png');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('input.invalid');
      expect(bad.error.message).toContain('“photo.png” is not a PSBT');
      expect(bad.error.message).toContain('70 73 62 74 ff');
      expect(bad.error.message).toContain('89 50 4e 47 0d');
    }
  });

  it('indentJson adds whitespace only: Core’s numbers and strings stay as written', () => {
    const core = '{"tx":{"vin":[],"vout":[{"value":0.00100000,"n":0,"s":"a\\"]},[{"}],"locktime":0},"unknown":{},"fee":0.00001000}';
    const pretty = indentJson(core);
    expect(JSON.parse(pretty)).toEqual(JSON.parse(core));
    expect(pretty.replace(/\n */g, '').replaceAll('": ', '":')).toBe(core);
    expect(pretty).toContain('"value": 0.00100000');
    expect(pretty).toContain('"fee": 0.00001000');
    expect(pretty).toContain('"vin": []');
    expect(pretty).toContain('"unknown": {}');
    expect(pretty).toContain('"s": "a\\"]},[{"');
    expect(pretty.split('\n')[1]).toBe('  "tx": {');
  });

  it('warnings sorted by severity, stable within one; titles for every code', () => {
    const ws = [warning('rbf', 'info'), warning('dust-output', 'warning', { outputs: [1] }), warning('fee-rate-high', 'danger'), warning('dust-output', 'warning', { outputs: [0] })];
    expect(sortWarnings(ws).map((w) => `${w.severity}:${w.code}:${w.outputs.join()}`)).toEqual(['danger:fee-rate-high:', 'warning:dust-output:1', 'warning:dust-output:0', 'info:rbf:']);
    for (const c of PSBT_WARNING_CODES) expect(WARNING_TITLES[c], c).toBeTruthy();
  });

  it('external destinations, export names, sizes', () => {
    expect(externalDestinations(reply().review)).toBe(1);
    expect(exportStem({ kind: 'file', name: 'payroll.psbt', size: 10, binary: true }, 'ab'.repeat(32))).toBe('payroll');
    expect(exportStem({ kind: 'drop', name: 'x.psbt.txt', size: 10, binary: false }, 'ab'.repeat(32))).toBe('x');
    expect(exportStem({ kind: 'paste', chars: 10 }, 'ab'.repeat(32))).toBe('spyglass-abababababab');
    expect(exportStem(null, 'cd'.repeat(32))).toBe('spyglass-cdcdcdcdcdcd');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(576)).toBe('576 bytes');
    expect(formatBytes(10_250_000)).toBe('10.3 MB');
  });
});

describe('usePsbtStore: load', () => {
  it('decodes the pasted text: the reply, warnings most severe first, counts, flagged rows', async () => {
    const ws = [warning('rbf', 'info', { inputs: [0] }), warning('output-to-used-address', 'warning', { outputs: [2] }), warning('segwit-amount-mismatch', 'danger', { inputs: [0] })];
    api.handle('psbt:review', reply({}, ws));
    const s = usePsbtStore();
    s.input = `  ${PSBT_B64}\n`;
    expect(await s.decodeInput()).toBe(true);
    expect(api.calls).toEqual([{ channel: 'psbt:review', request: { psbt: `  ${PSBT_B64}\n`, encoding: 'auto' } }]);
    expect(s.reply?.base64).toBe(PSBT_B64);
    expect(s.error).toBeNull();
    expect(s.loading).toBe(false);
    expect(s.source).toEqual({ kind: 'paste', chars: PSBT_B64.length + 3 });
    expect(s.warnings.map((w) => w.severity)).toEqual(['danger', 'warning', 'info']);
    expect(s.counts).toEqual({ danger: 1, warning: 1, info: 1 });
    expect(s.flagged.inputs.get(0)).toBe('danger');
    expect(s.flagged.outputs.get(2)).toBe('warning');
    expect(toHex(s.bytes()!)).toBe(toHex(PSBT_BYTES));
  });

  it('error state: Core’s message and code from main; the previous review is dropped', async () => {
    api.handle('psbt:review', reply());
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(s.reply).not.toBeNull();
    api.fail('psbt:review', { code: 'input.invalid', message: 'TX decode failed Invalid PSBT magic bytes: iostream error', detail: { coreCode: -22, field: 'psbt' } });
    s.input = 'SGVsbG8sIHdvcmxkIQ==';
    expect(await s.decodeInput()).toBe(false);
    expect(s.reply).toBeNull();
    expect(s.error).toEqual({ code: 'input.invalid', message: 'TX decode failed Invalid PSBT magic bytes: iostream error', detail: { coreCode: -22, field: 'psbt' } });
    expect(s.loading).toBe(false);
  });

  it('empty text and text over the size cap never reach main', async () => {
    const s = usePsbtStore();
    s.input = '   \n';
    expect(await s.decodeInput()).toBe(false);
    expect(s.error?.message).toContain('Paste a PSBT');
    expect(await s.decodeText('A'.repeat(MAX_PSBT_TEXT + 1), { kind: 'paste', chars: MAX_PSBT_TEXT + 1 })).toBe(false);
    expect(s.error).toMatchObject({ code: 'input.invalid', detail: { limit: MAX_PSBT_TEXT } });
    expect(s.error?.message).toBe('The PSBT text is 20.0 MB, above the 20.0 MB Spyglass accepts. Nothing was sent for decoding.');
    expect(api.calls).toEqual([]);
  });

  it('a binary .psbt file is sent as base64; a text file as its text', async () => {
    api.handle('psbt:review', reply());
    const s = usePsbtStore();
    expect(await s.loadFile(new File([PSBT_BYTES], 'pay.psbt'), 'file')).toBe(true);
    expect(api.calls[0]).toEqual({ channel: 'psbt:review', request: { psbt: PSBT_B64, encoding: 'auto' } });
    expect(s.source).toEqual({ kind: 'file', name: 'pay.psbt', size: PSBT_BYTES.length, binary: true });
    const hex = toHex(PSBT_BYTES);
    expect(await s.loadFile(new File([`${hex}\n`], 'pay.hex'), 'drop')).toBe(true);
    expect(api.calls[1]).toEqual({ channel: 'psbt:review', request: { psbt: `${hex}\n`, encoding: 'auto' } });
    expect(s.source).toEqual({ kind: 'drop', name: 'pay.hex', size: hex.length + 1, binary: false });
  });

  it('a file over the cap is not read; a binary file that is not a PSBT is refused in the renderer', async () => {
    const s = usePsbtStore();
    const big = { name: 'huge.psbt', size: MAX_PSBT_FILE + 1, arrayBuffer: () => Promise.reject(new Error('must not be read')) } as unknown as File;
    expect(await s.loadFile(big)).toBe(false);
    expect(s.error?.message).toBe('“huge.psbt” is 20.0 MB, above the 20.0 MB Spyglass reads. Nothing was sent for decoding.');
    expect(await s.loadFile(new File([Uint8Array.of(0, 1, 2, 3, 4, 5)], 'zeros.bin'))).toBe(false);
    expect(s.error?.message).toContain('“zeros.bin” is not a PSBT');
    expect(api.calls).toEqual([]);
  });

  it('a later load wins over a slower earlier one', async () => {
    let release: (() => void) | null = null;
    const first = reply({ base64: 'first' });
    const second = reply({ base64: 'second' });
    api.handle('psbt:review', (req) => {
      if (req.psbt === 'slow') return new Promise((resolve) => (release = () => resolve({ ok: true, value: first })));
      return { ok: true, value: second };
    });
    const s = usePsbtStore();
    const a = s.decodeText('slow', { kind: 'paste', chars: 4 });
    await s.decodeText('fast', { kind: 'paste', chars: 4 });
    release!();
    expect(await a).toBe(false);
    expect(s.reply?.base64).toBe('second');
    expect(s.loading).toBe(false);
  });

  it('clear forgets everything', async () => {
    api.handle('psbt:review', reply());
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    s.clear();
    expect([s.reply, s.error, s.source, s.crosscheck, s.input]).toEqual([null, null, null, null, '']);
  });
});

describe('usePsbtStore: cross-check', () => {
  async function loaded(): Promise<ReturnType<typeof usePsbtStore>> {
    api.handle('psbt:review', reply());
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    return s;
  }

  it('sends main’s base64 of the loaded PSBT; nothing to do before a load', async () => {
    const s = usePsbtStore();
    expect(await s.runCrosscheck()).toBeNull();
    expect(api.calls).toEqual([]);
    await loaded();
    api.handle('psbt:crosscheck', notAvailable);
    await s.runCrosscheck();
    expect(api.calls.at(-1)).toEqual({ channel: 'psbt:crosscheck', request: { psbt: PSBT_B64, encoding: 'base64' } });
  });

  it('offline: the node is not available, with main’s reason', async () => {
    const s = await loaded();
    api.handle('psbt:crosscheck', notAvailable);
    const r = await s.runCrosscheck();
    expect(r).toEqual(notAvailable);
    expect(s.crosscheck).toMatchObject({ nodeAvailable: false, agrees: false });
    expect(s.crosschecking).toBe(false);
  });

  it('agrees, then differs: the differences are kept as main gave them', async () => {
    const s = await loaded();
    api.handle('psbt:crosscheck', { ...notAvailable, nodeAvailable: true, agrees: true, reason: null, node: '/Satoshi:30.0.0/' });
    expect((await s.runCrosscheck())?.agrees).toBe(true);
    const differences = [{ path: 'fee', offline: '0.00001000', node: '0.00002000' }];
    api.handle('psbt:crosscheck', { ...notAvailable, nodeAvailable: true, reason: null, node: '/Satoshi:30.0.0/', differences, truncated: false });
    await s.runCrosscheck();
    expect(s.crosscheck).toMatchObject({ agrees: false, nodeAvailable: true, differences });
  });

  it('a failed call is an error, not a verdict; a new load clears the result', async () => {
    const s = await loaded();
    api.fail('psbt:crosscheck', { code: 'internal', message: 'Spyglass did not answer' });
    expect(await s.runCrosscheck()).toBeNull();
    expect(s.crosscheck).toBeNull();
    expect(s.crosscheckError?.message).toBe('Spyglass did not answer');
    api.handle('psbt:crosscheck', notAvailable);
    await s.runCrosscheck();
    expect(s.crosscheckError).toBeNull();
    await s.decodeInput();
    expect(s.crosscheck).toBeNull();
  });
});

describe('usePsbtStore: version conversion', () => {
  it('converts through main and reviews the result in place; back to the loaded version is no conversion', async () => {
    api.handle('psbt:review', (req) => ({ ok: true, value: reply({ base64: req.psbt, version: req.psbt === 'V2' ? 2 : 0 }) }));
    api.handle('psbt:convert', (req) => ({ ok: true, value: { base64: req.to === 2 ? 'V2' : PSBT_B64, bytes: 10, version: req.to, notes: [] } }));
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(await s.convertTo(0)).toBe(false); // already version 0: nothing asked
    expect(await s.convertTo(2)).toBe(true);
    expect(api.calls.filter((c) => c.channel === 'psbt:convert')).toEqual([{ channel: 'psbt:convert', request: { psbt: PSBT_B64, to: 2 } }]);
    expect(s.reply?.version).toBe(2);
    expect(s.reply?.base64).toBe('V2');
    expect(s.converted).toEqual({ from: 0, to: 2, notes: [] });
    expect(await s.convertTo(0)).toBe(true);
    expect(s.converted).toBeNull();
    expect(s.reply?.version).toBe(0);
  });

  it('a conversion main refuses is kept for a toast; the review stays', async () => {
    api.handle('psbt:review', reply({ version: 2 }));
    api.fail('psbt:convert', { code: 'input.invalid', message: 'Cannot convert to PSBT version 0 : input #0 requires a time-based locktime only …' });
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(await s.convertTo(0)).toBe(false);
    expect(s.actionError?.message).toContain('Cannot convert');
    expect(s.reply?.version).toBe(2);
    expect(s.converted).toBeNull();
  });
});

describe('usePsbtStore: pages of rows', () => {
  const input = (index: number): PsbtInputView => ({ ...(reply().review.inputs[0] as PsbtInputView), index });
  const big = (): PsbtReviewReply => {
    const r = reply();
    return { ...r, review: { ...r.review, summary: { ...r.review.summary, inputCount: 12_000 }, inputs: Array.from({ length: 200 }, (_, i) => input(i)) } };
  };

  it('the reply brings the first page; loadRows asks main for the next ones, by pages of at most REVIEW_PAGE_MAX', async () => {
    api.handle('psbt:review', big());
    api.handle('psbt:review-page', (req: Request<'psbt:review-page'>) => ({ ok: true, value: { side: 'inputs', from: req.from, total: 12_000, inputs: Array.from({ length: req.count }, (_, i) => input(req.from + i)), outputs: [] } }));
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(s.rows.inputs).toHaveLength(200);
    expect(await s.loadRows('inputs', 11_000)).toBe(true);
    expect(s.rows.inputs.map((i) => i.index)).toEqual([...Array(11_000).keys()]);
    const pages = api.calls.filter((c) => c.channel === 'psbt:review-page').map((c) => c.request);
    expect(pages).toEqual([
      { key: 'ef'.repeat(32), encoding: 'auto', side: 'inputs', from: 200, count: REVIEW_PAGE_MAX },
      { key: 'ef'.repeat(32), encoding: 'auto', side: 'inputs', from: 200 + REVIEW_PAGE_MAX, count: REVIEW_PAGE_MAX },
      { key: 'ef'.repeat(32), encoding: 'auto', side: 'inputs', from: 200 + 2 * REVIEW_PAGE_MAX, count: 11_000 - 200 - 2 * REVIEW_PAGE_MAX },
    ]);
    expect(s.rowsLoading.inputs).toBe(false);
    // Past the total: only what there is.
    expect(await s.loadRows('inputs', 50_000)).toBe(true);
    expect(s.rows.inputs).toHaveLength(12_000);
  });

  it('when the worker no longer holds the review, the page is asked again with the text reviewed', async () => {
    api.handle('psbt:review', big());
    api.handle('psbt:review-page', (req: Request<'psbt:review-page'>) =>
      req.psbt === undefined
        ? { ok: false, error: { code: 'input.invalid', message: 'This review is no longer held; review the PSBT again.', detail: { field: 'key' } } }
        : { ok: true, value: { side: 'inputs', from: req.from, total: 12_000, inputs: Array.from({ length: req.count }, (_, i) => input(req.from + i)), outputs: [] } },
    );
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(await s.loadRows('inputs', 300)).toBe(true);
    expect(s.rows.inputs).toHaveLength(300);
    expect(api.calls.at(-1)).toEqual({ channel: 'psbt:review-page', request: { key: 'ef'.repeat(32), encoding: 'auto', side: 'inputs', from: 200, count: 100, psbt: PSBT_B64 } });
  });

  it('a failed page is kept for a toast; the rows loaded stay', async () => {
    api.handle('psbt:review', big());
    api.fail('psbt:review-page', { code: 'internal', message: 'worker gone' });
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(await s.loadRows('inputs', 300)).toBe(false);
    expect(s.actionError?.message).toBe('worker gone');
    expect(s.rows.inputs).toHaveLength(200);
    expect(s.rowsLoading.inputs).toBe(false);
  });
});

describe('usePsbtStore: Core’s JSON too long for the reply', () => {
  it('is asked of main by the review key; with the text when the worker no longer holds it', async () => {
    api.handle('psbt:review', reply({ coreJson: null, coreJsonChars: 58_000_000 }));
    let held = true;
    api.handle('psbt:review-core-json', (req: Request<'psbt:review-core-json'>) =>
      held || req.psbt === undefined
        ? held
          ? { ok: true, value: { json: '{"big":1}' } }
          : { ok: false, error: { code: 'input.invalid', message: 'This review is no longer held; review the PSBT again.', detail: { field: 'key' } } }
        : { ok: true, value: { json: '{"again":1}' } },
    );
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(await s.coreJson()).toBe('{"big":1}');
    expect(api.calls.at(-1)).toEqual({ channel: 'psbt:review-core-json', request: { key: 'ef'.repeat(32), encoding: 'auto' } });
    held = false;
    expect(await s.coreJson()).toBe('{"again":1}');
    expect(api.calls.at(-1)).toEqual({ channel: 'psbt:review-core-json', request: { key: 'ef'.repeat(32), encoding: 'auto', psbt: PSBT_B64 } });
  });

  it('in the reply: no request', async () => {
    api.handle('psbt:review', reply());
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(await s.coreJson()).toBe('{"tx":{"txid":"ab"},"fee":0.00001000}');
    expect(api.calls.map((c) => c.channel)).toEqual(['psbt:review']);
  });
});

describe('usePsbtStore: labels', () => {
  it('an output label is saved as an addr label and shown at once; a failure is kept for a toast', async () => {
    api.handle('psbt:review', reply());
    api.handle('labels:set', { removed: false });
    const s = usePsbtStore();
    s.input = PSBT_B64;
    await s.decodeInput();
    expect(await s.setOutputLabel('bcrt1qme', '  Change pot ')).toBe(true);
    expect(api.calls.at(-1)).toEqual({ channel: 'labels:set', request: { type: 'addr', ref: 'bcrt1qme', label: 'Change pot' } });
    expect(s.reply?.review.outputs[2]?.label).toBe('Change pot');
    expect(s.reply?.review.outputs[0]?.label).toBeNull();
    api.fail('labels:set', { code: 'profile.not_found', message: 'No active profile' });
    expect(await s.setOutputLabel('bcrt1qme', '')).toBe(false);
    expect(s.actionError?.code).toBe('profile.not_found');
    expect(s.reply?.review.outputs[2]?.label).toBe('Change pot');
  });
});
