/**
 * PSBT review (issue 4): `psbt:review` through the app's service on every recorded decodepsbt case
 * (Core's JSON text equal to the recording, same key order, or the same error), and crafted PSBTs
 * that raise each warning, with its severity and the numbers in its message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { coreFileGroup } from '../fixtures';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { openDatabase, type Database } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { WatchRepository } from '../../electron/main/store/watch';
import type { IpcResult } from '../../shared/errors';
import type { PsbtReviewReply } from '../../shared/ipc/contract';
import { encodeDestination } from '../../shared/bitcoin/address';
import { REGTEST } from '../../shared/bitcoin/networks';
import { decodeBase64Core } from '../../shared/bitcoin/psbt';
import {
  dustThreshold,
  parsePsbtForReview,
  psbtTextToBytes,
  ratio2,
  reviewPsbt,
  sighashName,
  type PsbtReview,
  type PsbtWarning,
  type ReviewContext,
} from '../../shared/bitcoin/psbt-review';
import { parseTx, serializeTx, type Tx } from '../../shared/bitcoin/tx';

interface RpcBody {
  result: unknown;
  error: { code: number; message: string } | null;
}

// The app's review decodes as current Core does (the v32 line): its recordings of the same requests.
const cases = coreFileGroup('bitcoin-core-v31.99-stateless.jsonl', 'decodepsbt');
const paramOf = (name: string): string => {
  const rec = cases.find((r) => r.name === name);
  if (!rec) throw new Error(`no recording ${name}`);
  return (JSON.parse(rec.request.body) as { params: string[] }).params[0]!;
};

// The wallet of the recordings: the watched input address and the change address of "funded bech32 input".
const WATCHED_INPUT = 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef';
const WATCHED_CHANGE = 'bcrt1qwqle5hlhu9zjeu4g8nn6wnq75mqsec900e56jr';

let app: SpyglassApp;
let dir: string;
let db: Database;

async function dispatch(channel: string, payload: unknown): Promise<IpcResult<unknown>> {
  return app.dispatch(channel, payload);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spyglass-psbt-review-'));
  app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null });
  // A profile that never connected: the review works from the store alone. The chain comes from the watched addresses.
  db = openDatabase(app.dbFile);
  const profiles = new ProfileRepository(db);
  const repo = new WatchRepository(db);
  const p = profiles.create(
    { name: 'Air-gapped', nodeUrl: 'http://127.0.0.1:9', auth: 'password', rpcUser: 'u', cookiePath: '', wallet: '', indexUrl: 'http://127.0.0.1:9' },
    { passwordStorage: 'none' },
  );
  profiles.setActiveId(p.id);
  repo.addAddresses(p.id, [WATCHED_INPUT, WATCHED_CHANGE], 'user');
  repo.setLabel(p.id, { type: 'addr', ref: WATCHED_CHANGE, label: 'change pot' });
});

afterAll(async () => {
  db?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('psbt:review: every recorded decodepsbt case through the app', () => {
  it('has the recorded cases', () => {
    expect(cases.length).toBe(66);
  });

  for (const rec of cases) {
    const param = (JSON.parse(rec.request.body) as { params: unknown[] }).params[0];
    const body = rec.response.body as RpcBody;
    if (typeof param !== 'string') {
      it.skip(`${rec.name} (RPC layer: parameter type check)`, () => {});
      continue;
    }
    it(rec.name, async () => {
      const r = await dispatch('psbt:review', { psbt: param });
      if (body.error) {
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.error.code).toBe('input.invalid');
        // Core's text as the message, or Spyglass's words first with Core's exact text as the detail (#28).
        expect(r.error.detail?.core ?? r.error.message).toBe(body.error.message);
        expect(r.error.detail?.coreCode).toBe(body.error.code);
        return;
      }
      expect(r.ok, r.ok ? '' : r.error.message).toBe(true);
      if (!r.ok) return;
      const v = r.value as PsbtReviewReply;
      expect(v.coreError).toBeNull();
      // Same values in the same key order as the node wrote.
      expect(JSON.stringify(JSON.parse(v.coreJson!))).toBe(JSON.stringify(body.result));
      expect(v.base64).toBe(param);
      expect(v.bytes).toBe(decodeBase64Core(param)!.length);
      expect(v.version).toBe(0);
      expect(v.context).toMatchObject({ chain: 'regtest', chainSource: 'watched-addresses', watchedAddresses: 2, offline: true });
      const result = body.result as { fee?: number; tx: { vin: unknown[]; vout: unknown[] } };
      expect(v.review.inputs.length).toBe(result.tx.vin.length);
      expect(v.review.outputs.length).toBe(result.tx.vout.length);
      // The review's fee is Core's fee.
      if (result.fee === undefined) expect(v.review.summary.feeSats).toBeNull();
      else expect(Number(v.review.summary.feeSats) / 1e8).toBe(result.fee);
      // Unknown and proprietary fields: the review counts what Core lists.
      const full = body.result as { unknown: object; proprietary: unknown[]; inputs: Array<{ unknown?: object; proprietary?: unknown[] }>; outputs: Array<{ unknown?: object; proprietary?: unknown[] }> };
      const maps = [full, ...full.inputs, ...full.outputs];
      const unknown = maps.reduce((a, m) => a + Object.keys(m.unknown ?? {}).length, 0);
      const proprietary = maps.reduce((a, m) => a + (m.proprietary ?? []).length, 0);
      const uw = v.review.warnings.find((w) => w.code === 'unknown-fields');
      const pw = v.review.warnings.find((w) => w.code === 'proprietary-fields');
      if (unknown === 0) expect(uw).toBeUndefined();
      else expect(uw?.message).toContain(`carries ${unknown} unknown field`);
      if (proprietary === 0) expect(pw).toBeUndefined();
      else expect(pw?.message).toContain(`carries ${proprietary} proprietary field`);
    });
  }

  it('the same PSBTs pasted as hex give the same JSON and the same base64', async () => {
    for (const rec of cases) {
      const param = (JSON.parse(rec.request.body) as { params: unknown[] }).params[0];
      if (typeof param !== 'string' || (rec.response.body as RpcBody).error) continue;
      const hexText = Buffer.from(param, 'base64').toString('hex');
      const a = (await dispatch('psbt:review', { psbt: param })) as { ok: true; value: PsbtReviewReply };
      const b = (await dispatch('psbt:review', { psbt: `\n  ${hexText.toUpperCase()}\r\n`, encoding: 'auto' })) as { ok: true; value: PsbtReviewReply };
      expect(b.ok).toBe(true);
      expect(b.value.encoding).toBe('hex');
      expect(b.value.coreJson).toBe(a.value.coreJson);
      expect(b.value.base64).toBe(param);
    }
  });

  it('a Core-funded PSBT: the watched input, change back to a watched address (labelled), the external payment, fee', async () => {
    const r = (await dispatch('psbt:review', { psbt: paramOf('funded bech32 input') })) as { ok: true; value: PsbtReviewReply };
    const v = r.value.review;
    expect(v.inputs[0]).toMatchObject({ address: WATCHED_INPUT, amountSats: '125000000', watched: true, utxo: 'both', spendType: 'p2wpkh', finalized: false });
    expect(v.inputs[0]!.signatures).toEqual({ present: 0, required: 1, total: 1 });
    expect(v.outputs[0]).toMatchObject({ address: WATCHED_CHANGE, kind: 'change', changeReason: 'watched', amountSats: '94999235', label: 'change pot' });
    expect(v.outputs[1]).toMatchObject({ kind: 'external', amountSats: '30000000', label: null });
    expect(v.summary).toMatchObject({ sentSats: '30000000', changeSats: '94999235', feeSats: '765', vsize: 153, vsizeExact: false, feeRate: '5.00', feePercent: '0.0026' });
    expect(v.warnings.map((w) => w.code)).toEqual(['rbf']);
  });

  it('errors: bad hex, the size cap, an empty request', async () => {
    const odd = await dispatch('psbt:review', { psbt: '70736274ff0', encoding: 'hex' });
    expect(!odd.ok && odd.error).toMatchObject({ code: 'input.invalid', message: 'The hex text has an odd number of digits (11).' });
    const bad = await dispatch('psbt:review', { psbt: '70736274zz', encoding: 'hex' });
    expect(!bad.ok && bad.error.message).toBe('The hex text has a character that is not a hex digit at position 9.');
    const big = await dispatch('psbt:review', { psbt: 'A'.repeat(20 * 1024 * 1024 + 4) });
    expect(!big.ok && big.error.message).toBe('Invalid request for psbt:review: psbt: This text is more than 20 MB; PSBTs are limited to 20 MB.');
    const none = await dispatch('psbt:review', {});
    expect(!none.ok && none.error.code).toBe('input.invalid');
    const cross = await dispatch('psbt:crosscheck', { psbt: paramOf('funded bech32 input') });
    expect(cross.ok && cross.value).toMatchObject({ agrees: false, nodeAvailable: false, differences: [] });
  });
});

// ---------------------------------------------------------------------------------------------
// Crafted PSBTs
// ---------------------------------------------------------------------------------------------

const h = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const unhex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'));
const cs = (n: number): string => (n < 253 ? n.toString(16).padStart(2, '0') : 'fd' + Buffer.from([n & 0xff, n >> 8]).toString('hex'));
const kv = (key: string, value: string): string => cs(key.length / 2) + key + cs(value.length / 2) + value;
const u32 = (n: number): string => Buffer.from(Uint32Array.of(n).buffer).toString('hex');
const i64 = (n: bigint): string => {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(n);
  return b.toString('hex');
};

function wpkh(seed: number): { address: string; script: Uint8Array } {
  const program = new Uint8Array(20).fill(seed);
  const address = encodeDestination({ type: 'witness_v0_keyhash', program }, REGTEST);
  return { address, script: Uint8Array.from([0x00, 0x14, ...program]) };
}
function pkh(seed: number): { address: string; script: Uint8Array } {
  const hash = new Uint8Array(20).fill(seed);
  return { address: encodeDestination({ type: 'pkhash', hash }, REGTEST), script: Uint8Array.from([0x76, 0xa9, 0x14, ...hash, 0x88, 0xac]) };
}
function tr(seed: number): { address: string; script: Uint8Array } {
  const program = new Uint8Array(32).fill(seed);
  return { address: encodeDestination({ type: 'witness_v1_taproot', program }, REGTEST), script: Uint8Array.from([0x51, 0x20, ...program]) };
}

const ME = wpkh(0x11); // watched
const ME2 = wpkh(0x12); // watched, used before
const THEM = wpkh(0x22);
const STRANGER = wpkh(0x33);

/** A previous transaction paying `value` to `script` at output 0. */
function prevTx(value: bigint, script: Uint8Array, salt = 1): { tx: Tx; hex: string; txid: string } {
  const tx: Tx = { version: 2, locktime: 0, vin: [{ prevTxid: salt.toString(16).padStart(64, '0'), vout: 0, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }], vout: [{ value, script }] };
  const bytes = serializeTx(tx, { witness: false });
  return { tx, hex: h(bytes), txid: parseTx(bytes).txid };
}

