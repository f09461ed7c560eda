// The Send form's store: amounts typed in the unit, a pasted bitcoin: link filling a row (or refused
// by name), the form sent to main (coin control, change, locktime), the preview's field errors, and a
// default fee preset taken from the node's estimates.
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import { setApi } from '../../renderer/src/api/client';
import { amountText, useSendStore, type PayRow } from '../../renderer/src/stores/send';
import type { SendContextView, SendPreviewReply } from '../../shared/ipc/send';
import { fakeApi, type FakeApi } from './fake-api';

let api: FakeApi;
const A = 'bcrt1qlecyr8pnyxy0g0xyaek2uxa5p909xapzyc705p';

const context = (over: Partial<SendContextView> = {}): SendContextView => ({
  wallet: 'watch',
  network: 'regtest',
  offline: false,
  asOf: '2026-01-01T00:00:00.000Z',
  tipHeight: 200,
  coins: [],
  presets: [
    { id: 'next-block', target: 1, economical: { satVb: '12', blocks: 2 }, conservative: { satVb: '15', blocks: 2 } },
    { id: '30-min', target: 3, economical: { satVb: '8', blocks: 3 }, conservative: { satVb: '9', blocks: 3 } },
    { id: '1-hour', target: 6, economical: { satVb: '4', blocks: 6 }, conservative: { satVb: '5', blocks: 6 } },
    { id: '1-day', target: 144, economical: { satVb: null, blocks: null }, conservative: { satVb: '1', blocks: 144 } },
  ],
  noEstimate: false,
  minRelaySatVb: '0.1',
  mempoolMinSatVb: '0.1',
  incrementalSatVb: '0.1',
  maxDataCarrierBytes: 100000,
  nodePsbtVersion: 2,
  node: '/Satoshi:31.99.0/',
  ...over,
});

beforeEach(() => {
  api = fakeApi();
  setApi(api);
  setActivePinia(createPinia());
});

describe('send store', () => {
  it('amounts in the unit the person types', () => {
    expect(amountText(150_000_000n, 'btc')).toBe('1.5');
    expect(amountText(100_000_000n, 'btc')).toBe('1');
    expect(amountText(1_500n, 'btc')).toBe('0.000015');
    expect(amountText(1_500n, 'sats')).toBe('1500');
  });

  it('a pasted bitcoin: link fills the row; an unknown req- parameter refuses it by name', () => {
    const s = useSendStore();
    const row = s.rows[0] as PayRow;
    expect(s.fillFromUri(row, `bitcoin:${A}?amount=0.015&label=Rent%20May`)).toBe('');
    expect(row).toMatchObject({ address: A, amount: '0.015', label: 'Rent May' });
    expect(s.fillFromUri(row, `bitcoin:${A}?req-pop=x`)).toMatch(/This payment request cannot be used/);
    expect(s.fillFromUri(row, A)).toBeNull();
  });

  it('loads the context and starts from the default preset (economical); the form carries coin control, change and locktime', async () => {
    api.handle('send:context', context());
    api.handle('settings:get', { app: { unit: 'btc', theme: 'system', refreshSeconds: 10, feeRateWarnSatVb: 100, feePercentWarn: 10, defaultFeePreset: '1-hour' }, profileId: null, profile: null });
    const s = useSendStore();
    await s.load();
    expect(s.preset).toBe('30-min'); // the settings were not loaded: the app default
    expect(s.feeRate).toBe('8');
    s.mode = 'conservative';
    s.applyPreset();
    expect(s.feeRate).toBe('9');
    s.coinControl = true;
    s.chosen.add(`${'ab'.repeat(32)}:1`);
    s.changeMode = 'address';
    s.changeAddress = A;
    s.locktime = '150';
    expect(s.form()).toMatchObject({ coins: [`${'ab'.repeat(32)}:1`], change: { mode: 'address', address: A }, locktime: 150, feeRate: '9', unit: 'btc' });
    s.locktime = 'soon';
    expect(s.form().locktime).toBe(-1);
  });

  it("main's field errors land at their row and field; a valid form shows the preview", async () => {
    const replies: SendPreviewReply[] = [
      { ok: false, errors: [{ row: 0, field: 'amount', message: 'The amount is zero' }, { row: -1, field: 'feeRate', message: 'too low' }] },
    ];
    api.handle('send:preview', () => ({ ok: true, value: replies.shift()! }));
    const s = useSendStore();
    await s.runPreview();
    expect(s.errorAt(0, 'amount')).toBe('The amount is zero');
    expect(s.errorAt(-1, 'feeRate')).toBe('too low');
    expect(s.errorAt(0, 'address')).toBeNull();
    expect(s.preview).toBeNull();
  });
});
