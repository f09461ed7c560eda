import { describe, expect, test } from 'vitest';
import * as btc from '@scure/btc-signer';
import { dustThreshold, isDust, minViableChange, settleChange } from '../../../shared/bitcoin/spend/dust';
import { inputKindFromDescriptor, inputKindFromScripts } from '../../../shared/bitcoin/spend/kind';
import { inputVsize } from '../../../shared/bitcoin/spend/size';
import { SpendError } from '../../../shared/bitcoin/spend/errors';
import { feeFor, formatSatPerVb, parseSatPerVb } from '../../../shared/bitcoin/spend/feerate';
import { fromHex } from '../../../shared/bitcoin/hex';
import { NET, testKey } from './signing';
import { listUnspent } from './fixture';

const k = testKey(1);
const SCRIPTS = {
  p2pkh: btc.p2pkh(k.pub, NET).script,
  p2sh: btc.p2sh(btc.p2wpkh(k.pub, NET), NET).script,
  p2wpkh: btc.p2wpkh(k.pub, NET).script,
  p2wsh: btc.p2wsh(btc.p2ms(1, [k.pub]), NET).script,
  p2tr: btc.p2tr(k.xonly, undefined, NET).script,
  opreturn: btc.Script.encode(['RETURN', new Uint8Array([0xca, 0xfe])]),
};

describe('dust (GetDustThreshold at the 3 sat/vB dust relay fee)', () => {
  test('thresholds per output type, as real Core 31.99 answered testmempoolaccept on regtest', () => {
    // Measured by hand: an output of threshold − 1 sat is rejected "dust", the threshold is accepted.
    expect(dustThreshold(SCRIPTS.p2pkh)).toBe(546n);
    expect(dustThreshold(SCRIPTS.p2sh)).toBe(540n);
    expect(dustThreshold(SCRIPTS.p2wpkh)).toBe(294n);
    expect(dustThreshold(SCRIPTS.p2wsh)).toBe(330n);
    expect(dustThreshold(SCRIPTS.p2tr)).toBe(330n);
    expect(dustThreshold(SCRIPTS.opreturn)).toBe(0n);
    for (const s of Object.values(SCRIPTS)) {
      const t = dustThreshold(s);
      if (t > 0n) expect(isDust(t - 1n, s)).toBe(true);
      expect(isDust(t, s)).toBe(false);
    }
  });

  test('other rates, rounded up like CFeeRate::GetFee', () => {
    expect(dustThreshold(SCRIPTS.p2wpkh, 10_000n)).toBe(980n); // 98 vB × 10
    expect(dustThreshold(SCRIPTS.p2wpkh, 1_001n)).toBe(99n); // 98.098 → 99
    expect(dustThreshold(SCRIPTS.p2pkh, 1_000n)).toBe(182n);
  });

  test("change: Core's min_viable_change, and change below it goes to the fee", () => {
    const p2wpkhSpend = inputVsize({ type: 'p2wpkh' }); // 68 with 72-byte signatures
    expect(p2wpkhSpend).toBe(68);
    // default discard rate 10 sat/vB: max(68 × 10 + 1, dust at 10 sat/vB = 980) = 980
    const rules = { changeScript: SCRIPTS.p2wpkh, changeSpendVsize: p2wpkhSpend };
    expect(minViableChange(rules)).toBe(980n);
    // at 3 sat/vB (the floor): max(204 + 1, 294) = 294
    expect(minViableChange({ ...rules, discardFeeRate: 3000n })).toBe(294n);
    // below the dust relay fee the floor still applies
    expect(minViableChange({ ...rules, discardFeeRate: 1000n })).toBe(294n);
    // p2wsh change at 10 sat/vB: 2-of-3 (105 vB to spend): dust (110 vB × 10) wins; 3-of-5 (140 vB): the spend fee wins
    expect(inputVsize({ type: 'p2wsh-multi', m: 2, n: 3 })).toBe(105);
    expect(minViableChange({ changeScript: SCRIPTS.p2wsh, changeSpendVsize: 105 })).toBe(1100n);
    expect(inputVsize({ type: 'p2wsh-multi', m: 3, n: 5 })).toBe(140);
    expect(minViableChange({ changeScript: SCRIPTS.p2wsh, changeSpendVsize: 140 })).toBe(1401n);
    expect(settleChange(979n, rules)).toEqual({ change: null, addedToFee: 979n });
    expect(settleChange(980n, rules)).toEqual({ change: 980n, addedToFee: 0n });
    expect(settleChange(0n, rules)).toEqual({ change: null, addedToFee: 0n });
    expect(() => settleChange(-1n, rules)).toThrow(/cannot be negative/);
  });
});

describe('fee rates', () => {
  test('sat/vB text ↔ sat/kvB, fees rounded up', () => {
    expect(parseSatPerVb('5')).toBe(5000n);
    expect(parseSatPerVb('2.5')).toBe(2500n);
    expect(parseSatPerVb('0.001')).toBe(1n);
    expect(parseSatPerVb(' 12.34 ')).toBe(12_340n);
    expect(() => parseSatPerVb('1.2345')).toThrow(/more than 3 decimals/);
    expect(() => parseSatPerVb('-1')).toThrow(/not a number of sat\/vB/);
    expect(() => parseSatPerVb('1e3')).toThrow(SpendError);
    expect(formatSatPerVb(2500n)).toBe('2.5 sat/vB');
    expect(formatSatPerVb(10_000n)).toBe('10 sat/vB');
    expect(formatSatPerVb(1n)).toBe('0.001 sat/vB');
    expect(feeFor(10n, 300)).toBe(3n); // 0.01 sat/vB × 300 vB = 3 (Core's recorded "fee rate too low" case rounds up)
    expect(feeFor(10n, 201)).toBe(3n); // 2.01 → 3
    expect(feeFor(5000n, 141)).toBe(705n);
    expect(feeFor(0n, 141)).toBe(0n);
  });
});