interface Craft {
  inputs?: Array<{ txid: string; vout?: number; sequence?: number; fields: string[] }>;
  outputs?: Array<{ value: bigint; script: Uint8Array; fields?: string[] }>;
  locktime?: number;
  global?: string[];
}

/** A v0 PSBT: the unsigned tx from `c`, then the given key-value fields per map. */
function craft(c: Craft): string {
  const tx: Tx = {
    version: 2,
    locktime: c.locktime ?? 0,
    vin: (c.inputs ?? []).map((i) => ({ prevTxid: i.txid, vout: i.vout ?? 0, scriptSig: new Uint8Array(0), sequence: i.sequence ?? 0xfffffffd, witness: [] })),
    vout: (c.outputs ?? []).map((o) => ({ value: o.value, script: o.script })),
  };
  const utx = h(serializeTx(tx, { witness: false }));
  let s = '70736274ff' + kv('00', utx) + (c.global ?? []).join('') + '00';
  for (const i of c.inputs ?? []) s += i.fields.join('') + '00';
  for (const o of c.outputs ?? []) s += (o.fields ?? []).join('') + '00';
  return Buffer.from(s, 'hex').toString('base64');
}

const witnessUtxo = (value: bigint, script: Uint8Array): string => kv('01', i64(value) + cs(script.length) + h(script));
const nonWitnessUtxo = (hex: string): string => kv('00', hex);

