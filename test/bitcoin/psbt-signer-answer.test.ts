/**
 * What a signer hands back (shared/bitcoin/psbt/signer-answer.ts): a signed raw transaction told
 * from a PSBT in every form (binary `.txn`, hex, base64), and Core's decodepsbt errors put in words
 * first — a signed transaction, bytes that are no PSBT, a PSBT cut short after N bytes — with Core's
 * text unchanged for the detail line. (The renderer's file reading: test/renderer/psbt-store.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { SIGNED_TX_NOT_PSBT, decodeBase64Core, explainPsbtError, hasPsbtMagic, parsePsbt, rawTxFromText, readRawTx } from '../../shared/bitcoin/psbt';
import { parseTx, serializeTx } from '../../shared/bitcoin/tx';
import { b64, psbtV0, UNSIGNED_TX } from '../support/psbt-bytes';

/** A P2WPKH spend (test/renderer/psbt-store.test.ts builds the same) with a (shape-only) signature and key in its witness: what a signer's .txn holds. */
const SIGNED_SEGWIT = (() => {
  const unsigned = parseTx(hex.decode(UNSIGNED_TX));
  const witness = [Uint8Array.from([0x30, ...new Array<number>(70).fill(7)]), Uint8Array.from([0x02, ...new Array<number>(32).fill(9)])];
  return serializeTx({ ...unsigned, vin: unsigned.vin.map((i) => ({ ...i, witness })) }, { witness: true });
})();
/** A legacy spend: the signature and key in the scriptSig. */
const SIGNED_LEGACY = (() => {
  const unsigned = parseTx(hex.decode(UNSIGNED_TX));
  return serializeTx({ ...unsigned, vin: unsigned.vin.map((i) => ({ ...i, scriptSig: Uint8Array.from([0x47, ...new Array<number>(71).fill(5)]) })) }, { witness: false });
})();
const PSBT = hex.decode(psbtV0([]));

describe('a signed raw transaction is told from a PSBT', () => {
  it('binary: a whole transaction, signed or not, its unsigned txid the draft’s; a PSBT, a cut transaction or garbage is none', () => {
    const unsignedTxid = parseTx(hex.decode(UNSIGNED_TX)).txid;
    // A segwit spend keeps its txid; a legacy one's changes with its scriptSig: both name the draft's unsigned one.
    expect(readRawTx(SIGNED_SEGWIT)).toMatchObject({ signed: true, unsignedTxid, tx: { txid: unsignedTxid } });
    const legacy = readRawTx(SIGNED_LEGACY);
    expect(legacy).toMatchObject({ signed: true, unsignedTxid });
    expect(legacy!.tx.txid).not.toBe(unsignedTxid);
    expect(readRawTx(hex.decode(UNSIGNED_TX))).toMatchObject({ signed: false, unsignedTxid });
    expect(readRawTx(PSBT)).toBeNull();
    expect(hasPsbtMagic(PSBT)).toBe(true);
    expect(readRawTx(SIGNED_SEGWIT.subarray(0, SIGNED_SEGWIT.length - 1))).toBeNull();
    expect(readRawTx(Uint8Array.of(...SIGNED_SEGWIT, 0))).toBeNull();
    expect(readRawTx(new TextEncoder().encode('Hello, world! This is text.'))).toBeNull();
  });

  it('text: hex (any case, surrounding whitespace) and base64 of a transaction; never a PSBT’s text', () => {
    const h = hex.encode(SIGNED_SEGWIT);
    expect(rawTxFromText(`  ${h.toUpperCase()}\n`)?.signed).toBe(true);
    expect(rawTxFromText(Buffer.from(SIGNED_LEGACY).toString('base64'))?.signed).toBe(true);
    expect(rawTxFromText(hex.encode(PSBT))).toBeNull();
    expect(rawTxFromText(b64(psbtV0([])))).toBeNull();
    expect(rawTxFromText(h.slice(1))).toBeNull(); // odd digits
    expect(rawTxFromText('')).toBeNull();
  });
});

describe('Core’s decode errors in words first, Core’s text kept', () => {
  const coreOf = (bytes: Uint8Array): string => {
    const r = parsePsbt(bytes);
    if (r.ok) throw new Error('decoded');
    return r.message;
  };

  it('a signed raw transaction given as a PSBT: Core says “Invalid PSBT magic bytes”; we say what it is and where it goes', () => {
    const core = coreOf(SIGNED_SEGWIT);
    expect(core).toBe('TX decode failed Invalid PSBT magic bytes: iostream error');
    expect(explainPsbtError(core, SIGNED_SEGWIT)).toBe(SIGNED_TX_NOT_PSBT);
    expect(SIGNED_TX_NOT_PSBT).toBe('This is a signed transaction, not a PSBT: open it on its draft to broadcast.');
    expect(explainPsbtError(core, hex.decode(UNSIGNED_TX))).toMatch(/^This is an unsigned raw transaction, not a PSBT/);
  });

  it('bytes that are no PSBT: the first bytes named beside the magic', () => {
    const bytes = decodeBase64Core('SGVsbG8sIHdvcmxkIQ==')!;
    const core = coreOf(bytes);
    expect(explainPsbtError(core, bytes)).toBe('This is not a PSBT: a PSBT starts with the bytes 70 73 62 74 ff (“psbt” and 0xff), this starts with 48 65 6c 6c 6f.');
  });

  it('a PSBT cut short: “cut short after N bytes” for every cut inside it (Core: SpanReader end of data)', () => {
    let ends = 0;
    for (let n = 6; n < PSBT.length; n++) {
      const cut = PSBT.subarray(0, n);
      const core = coreOf(cut);
      const words = explainPsbtError(core, cut);
      if (core.includes('end of data')) {
        ends++;
        expect(words).toBe(`The PSBT is cut short after ${n} bytes: it ends in the middle of a field. Copy or save it again whole.`);
      } else expect(words).toBeNull(); // Core's own text is the clearest (e.g. a missing separator)
    }
    expect(ends).toBeGreaterThan(PSBT.length / 2);
  });

  it('other errors keep Core’s text alone', () => {
    expect(explainPsbtError('TX decode failed invalid base64', null)).toBeNull();
    expect(explainPsbtError('TX decode failed Duplicate Key, global key "00" already provided: iostream error', PSBT)).toBeNull();
  });
});
