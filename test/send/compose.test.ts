// The form → the unsigned transaction: recipients read strictly with per-field errors, selection,
// seeded input order and change position, RBF and locktime, the warnings and the min-relay floor.
import { describe, expect, it } from 'vitest';
import { REGTEST, MAINNET } from '../../shared/bitcoin/networks';
import { decodeDestination } from '../../shared/bitcoin/address';
import { compose, ComposeError, signalsRbf, type ComposeInput } from '../../shared/send/compose';
import { parseAmount, parseRecipients, type RecipientRow } from '../../shared/send/recipients';
import { checkMinRelay, composeWarnings } from '../../shared/send/warnings';
import { CHANGE, coin, P2TR, P2WPKH } from '../bitcoin/spend/wallet';

const A1 = 'bcrt1qlecyr8pnyxy0g0xyaek2uxa5p909xapzyc705p';
const A2 = 'bcrt1qh2g5kkfavens5x6grfns3vjegqvfdz6c39nyjk';
const MAIN = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';

function parse(rows: RecipientRow[], unit: 'btc' | 'sats' = 'btc') {
  return parseRecipients(rows, { network: REGTEST, unit });
}

describe('recipients', () => {
  it('amounts in BTC and sats, strictly', () => {
    expect(parseAmount('0.015', 'btc')).toEqual({ ok: true, sats: 1_500_000n });
    expect(parseAmount('1500000', 'sats')).toEqual({ ok: true, sats: 1_500_000n });
    expect(parseAmount('0.000000001', 'btc')).toMatchObject({ ok: false, message: expect.stringContaining('more than 8 decimals') });
    expect(parseAmount('0', 'btc')).toMatchObject({ ok: false, message: 'The amount is zero' });
    expect(parseAmount('-1', 'btc')).toMatchObject({ ok: false, message: expect.stringContaining('negative') });
    expect(parseAmount('21000001', 'btc')).toMatchObject({ ok: false, message: expect.stringContaining('21,000,000') });
    expect(parseAmount('1.5', 'sats')).toMatchObject({ ok: false, message: expect.stringContaining('whole numbers') });
  });

  it('every bad field is named by row and field, and nothing is returned', () => {
    const r = parse([
      { kind: 'pay', address: MAIN, amount: '0.1' },
      { kind: 'pay', address: 'nonsense', amount: '1' },
      { kind: 'pay', address: A1, amount: '0.00000100' },
      { kind: 'pay', address: A2, amount: '0.1', sendMax: true },
      { kind: 'pay', address: A2.toUpperCase(), amount: '0.2' },
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => [e.row, e.field])).toEqual([
      [0, 'address'],
      [1, 'address'],
      [2, 'amount'],
      [4, 'address'],
    ]);
    expect(r.errors[0]!.message).toContain('mainnet address, but your node is on regtest');
    expect(r.errors[2]!.message).toContain('dust threshold');
    expect(r.errors[3]!.message).toContain('already paid in row 4');
  });

  it('OP_RETURN within the node policy', () => {
    const ok = parse([{ kind: 'data', data: 'hello', encoding: 'text' }]);
    expect(ok.ok && ok.recipients[0]!.dataHex).toBe('68656c6c6f');
    const big = parseRecipients([{ kind: 'data', data: 'ab'.repeat(90), encoding: 'hex' }], { network: REGTEST, unit: 'btc', maxDataCarrierBytes: 83 });
    expect(!big.ok && big.errors[0]).toMatchObject({ field: 'data', message: expect.stringContaining('at most 83 bytes') });
    expect(parse([{ kind: 'data', data: 'abc', encoding: 'hex' }]).ok).toBe(false);
  });

  it('a mainnet form refuses a regtest address by name', () => {
    const r = parseRecipients([{ kind: 'pay', address: A1, amount: '1' }], { network: MAINNET, unit: 'btc' });
    expect(!r.ok && r.errors[0]!.message).toContain('regtest address');
  });
});