const CTX: ReviewContext = { network: REGTEST, watched: new Set([ME.address, ME2.address]), usedAddresses: new Set([ME2.address]), tipHeight: 900, medianTime: 1_700_000_000 };

function review(b64: string, ctx: ReviewContext = CTX): PsbtReview {
  const p = parsePsbtForReview(decodeBase64Core(b64)!);
  if (!p.ok) throw new Error(p.message);
  return reviewPsbt(p.psbt, ctx);
}

function only(r: PsbtReview, code: PsbtWarning['code']): PsbtWarning {
  const ws = r.warnings.filter((w) => w.code === code);
  expect(ws.length, `${code} in ${r.warnings.map((w) => w.code).join(',')}`).toBe(1);
  return ws[0]!;
}

/** A plain spend of a watched 100000-sat P2WPKH coin: `outputs` decide the fee. */
function spend(outputs: Craft['outputs'], extra: Partial<Craft> & { inputFields?: string[]; sequence?: number; inputValue?: bigint } = {}): string {
  const value = extra.inputValue ?? 100_000n;
  const prev = prevTx(value, ME.script);
  return craft({
    ...extra,
    inputs: [{ txid: prev.txid, sequence: extra.sequence ?? 0xfffffffd, fields: [nonWitnessUtxo(prev.hex), witnessUtxo(value, ME.script), ...(extra.inputFields ?? [])] }],
    outputs,
  });
}

