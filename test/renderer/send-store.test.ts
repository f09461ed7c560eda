// The Send form's store: amounts typed in the unit, a pasted bitcoin: link filling a row (or refused
// by name), the form sent to main (coin control, change, locktime), the preview's field errors, and a
// default fee preset taken from the node's estimates.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

afterEach(() => {
  vi.unstubAllGlobals();
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
    s.touch(0, 'amount');
    s.touch(-1, 'feeRate');
    expect(s.errorAt(0, 'amount')).toBe('The amount is zero');
    expect(s.errorAt(-1, 'feeRate')).toBe('too low');
    expect(s.errorAt(0, 'address')).toBeNull();
    expect(s.preview).toBeNull();
  });

  it('errors show once their field was left or Create pressed; the form as a whole once anything was', async () => {
    api.handle('send:preview', { ok: false, errors: [{ row: 0, field: 'amount', message: 'Insufficient' }, { row: 0, field: 'address', message: 'No address' }, { row: -1, field: 'coins', message: 'No coins' }] });
    api.handle('send:create', { ok: false, errors: [] });
    const s = useSendStore();
    await s.runPreview();
    expect(s.errorAt(0, 'amount')).toBeNull();
    expect(s.errorAt(-1, 'coins')).toBeNull();
    expect(s.shownErrors).toHaveLength(0);
    s.touch(0, 'amount');
    expect(s.errorAt(0, 'amount')).toBe('Insufficient');
    expect(s.errorAt(0, 'address')).toBeNull();
    expect(s.errorAt(-1, 'coins')).toBe('No coins');
    expect(await s.create()).toBeNull();
    expect(s.errorAt(0, 'address')).toBe('No address');
    expect(api.calls.some((c) => c.channel === 'send:create')).toBe(false); // no summary: nothing to build
    s.reset();
    expect(s.errorAt(0, 'amount')).toBeNull();
  });

  it("the preview's seed is kept for the form and create sends it with the preview's plan", async () => {
    const preview = (seed: number, plan: string) => ({ ok: true, preview: { seed, plan, unsignedTxid: 'ab'.repeat(32), inputs: [], outputs: [] } }) as unknown as SendPreviewReply;
    const seeds: Array<number | undefined> = [];
    api.handle('send:preview', (req) => {
      seeds.push(req.form.seed);
      return { ok: true, value: preview(req.form.seed ?? 4242, `p_plan${seeds.length}xxxxx`) };
    });
    api.handle('send:create', (req) => ({ ok: true, value: { ok: true, draft: { id: `d_${req.plan}` } } as never }));
    const s = useSendStore();
    await s.runPreview();
    await s.runPreview();
    expect(seeds).toEqual([undefined, 4242]);
    expect(await s.create()).toEqual({ id: 'd_p_plan2xxxxx' });
    const sent = api.calls.filter((c) => c.channel === 'send:create').map((c) => c.request as { form: { seed?: number }; plan?: string });
    expect(sent).toEqual([expect.objectContaining({ plan: 'p_plan2xxxxx', form: expect.objectContaining({ seed: 4242 }) })]);
    s.reset();
    expect(s.seed).toBeUndefined();
  });

  it('Create while the summary of the form as it is now is still being made: builds from that one, not from the older summary on screen', async () => {
    // The summary is asked for 250 ms after the last change. A click on Create after that timer fired but
    // before main answered used to build from the older summary with the newer form, which main refuses
    // ("The form changed after the summary was made").
    vi.useFakeTimers();
    try {
      let made = 0;
      const held: Array<() => void> = [];
      api.handle('send:preview', (req) => {
        made += 1;
        const value = { ok: true, preview: { seed: 7, plan: `p_rate${req.form.feeRate}_${made}`, unsignedTxid: 'ab'.repeat(32), inputs: [], outputs: [] } } as unknown as SendPreviewReply;
        // the second summary (of the rate 1) answers only when the test lets it
        return made === 2 ? new Promise((resolve) => held.push(() => resolve({ ok: true, value }))) : { ok: true, value };
      });
      // main's own check: a plan is built only for the form it was made for
      api.handle('send:create', (req) =>
        req.plan?.startsWith(`p_rate${req.form.feeRate}_`)
          ? { ok: true, value: { ok: true, draft: { id: `d_${req.plan}` } } as never }
          : { ok: true, value: { ok: false, errors: [{ row: -1, field: 'recipients', message: 'The form changed after the summary was made: nothing was built.' }] } },
      );
      const s = useSendStore();
      s.feeRate = '2.5';
      await vi.advanceTimersByTimeAsync(250);
      expect(s.preview?.plan).toBe('p_rate2.5_1');
      s.feeRate = '1';
      await vi.advanceTimersByTimeAsync(250); // the timer fired: the summary of rate 1 is asked for, not answered
      expect(made).toBe(2);
      expect(s.preview?.plan).toBe('p_rate2.5_1');
      const created = await s.create();
      expect(created).toEqual({ id: 'd_p_rate1_3' });
      expect(s.refused).toEqual([]);
      held.forEach((release) => release()); // the older request's answer comes last: dropped
      await vi.advanceTimersByTimeAsync(0);
      expect(s.preview?.plan).toBe('p_rate1_3');
      const sent = api.calls.filter((c) => c.channel === 'send:create').map((c) => (c.request as { plan?: string }).plan);
      expect(sent).toEqual(['p_rate1_3']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the fee rate says where it came from: the estimate for N blocks, the rate used last, or nothing', async () => {
    const mem = new Map<string, string>();
    vi.stubGlobal('localStorage', { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) });
    api.handle('send:context', context());
    const s = useSendStore();
    await s.load();
    expect(s.feeOrigin).toEqual({ kind: 'estimate', blocks: 3, mode: 'economical' });
    const none = context({ noEstimate: true, presets: context().presets.map((p) => ({ ...p, economical: { satVb: null, blocks: null }, conservative: { satVb: null, blocks: null } })) });
    api.handle('send:context', none);
    await s.load();
    expect(s.feeRate).toBe('');
    expect(s.feeOrigin).toBeNull();
    localStorage.setItem('spyglass.send.lastFeeRate', '3.5');
    await s.load();
    expect(s.feeRate).toBe('3.5');
    expect(s.feeOrigin).toEqual({ kind: 'last' });
    s.typeRate('7');
    await s.load();
    expect(s.feeRate).toBe('7');
    expect(s.feeOrigin).toEqual({ kind: 'typed' });
  });
});