describe('compose', () => {
  const coins = [coin(1, 50_000_000n), coin(2, 30_000_000n), coin(3, 20_000_000n, P2TR), coin(4, 7_000_000n)];
  const recipients = (() => {
    const r = parse([
      { kind: 'pay', address: A1, amount: '0.6', label: 'rent' },
      { kind: 'data', data: 'memo', encoding: 'text' },
    ]);
    if (!r.ok) throw new Error('bad fixture');
    return r.recipients;
  })();
  const base: ComposeInput = { coins, recipients, feeRate: 2000n, change: CHANGE, locktime: 200, seed: 7 };

  it('same form and seed: same transaction; the change position follows the seed', () => {
    const a = compose(base);
    expect(compose(base)).toEqual(a);
    expect(a.changeIndex).not.toBeNull();
    expect(a.outputs[a.changeIndex!]!.role).toBe('change');
    const positions = new Set(Array.from({ length: 40 }, (_, s) => compose({ ...base, seed: s }).changeIndex));
    expect(positions.size).toBe(3);
    const sum = a.inputs.reduce((x, c) => x + c.value, 0n) - a.outputs.reduce((x, o) => x + o.value, 0n);
    expect(sum).toBe(a.selection.fee);
    expect(a.sent).toBe(60_000_000n);
  });

  it('RBF and locktime: nSequence 0xfffffffd by default; off, 0xfffffffe with a locktime', () => {
    const a = compose(base);
    expect(a.spec.locktime).toBe(200);
    expect(a.spec.inputs.every((i) => i.sequence === 0xfffffffd)).toBe(true);
    expect(signalsRbf(a.spec)).toBe(true);
    const b = compose({ ...base, rbf: false });
    expect(b.spec.inputs.every((i) => i.sequence === 0xfffffffe)).toBe(true);
    expect(signalsRbf(b.spec)).toBe(false);
    expect(() => compose({ ...base, locktime: -1 })).toThrow(ComposeError);
  });

  it('insufficient funds is a coins-field error naming what is missing', () => {
    const r = parse([{ kind: 'pay', address: A1, amount: '2' }]);
    if (!r.ok) throw new Error('bad fixture');
    try {
      compose({ ...base, recipients: r.recipients });
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(ComposeError);
      expect((e as ComposeError).field).toBe('coins');
      expect((e as ComposeError).message).toMatch(/missing/);
      expect(BigInt((e as ComposeError).detail['missing'] as string)).toBeGreaterThan(93_000_000n);
    }
  });

  it('all coins frozen: no spendable coins', () => {
    expect(() => compose({ ...base, coins: coins.map((c) => ({ ...c, frozen: true })) })).toThrow(/frozen/);
  });

  it('send max takes everything but the fee; the fee % and warnings', () => {
    const r = parse([{ kind: 'pay', address: A1, amount: '', sendMax: true }]);
    if (!r.ok) throw new Error('bad fixture');
    const c = compose({ ...base, recipients: r.recipients });
    expect(c.changeIndex).toBeNull();
    expect(c.sent + c.selection.fee).toBe(107_000_000n);
    const own = decodeDestination(A1, REGTEST);
    const w = composeWarnings(c, { mempoolMinFee: 5000n, feeRateWarn: 1000n, feePercentWarn: '10', isOwn: (s) => own.ok && s.every((b, i) => b === own.script[i]) });
    expect(w.map((x) => x.code).sort()).toEqual(['fee-below-mempool-min', 'fee-rate-high', 'mixed-input-types', 'pays-own-address']);
    const small = parse([{ kind: 'pay', address: A2, amount: '0.0001' }]);
    if (!small.ok) throw new Error('bad fixture');
    const d = compose({ ...base, recipients: small.recipients });
    const pct = composeWarnings(d, { mempoolMinFee: null, feeRateWarn: 100_000n, feePercentWarn: '1', isOwn: () => false });
    expect(pct.map((x) => x.code)).toEqual(['fee-percent-high']);
    expect(pct[0]!.message).toContain(`${d.feePercent} % of the amount sent`);
  });

  it('below the min relay fee is refused at the fee field', () => {
    expect(() => checkMinRelay(500n, 1000n)).toThrow(/minimum relay fee of 1 sat\/vB/);
    expect(() => checkMinRelay(1000n, 1000n)).not.toThrow();
  });

  it('coin control: exactly the chosen coins', () => {
    const c = compose({ ...base, manual: [{ txid: coins[0]!.txid, vout: coins[0]!.vout }, { txid: coins[1]!.txid, vout: coins[1]!.vout }] });
    expect(c.inputs.map((i) => i.txid).sort()).toEqual([coins[0]!.txid, coins[1]!.txid].sort());
    expect(c.selection.algorithm).toBe('manual');
    expect(c.inputs.every((i) => i.kind === P2WPKH)).toBe(true);
  });
});