describe('reviewPsbt: a clean spend raises only the RBF note', () => {
  it('summary, inputs, outputs', () => {
    const r = review(spend([{ value: 60_000n, script: THEM.script }, { value: 39_000n, script: ME.script }]));
    expect(r.warnings.map((w) => `${w.code}:${w.severity}`)).toEqual(['rbf:info']);
    expect(r.summary).toMatchObject({ inputTotal: 100_000n, outputTotal: 99_000n, sent: 60_000n, change: 39_000n, fee: 1000n, vsize: 141, vsizeExact: false, rbf: true });
    expect(r.summary.feeRate).toBe(ratio2(1000n, 141n));
    expect(r.summary.feeRate).toBe('7.09');
    expect(r.summary.feePercent).toBe('1.67'); // 1000 / 60000
    expect(r.inputs[0]).toMatchObject({ address: ME.address, watched: true, utxo: 'both', amount: 100_000n, spendType: 'p2wpkh', sighash: null });
    expect(r.outputs.map((o) => o.kind)).toEqual(['external', 'change']);
  });
});

describe('reviewPsbt: each warning', () => {
  it('fee-unknown: an input without UTXO data', () => {
    const prev = prevTx(100_000n, ME.script);
    const r = review(craft({ inputs: [{ txid: prev.txid, fields: [] }], outputs: [{ value: 90_000n, script: THEM.script }] }));
    const w = only(r, 'fee-unknown');
    expect(w.severity).toBe('warning');
    expect(w.inputs).toEqual([0]);
    expect(w.message).toContain('input #0 has no UTXO data');
    expect(r.summary.fee).toBeNull();
    expect(r.summary.feeRate).toBeNull();
    expect(r.inputs[0]!.utxo).toBe('none');
  });

  it('non-witness-utxo-txid-mismatch: the previous transaction is not the one spent', () => {
    const prev = prevTx(100_000n, ME.script);
    const other = prevTx(100_000n, ME.script, 2);
    const r = review(craft({ inputs: [{ txid: prev.txid, fields: [nonWitnessUtxo(other.hex)] }], outputs: [{ value: 90_000n, script: THEM.script }] }));
    const w = only(r, 'non-witness-utxo-txid-mismatch');
    expect(w.severity).toBe('danger');
    expect(w.message).toContain(`spends ${prev.txid}:0`);
    expect(w.message).toContain(`is ${other.txid}`);
    expect(r.warnings[0]!.severity).toBe('danger');
    expect(r.summary.fee).toBeNull(); // the untrusted amount is not used
  });

  it('segwit-amount-mismatch: witness_utxo says less than the previous transaction (the segwit fee attack)', () => {
    const prev = prevTx(100_000n, ME.script);
    const r = review(
      craft({ inputs: [{ txid: prev.txid, fields: [nonWitnessUtxo(prev.hex), witnessUtxo(90_000n, ME.script)] }], outputs: [{ value: 89_000n, script: THEM.script }] }),
    );
    const w = only(r, 'segwit-amount-mismatch');
    expect(w.severity).toBe('danger');
    expect(w.message).toContain('witness_utxo says 90000 sats (0.00090000 BTC)');
    expect(w.message).toContain('holds 100000 sats (0.00100000 BTC)');
    expect(w.message).toContain('a difference of 10000 sats');
    expect(r.summary.fee).toBe(11_000n); // from the previous transaction, not from witness_utxo
  });

  it('fee-rate-high above 1000 sat/vB (danger); the threshold can be set', () => {
    const r = review(spend([{ value: 10_000n, script: ME.script }], { inputValue: 1_000_000n }));
    const w = only(r, 'fee-rate-high');
    expect(w.severity).toBe('danger');
    expect(r.summary).toMatchObject({ fee: 990_000n, vsize: 110, feeRate: '9000.00' });
    expect(w.message).toBe('The fee rate is 9000.00 sat/vB (a fee of 990000 sats (0.00990000 BTC) for an estimated 110 vB), above the limit of 1000 sat/vB.');
    // 90000 sats for 110 vB = 818.18 sat/vB: fine by default, too much with a limit of 800.
    const lower = spend([{ value: 10_000n, script: ME.script }]);
    expect(review(lower).warnings.some((x) => x.code === 'fee-rate-high')).toBe(false);
    const w800 = only(review(lower, { ...CTX, thresholds: { feeRateSatVb: 800 } }), 'fee-rate-high');
    expect(w800.message).toContain('818.18 sat/vB');
    expect(w800.message).toContain('limit of 800 sat/vB');
  });

  it('fee-percent-high: more than 5% of the amount sent', () => {
    const r = review(spend([{ value: 90_000n, script: THEM.script }]));
    const w = only(r, 'fee-percent-high');
    expect(w.severity).toBe('warning');
    expect(w.message).toBe('The fee of 10000 sats (0.00010000 BTC) is 11.11% of the 90000 sats (0.00090000 BTC) being sent, more than 5%.');
    expect(r.warnings.some((x) => x.code === 'fee-rate-high')).toBe(false); // 10000 / 110 vB = 90.91 sat/vB
  });

  it('sighash-nonstandard: NONE is danger, ALL|ANYONECANPAY a warning, ALL and DEFAULT nothing', () => {
    const none = review(spend([{ value: 90_000n, script: ME.script }], { inputFields: [kv('03', u32(2))] }));
    const w = only(none, 'sighash-nonstandard');
    expect(w.severity).toBe('danger');
    expect(w.message).toContain('uses sighash NONE instead of ALL');
    expect(none.inputs[0]!.sighash).toBe('NONE');
    const acp = review(spend([{ value: 90_000n, script: ME.script }], { inputFields: [kv('03', u32(0x81))] }));
    expect(only(acp, 'sighash-nonstandard')).toMatchObject({ severity: 'warning' });
    expect(only(acp, 'sighash-nonstandard').message).toContain('ALL|ANYONECANPAY');
    for (const t of [0, 1]) {
      const ok = review(spend([{ value: 90_000n, script: ME.script }], { inputFields: [kv('03', u32(t))] }));
      expect(ok.warnings.some((x) => x.code === 'sighash-nonstandard')).toBe(false);
    }
    // A real signature made with ALL|ANYONECANPAY (recorded from Core).
    const rec = review(paramOf('sighash ALL|ANYONECANPAY partial signature'));
    expect(only(rec, 'sighash-nonstandard').severity).toBe('warning');
    expect(rec.inputs[0]!.signatureSighashes).toEqual(['ALL|ANYONECANPAY']);
    expect(sighashName(0x83)).toBe('SINGLE|ANYONECANPAY');
    expect(sighashName(0x04)).toBe('0x04');
  });

  it('input-not-watched: a coin from an address outside the watched set', () => {
    const prev = prevTx(50_000n, STRANGER.script);
    const mine = prevTx(100_000n, ME.script, 3);
    const r = review(
      craft({
        inputs: [
          { txid: mine.txid, fields: [witnessUtxo(100_000n, ME.script)] },
          { txid: prev.txid, fields: [witnessUtxo(50_000n, STRANGER.script)] },
        ],
        outputs: [{ value: 149_000n, script: THEM.script }],
      }),
    );
    const w = only(r, 'input-not-watched');
    expect(w.severity).toBe('warning');
    expect(w.inputs).toEqual([1]);
    expect(w.message).toContain('1 of 2 inputs');
    expect(w.message).toContain(STRANGER.address);
    expect(r.inputs.map((i) => i.watched)).toEqual([true, false]);
  });

  it('output-to-used-address: change to an address that already received', () => {
    const r = review(spend([{ value: 60_000n, script: THEM.script }, { value: 39_000n, script: ME2.script }]));
    const w = only(r, 'output-to-used-address');
    expect(w).toMatchObject({ severity: 'warning', outputs: [1] });
    expect(w.message).toContain(`39000 sats (0.00039000 BTC) to ${ME2.address}`);
    expect(r.outputs[1]).toMatchObject({ kind: 'change', used: true });
  });

  it('dust-output: below Core\'s threshold for the script type (294 P2WPKH, 546 P2PKH, 330 P2TR)', () => {
    expect(dustThreshold(THEM.script)).toBe(294n);
    expect(dustThreshold(pkh(1).script)).toBe(546n);
    expect(dustThreshold(tr(1).script)).toBe(330n);
    expect(dustThreshold(unhex('6a0568656c6c6f'))).toBe(0n);
    const r = review(spend([{ value: 293n, script: THEM.script }, { value: 546n, script: pkh(5).script }, { value: 329n, script: tr(6).script }, { value: 98_000n, script: ME.script }]));
    const ws = r.warnings.filter((w) => w.code === 'dust-output');
    expect(ws.map((w) => [w.severity, w.outputs])).toEqual([
      ['warning', [0]],
      ['warning', [2]],
    ]);
    expect(ws[0]!.message).toContain('pays 293 sats');
    expect(ws[0]!.message).toContain('dust threshold of 294 sats for a p2wpkh output');
    expect(ws[1]!.message).toContain('dust threshold of 330 sats for a p2tr output');
    expect(r.outputs[1]!.dust).toBe(false); // 546 is not below 546
  });

  it('unknown-fields and proprietary-fields', () => {
    const prop = kv('fc' + '04' + h(new TextEncoder().encode('ACME')) + '00' + '01', 'beef');
    // (Global type 0x07 is unknown to every Core; a version 2 type such as 0x02 is not: current
    // Core refuses it in a version 0 PSBT.)
    const r = review(
      spend([{ value: 90_000n, script: ME.script, fields: [kv('f0aa', '01')] }], {
        global: [kv('0701', '02000000'), prop],
        inputFields: [kv('ee', '00')],
      }),
    );
    const u = only(r, 'unknown-fields');
    expect(u.severity).toBe('warning');
    expect(u.message).toContain('3 unknown fields');
    expect(u.message).toContain('global 0701');
    expect(u.message).toContain('input #0 ee');
    expect(u.message).toContain('output #0 f0aa');
    expect(u).toMatchObject({ inputs: [0], outputs: [0] });
    const p = only(r, 'proprietary-fields');
    expect(p.severity).toBe('info');
    expect(p.message).toContain('1 proprietary field');
  });

  it('locktime-future: a height above the tip, a time after the median time; not when the locktime is disabled', () => {
    const h1 = review(spend([{ value: 90_000n, script: ME.script }], { locktime: 1000 }));
    const w = only(h1, 'locktime-future');
    expect(w.severity).toBe('warning');
    expect(w.message).toContain('block 1000 but the chain tip is block 900');
    expect(w.message).toContain('another 100 blocks');
    expect(h1.summary.locktime).toEqual({ value: 1000, kind: 'height', enforced: true });
    expect(review(spend([{ value: 90_000n, script: ME.script }], { locktime: 900 })).warnings.some((x) => x.code === 'locktime-future')).toBe(false);
    const t = review(spend([{ value: 90_000n, script: ME.script }], { locktime: 1_700_086_400 }));
    expect(only(t, 'locktime-future').message).toContain('(1700086400), later than the median time of the last blocks, 2023-11-14 22:13:20 UTC (1700000000)');
    const final = review(spend([{ value: 90_000n, script: ME.script }], { locktime: 1000, sequence: 0xffffffff }));
    expect(final.warnings.some((x) => x.code === 'locktime-future')).toBe(false);
    expect(final.summary.locktime.enforced).toBe(false);
    // No tip known (offline, never refreshed): nothing to compare with.
    expect(review(spend([{ value: 90_000n, script: ME.script }], { locktime: 1000 }), { network: REGTEST, watched: CTX.watched }).warnings.some((x) => x.code === 'locktime-future')).toBe(false);
  });

  it('rbf: signalled or not, both as info', () => {
    const yes = only(review(spend([{ value: 90_000n, script: ME.script }])), 'rbf');
    expect(yes.severity).toBe('info');
    expect(yes.message).toContain('Replace-by-fee is signalled');
    expect(yes.message).toContain('0xfffffffd');
    const no = only(review(spend([{ value: 90_000n, script: ME.script }], { sequence: 0xfffffffe })), 'rbf');
    expect(no.severity).toBe('info');
    expect(no.message).toContain('not signalled');
  });

  it('fee-negative: outputs above inputs', () => {
    const r = review(spend([{ value: 100_001n, script: THEM.script }]));
    const w = only(r, 'fee-negative');
    expect(w.severity).toBe('danger');
    expect(w.message).toContain('(100001 sats (0.00100001 BTC))');
    expect(w.message).toContain('(100000 sats (0.00100000 BTC))');
    expect(r.summary.fee).toBe(-1n);
  });

  it('warnings come most severe first', () => {
    const prev = prevTx(1_000_000n, ME.script);
    const r = review(
      craft({
        inputs: [{ txid: prev.txid, fields: [nonWitnessUtxo(prev.hex), witnessUtxo(1n, ME.script), kv('03', u32(2))] }],
        outputs: [{ value: 100n, script: THEM.script }],
      }),
    );
    const sev = r.warnings.map((w) => w.severity);
    expect(sev).toEqual([...sev].sort((a, b) => ['danger', 'warning', 'info'].indexOf(a) - ['danger', 'warning', 'info'].indexOf(b)));
    expect(new Set(r.warnings.map((w) => w.code))).toEqual(new Set(['segwit-amount-mismatch', 'sighash-nonstandard', 'fee-rate-high', 'fee-percent-high', 'dust-output', 'rbf']));
  });
});