describe('input kinds from what the node says', () => {
  test("every coin of the recorded watch-only and vault wallets: listunspent's desc and its scripts agree", () => {
    const coins = [...listUnspent('watch minconf 0'), ...listUnspent('vault')];
    const types = new Set<string>();
    for (const c of coins) {
      const fromDesc = inputKindFromDescriptor(c.desc);
      const fromScripts = inputKindFromScripts(fromHex(c.scriptPubKey), {
        redeemScript: c.redeemScript ? fromHex(c.redeemScript) : undefined,
        witnessScript: c.witnessScript ? fromHex(c.witnessScript) : undefined,
      });
      expect(fromScripts, c.desc).toEqual(fromDesc.type === 'p2pkh' ? { type: 'p2pkh' } : fromDesc);
      types.add(fromDesc.type);
    }
    expect([...types].sort()).toEqual(['p2pkh', 'p2sh-p2wpkh', 'p2tr', 'p2wpkh', 'p2wsh-multi']);
    expect(inputKindFromDescriptor(listUnspent('vault')[0]!.desc)).toEqual({ type: 'p2wsh-multi', m: 2, n: 3 });
  });

  test('descriptor forms', () => {
    const x = 'tpubDCqx3HhrGpTCKCTWtQDdCGw6pbdcto6XBPznLeF7BWuaucoyrjVu2bK4CKdMtC2FDdUVrGWNLQ2AM387GvLMgFkUxB19gYyQfGL9i68PFWD';
    expect(inputKindFromDescriptor(`wsh(sortedmulti(2,[aa/48h]${x}/0/*,${x}/1/*,${x}/<0;1>/*))#abcdefgh`)).toEqual({ type: 'p2wsh-multi', m: 2, n: 3 });
    expect(inputKindFromDescriptor(`sh(wsh(multi(3,${x}/0/*,${x}/1/*,${x}/2/*,${x}/3/*,${x}/4/*)))`)).toEqual({ type: 'p2sh-p2wsh-multi', m: 3, n: 5 });
    expect(inputKindFromDescriptor(`sh(sortedmulti(1,${x}/0/*,${x}/1/*))`)).toEqual({ type: 'p2sh-multi', m: 1, n: 2, uncompressed: 0 });
    const u = '04' + 'ab'.repeat(64);
    expect(inputKindFromDescriptor(`pkh([deadbeef/0h]${u})`)).toEqual({ type: 'p2pkh', uncompressed: true });
    expect(inputKindFromDescriptor(`sh(multi(1,${u},02${'cd'.repeat(32)}))`)).toEqual({ type: 'p2sh-multi', m: 1, n: 2, uncompressed: 1 });
    expect(inputKindFromDescriptor(`sh(wpkh(${x}/0/*))`)).toEqual({ type: 'p2sh-p2wpkh' });
    expect(inputKindFromDescriptor(`tr(${x}/0/*)`)).toEqual({ type: 'p2tr' });
    expect(inputKindFromDescriptor('addr(bcrt1q...)', SCRIPTS.p2wpkh)).toEqual({ type: 'p2wpkh' });
    expect(inputKindFromDescriptor('addr(bcrt1p...)', SCRIPTS.p2tr)).toEqual({ type: 'p2tr' });
  });

  test('what cannot be estimated is refused with the reason', () => {
    const x = 'tpubDCqx3HhrGpTCKCTWtQDdCGw6pbdcto6XBPznLeF7BWuaucoyrjVu2bK4CKdMtC2FDdUVrGWNLQ2AM387GvLMgFkUxB19gYyQfGL9i68PFWD';
    const refused: [() => unknown, RegExp][] = [
      [() => inputKindFromDescriptor(`tr(${x}/0/*,pk(${x}/1/*))`), /script tree/],
      [() => inputKindFromDescriptor('addr(2N4ByBLN7JFpwcy8cHnS2HisxhovfEu32Jx)', SCRIPTS.p2sh), /addr\(\) coin of type scripthash/],
      [() => inputKindFromDescriptor('addr(bcrt1q...)'), /without its scriptPubKey/],
      [() => inputKindFromDescriptor(`combo(${x}/0/*)`), /a combo\(\) descriptor/],
      [() => inputKindFromDescriptor(`wsh(pkh(${x}/0/*))`), /only multi and sortedmulti/],
      [() => inputKindFromDescriptor(`wsh(multi(3,${x}/0/*,${x}/1/*))`), /3-of-2 multisig is not possible/],
      [() => inputKindFromScripts(SCRIPTS.p2wsh), /without its witnessScript/],
      [() => inputKindFromScripts(SCRIPTS.p2sh), /without its redeemScript/],
      [() => inputKindFromScripts(SCRIPTS.opreturn), /nulldata output/],
      [() => inputKindFromScripts(btc.p2wsh(btc.p2pk(k.pub), NET).script, { witnessScript: btc.p2pk(k.pub).script }), /not multisig/],
    ];
    for (const [f, re] of refused) {
      expect(f).toThrow(re);
      expect(f).toThrow(SpendError);
    }
  });
});