describe('reviewPsbt: outputs, change, signatures, sizes', () => {
  it('OP_RETURN payload as text when printable, hex otherwise; change by getaddressinfo ischange', () => {
    const text = h(new TextEncoder().encode('hello, wörld'));
    const r = review(
      spend([
        { value: 0n, script: unhex('6a' + cs(text.length / 2) + text) },
        { value: 0n, script: unhex('6a03000102') },
        { value: 89_000n, script: ME.script },
      ]),
      { ...CTX, changeHints: new Map([[ME.address, { ischange: true }]]) },
    );
    expect(r.outputs[0]).toMatchObject({ kind: 'op_return', scriptType: 'op_return', opReturn: { hex: text, text: 'hello, wörld' }, dust: false });
    expect(r.outputs[1]!.opReturn).toEqual({ hex: '000102', text: null });
    expect(r.outputs[2]).toMatchObject({ kind: 'change', changeReason: 'ischange' });
    expect(r.summary.sent).toBe(0n);
    expect(r.summary.feePercent).toBeNull(); // nothing leaves
  });

  it('signatures present vs required from the witness script (m-of-n), recorded from Core', () => {
    const ms = review(paramOf('funded multisig input'));
    expect(ms.inputs[0]).toMatchObject({ spendType: 'p2wsh 2-of-3', signatures: { present: 0, required: 2, total: 3 } });
    const v2 = review(paramOf('core vector valid 2'));
    expect(v2.inputs[0]).toMatchObject({ spendType: 'p2sh-p2wsh 2-of-2', signatures: { present: 1, required: 2, total: 2 } });
    expect(v2.summary.signaturesComplete).toBe(false);
    const signed = review(paramOf('signed bech32 not finalized'));
    expect(signed.inputs[0]).toMatchObject({ signatures: { present: 1, required: 1, total: 1 }, finalized: false });
    expect(signed.summary.signaturesComplete).toBe(true);
  });

  it('vsize: exact once finalized, and the estimate from a signed input equals it', () => {
    for (const type of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) {
      const fin = review(paramOf(`signed ${type} finalized`));
      expect(fin.summary.vsizeExact).toBe(true);
      expect(fin.summary.finalized).toBe(true);
      expect(fin.summary.txidFinal).toBe(true);
      expect(fin.inputs[0]!.finalized).toBe(true);
      // The final transaction built from the PSBT has exactly that vsize.
      const p = parsePsbtForReview(decodeBase64Core(paramOf(`signed ${type} finalized`))!);
      if (!p.ok) throw new Error(p.message);
      const tx: Tx = {
        version: p.psbt.txVersion,
        locktime: p.psbt.locktime,
        vin: p.psbt.inputs.map((i) => ({ prevTxid: i.prevTxid, vout: i.vout, sequence: i.sequence, scriptSig: i.finalScriptSig ?? new Uint8Array(0), witness: i.finalScriptWitness ?? [] })),
        vout: p.psbt.outputs.map((o) => ({ value: o.value, script: o.script })),
      };
      const parsed = parseTx(serializeTx(tx, { witness: true }));
      expect(fin.summary.vsize, type).toBe(parsed.vsize);
      expect(fin.summary.weight, type).toBe(parsed.weight);
      expect(fin.summary.txid, type).toBe(parsed.txid);
      const est = review(paramOf(`signed ${type} not finalized`));
      expect(est.summary.vsizeExact).toBe(false);
      expect(est.summary.vsize, type).toBe(parsed.vsize);
    }
  });

  it('ratio2 rounds half away from zero in integers', () => {
    expect(ratio2(1n, 3n)).toBe('0.33');
    expect(ratio2(2n, 3n)).toBe('0.67');
    expect(ratio2(1n, 200n)).toBe('0.01');
    expect(ratio2(-1n, 200n)).toBe('-0.01');
    expect(ratio2(-1n, 1000n)).toBe('0.00');
    expect(ratio2(123456n, 100n)).toBe('1234.56');
  });
});

describe('PSBT version 2 and PSBTs Core refuses', () => {
  it('v2 (BIP370) is reviewed and decoded as current Core does', async () => {
    const tx = new Transaction({ allowUnknownOutputs: true });
    tx.addInput({ txid: '11'.repeat(32), index: 1, witnessUtxo: { script: unhex(WATCHED_SCRIPT_HEX), amount: 100_000n }, sequence: 0xfffffffd });
    tx.addOutput({ script: unhex(WATCHED_SCRIPT_HEX), amount: 99_000n });
    const v2 = Buffer.from(tx.toPSBT(2)).toString('base64');
    const r = await dispatch('psbt:review', { psbt: v2 });
    expect(r.ok, r.ok ? '' : r.error.message).toBe(true);
    if (!r.ok) return;
    const v = r.value as PsbtReviewReply;
    expect(v.version).toBe(2);
    expect(v.coreError).toBeNull();
    expect(JSON.parse(v.coreJson!)).toMatchObject({ psbt_version: 2, tx_version: 2, input_count: 1, output_count: 1 });
    expect(v.review.summary).toMatchObject({ version: 2, feeSats: '1000', changeSats: '99000', sentSats: '0' });
    expect(v.review.inputs[0]).toMatchObject({ txid: '11'.repeat(32), vout: 1, watched: true, address: WATCHED_INPUT, sequence: 0xfffffffd });
  });

  it('a non_witness_utxo for another transaction: Core refuses it; the review shows why (danger)', async () => {
    const prev = prevTx(100_000n, unhex(WATCHED_SCRIPT_HEX));
    const other = prevTx(100_000n, unhex(WATCHED_SCRIPT_HEX), 9);
    const b64 = craft({ inputs: [{ txid: prev.txid, fields: [nonWitnessUtxo(other.hex)] }], outputs: [{ value: 90_000n, script: THEM.script }] });
    const r = (await dispatch('psbt:review', { psbt: b64 })) as { ok: true; value: PsbtReviewReply };
    expect(r.ok).toBe(true);
    expect(r.value.coreError?.message).toBe('TX decode failed Non-witness UTXO does not match outpoint hash: iostream error');
    expect(r.value.review.warnings[0]).toMatchObject({ code: 'non-witness-utxo-txid-mismatch', severity: 'danger', inputs: [0] });
  });

  it('psbtTextToBytes: auto picks hex only for hex text starting with the magic', () => {
    expect(psbtTextToBytes(' 70736274FF00 ')).toMatchObject({ ok: true, encoding: 'hex' });
    expect(psbtTextToBytes('cHNidP8A')).toMatchObject({ ok: true, encoding: 'base64' });
    expect(psbtTextToBytes('70736274', 'auto')).toMatchObject({ ok: true, encoding: 'base64' });
    expect(psbtTextToBytes('abc', 'base64')).toEqual({ ok: false, encoding: 'base64', message: 'TX decode failed invalid base64' });
  });
});

const WATCHED_SCRIPT_HEX = '0014f47a096feed2ddca37677a159321fc1b0313ab82';

describe('review: errors are data, and big PSBTs are quick', () => {
  it('never throws on mutated recorded PSBTs (fixed-seed fuzz)', () => {
    let seed = 4242;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const bases = cases
      .map((r) => (JSON.parse(r.request.body) as { params: unknown[] }).params[0])
      .filter((p): p is string => typeof p === 'string' && p.startsWith('cHNidP8'));
    let reviewed = 0;
    for (let it = 0; it < 3000; it++) {
      let out = Buffer.from(bases[rnd(bases.length)]!, 'base64');
      for (let j = 1 + rnd(3); j > 0; j--) {
        const op = rnd(3);
        const pos = rnd(out.length);
        if (op === 0) out[pos] = rnd(256);
        else if (op === 1) out = Buffer.concat([out.subarray(0, pos), out.subarray(pos + 1 + rnd(4))]);
        else out = Buffer.concat([out.subarray(0, pos), Buffer.from([rnd(256)]), out.subarray(pos)]);
      }
      const p = parsePsbtForReview(Uint8Array.from(out));
      if (!p.ok) {
        expect(typeof p.message).toBe('string');
        continue;
      }
      const r = reviewPsbt(p.psbt, CTX);
      expect(r.inputs.length).toBe(p.psbt.inputs.length);
      reviewed++;
    }
    expect(reviewed).toBeGreaterThan(100);
  });

  it('1000 inputs, each with its 10 kB previous transaction: parsed and reviewed in linear time (about 0.5 s of CPU; 5 s allowed)', () => {
    const inputs: NonNullable<Craft['inputs']> = [];
    const filler = Array.from({ length: 330 }, (_, k) => ({ value: 1000n + BigInt(k), script: THEM.script }));
    for (let i = 0; i < 1000; i++) {
      const tx: Tx = { version: 2, locktime: 0, vin: [{ prevTxid: (i + 1).toString(16).padStart(64, '0'), vout: 0, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }], vout: [{ value: 50_000n, script: ME.script }, ...filler] };
      const bytes = serializeTx(tx, { witness: false });
      inputs.push({ txid: parseTx(bytes).txid, fields: [nonWitnessUtxo(h(bytes)), witnessUtxo(50_000n, ME.script)] });
    }
    const b64 = craft({ inputs, outputs: [{ value: 49_000_000n, script: THEM.script }] });
    const bytes = decodeBase64Core(b64)!;
    expect(bytes.length).toBeGreaterThan(10_000_000);
    // CPU time, not wall time: a busy machine delays the review but does not make it cost more
    // (re-reading the 10 MB PSBT per input, the quadratic path, costs minutes).
    const c0 = process.cpuUsage();
    const r = review(b64);
    const c = process.cpuUsage(c0);
    expect(r.summary).toMatchObject({ inputCount: 1000, fee: 1_000_000n, vsize: 68_044 }); // weight 4 × 41043 + 2 + 1000 × 108
    expect((c.user + c.system) / 1000).toBeLessThan(5000);
  });
});

describe('percentText: a small fee never reads 0.00 %', () => {
  it('two decimals from 1 %, two significant digits below, a floor at a millionth', async () => {
    const { percentText } = await import('../../shared/bitcoin/psbt/review-scripts');
    const pct = (fee: bigint, sent: bigint): string => percentText(fee * 100n, sent);
    expect(pct(250n, 10_000n)).toBe('2.50');
    expect(pct(100n, 10_000n)).toBe('1.00');
    expect(pct(50n, 10_000n)).toBe('0.50');
    expect(pct(1_410n, 10_000_000n)).toBe('0.014');
    expect(pct(4n, 100_000n)).toBe('0.0040');
    expect(pct(765n, 30_000_000n)).toBe('0.0026');
    expect(pct(1n, 1_000_000_000n)).toBe('< 0.000001');
    expect(pct(0n, 10n)).toBe('0.00');
    expect(pct(30_000n, 10_000n)).toBe('300.00');
  });
});
