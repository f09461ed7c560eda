// The Send form (#15): what the node offers (coins, fee presets, limits — or the last of it, offline),
// the rows and options the person fills in, a preview from main after each change (selection, fee,
// vsize, warnings, or every field error), and the create call that builds and saves the draft.
// What you review is what you sign (#28): the preview's random choices (its seed) are kept for the
// form, and create sends the preview's plan — main builds exactly that transaction or says what
// changed. A field's error shows once the field was left or Create pressed; the fee rate says where
// it came from (the node's estimate for N blocks, the rate used last) or is empty with the hint.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, reactive, ref, shallowRef, watch } from 'vue';
import type { IpcError } from '../../../shared/errors';
import type { FeePresetId, FieldError, SendContextView, SendForm, SendPreviewView } from '../../../shared/ipc/send';
import { formatBtc } from '../../../shared/amounts';
import { isBip21, parseBip21 } from '../../../shared/bip21';
import * as api from '../api/spyglass';
import { useWatchStore } from './watch';
import { useSettingsStore } from './settings';

export interface PayRow {
  key: number;
  kind: 'pay';
  address: string;
  amount: string;
  sendMax: boolean;
  label: string;
}
export interface DataRow {
  key: number;
  kind: 'data';
  data: string;
  encoding: 'text' | 'hex';
}
export type Row = PayRow | DataRow;

let keys = 1;
export const payRow = (p: Partial<PayRow> = {}): PayRow => ({ key: keys++, kind: 'pay', address: '', amount: '', sendMax: false, label: '', ...p });
export const dataRow = (p: Partial<DataRow> = {}): DataRow => ({ key: keys++, kind: 'data', data: '', encoding: 'text', ...p });

/** An amount of satoshis as the person types it in `unit` ("0.015" / "1500000"). */
export function amountText(v: bigint, unit: 'btc' | 'sats'): string {
  return unit === 'sats' ? v.toString() : formatBtc(v).replace(/\.?0+$/, '');
}

const LAST_RATE_KEY = 'spyglass.send.lastFeeRate';

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** Where the fee rate in the field came from. */
export type FeeOrigin = { kind: 'estimate'; blocks: number | null; mode: 'economical' | 'conservative' } | { kind: 'last' } | { kind: 'typed' } | null;

export const useSendStore = defineStore('send', () => {
  const context = shallowRef<SendContextView | null>(null);
  const contextError = ref<IpcError | null>(null);
  const loading = ref(false);
  const rows = ref<Row[]>([payRow()]);
  const feeRate = ref('');
  const preset = ref<FeePresetId | 'custom'>('custom');
  const mode = ref<'economical' | 'conservative'>('economical');
  const coinControl = ref(false);
  const chosen = reactive(new Set<string>());
  const includeUnconfirmed = ref(true);
  const changeMode = ref<'auto' | 'address'>('auto');
  const changeAddress = ref('');
  const rbf = ref(true);
  const locktime = ref('');
  /** The spending path of a multi-path wallet (null: its first) and "a PSBT to sign now and broadcast later". */
  const pathId = ref<string | null>(null);
  const signNow = ref(false);
  const name = ref('');
  const preview = shallowRef<SendPreviewView | null>(null);
  const errors = ref<FieldError[]>([]);
  const previewError = ref<IpcError | null>(null);
  const creating = ref(false);
  /** The random choices of this form: the first preview's (or the URL's, in tests); undefined until then. */
  const seed = ref<number | undefined>(undefined);
  const feeOrigin = ref<FeeOrigin>(null);
  /** Fields left by the person ("row:field"); Create pressed: every error shows. */
  const touched = reactive(new Set<string>());
  const submitted = ref(false);
  /** Why the last Create built nothing (what changed since the summary), until the form changes. */
  const refused = ref<string[]>([]);

  const unit = computed(() => useWatchStore().unit);

  function presetRate(id: FeePresetId, m: 'economical' | 'conservative'): string | null {
    const p = context.value?.presets.find((x) => x.id === id);
    return p ? p[m].satVb : null;
  }

  function applyPreset(): void {
    if (preset.value === 'custom') return;
    const r = presetRate(preset.value, mode.value);
    if (r === null) return;
    feeRate.value = r;
    const blocks = context.value?.presets.find((x) => x.id === preset.value)?.[mode.value].blocks ?? null;
    feeOrigin.value = { kind: 'estimate', blocks, mode: mode.value };
  }

  /** A rate typed by the person. */
  function typeRate(text: string): void {
    feeRate.value = text;
    preset.value = 'custom';
    feeOrigin.value = { kind: 'typed' };
  }

  /** The default preset's estimate; else the rate used last; else empty (the page says to type one). */
  function prefillRate(): void {
    const def = useSettingsStore().view?.app.defaultFeePreset ?? '30-min';
    if (presetRate(def, mode.value) !== null) {
      preset.value = def;
      applyPreset();
      return;
    }
    preset.value = 'custom';
    const last = storage()?.getItem(LAST_RATE_KEY) ?? '';
    feeRate.value = /^\d+(\.\d+)?$/.test(last) ? last : '';
    feeOrigin.value = feeRate.value ? { kind: 'last' } : null;
  }

  async function load(): Promise<void> {
    loading.value = true;
    try {
      context.value = await api.sendContext();
      contextError.value = null;
      // an estimate is taken again (it may have moved, or be gone); a typed rate stays
      if (feeRate.value === '' || feeOrigin.value?.kind !== 'typed') prefillRate();
      for (const op of [...chosen]) if (!context.value.coins.some((c) => c.outpoint === op)) chosen.delete(op);
    } catch (e) {
      contextError.value = api.asIpcError(e);
    } finally {
      loading.value = false;
    }
  }

  function form(): SendForm {
    const lt = locktime.value.trim();
    return {
      rows: rows.value.map((r) => (r.kind === 'pay' ? { kind: 'pay', address: r.address, amount: r.amount, sendMax: r.sendMax, label: r.label } : { kind: 'data', data: r.data, encoding: r.encoding })),
      unit: unit.value,
      feeRate: feeRate.value,
      coins: coinControl.value ? [...chosen] : null,
      includeUnconfirmed: includeUnconfirmed.value,
      change: changeMode.value === 'address' ? { mode: 'address', address: changeAddress.value } : { mode: 'auto' },
      rbf: rbf.value,
      locktime: lt === '' ? null : /^\d+$/.test(lt) ? Number(lt) : -1,
      name: name.value,
      ...(seed.value !== undefined ? { seed: seed.value } : {}),
      path: context.value?.policy ? { id: pathId.value ?? context.value.policy.paths[0]!.id, signNow: signNow.value } : null,
    };
  }

  let timer: ReturnType<typeof setTimeout> | null = null;
  /** The number of the last preview asked for, and of the one whose reply is shown. */
  let asked = 0;
  let shownN = 0;
  async function runPreview(): Promise<void> {
    const n = ++asked;
    const f = form();
    if (f.locktime === -1) {
      errors.value = [{ row: -1, field: 'locktime', message: 'The locktime is a block height or a UNIX time: a whole number' }];
      preview.value = null;
      return;
    }
    try {
      const r = await api.sendPreview(f);
      if (n !== asked) return;
      shownN = n;
      previewError.value = null;
      if (r.ok) {
        preview.value = r.preview;
        if (seed.value === undefined) seed.value = r.preview.seed;
        errors.value = [];
      } else {
        preview.value = null;
        errors.value = r.errors;
      }
    } catch (e) {
      if (n === asked) previewError.value = api.asIpcError(e);
    }
  }
  function schedule(): void {
    if (timer) clearTimeout(timer);
    refused.value = [];
    timer = setTimeout(() => {
      timer = null;
      void runPreview();
    }, 250);
  }
  watch([rows, feeRate, coinControl, () => [...chosen], includeUnconfirmed, changeMode, changeAddress, rbf, locktime, unit, pathId, signNow], schedule, { deep: true });

  const fieldKey = (row: number, field: FieldError['field']): string => `${row}:${field}`;

  /** The person left this field (its error may show now). */
  function touch(row: number, field: FieldError['field']): void {
    touched.add(fieldKey(row, field));
  }

  /** Whether an error at this place shows: its field was left, or Create was pressed. Errors of the form as a whole (coins, recipients) once anything was. */
  function shows(e: FieldError): boolean {
    if (submitted.value || touched.has(fieldKey(e.row, e.field))) return true;
    return (e.field === 'coins' || e.field === 'recipients') && touched.size > 0;
  }

  /** The form's errors at one place (row -1: the form's own fields), once they show. */
  function errorAt(row: number, field: FieldError['field']): string | null {
    const e = errors.value.find((x) => x.row === row && x.field === field);
    return e && shows(e) ? e.message : null;
  }

  const shownErrors = computed(() => errors.value.filter(shows));

  /** A pasted bitcoin: URI fills the row (address, amount, label); refused ones say why. */
  function fillFromUri(row: PayRow, text: string): string | null {
    if (!isBip21(text)) return null;
    const p = parseBip21(text.trim());
    if (!p.ok) return `This payment request cannot be used: ${p.error}`;
    row.address = p.request.address;
    if (p.request.amountSats !== null) row.amount = amountText(p.request.amountSats, unit.value);
    const words = p.request.label ?? p.request.message;
    if (words) row.label = words;
    return '';
  }

  /**
   * Builds the transaction the summary shows: a preview still due — or asked for and not answered yet,
   * the summary on screen being of an older form — runs first, then main builds its plan. Refused (a
   * coin spent meanwhile, the change address taken…): said, and the summary renewed.
   */
  async function create(): Promise<{ id: string } | null> {
    submitted.value = true;
    creating.value = true;
    try {
      if (timer || !preview.value || shownN !== asked) {
        if (timer) clearTimeout(timer);
        timer = null;
        await runPreview();
      }
      const shown = preview.value;
      if (!shown) return null;
      const r = await api.sendCreate({ ...form(), seed: shown.seed }, shown.plan);
      if (!r.ok) {
        await runPreview();
        refused.value = r.errors.map((e) => e.message);
        return null;
      }
      const rate = feeRate.value.trim();
      if (/^\d+(\.\d+)?$/.test(rate)) storage()?.setItem(LAST_RATE_KEY, rate);
      return { id: r.draft.id };
    } finally {
      creating.value = false;
    }
  }

  function reset(): void {
    rows.value = [payRow()];
    name.value = '';
    chosen.clear();
    coinControl.value = false;
    changeMode.value = 'auto';
    changeAddress.value = '';
    locktime.value = '';
    rbf.value = true;
    pathId.value = null;
    signNow.value = false;
    preview.value = null;
    errors.value = [];
    seed.value = undefined;
    touched.clear();
    submitted.value = false;
    refused.value = [];
  }

  /** Fills the form from a draft's (reopened as a new draft: "edit"). */
  function fromForm(f: SendForm): void {
    reset();
    rows.value = f.rows.map((r) => (r.kind === 'pay' ? payRow({ address: r.address, amount: r.amount, sendMax: r.sendMax ?? false, label: r.label ?? '' }) : dataRow({ data: r.data, encoding: r.encoding })));
    feeRate.value = f.feeRate;
    preset.value = 'custom';
    feeOrigin.value = { kind: 'typed' };
    if (f.coins) {
      coinControl.value = true;
      for (const c of f.coins) chosen.add(c);
    }
    if (f.change?.mode === 'address') {
      changeMode.value = 'address';
      changeAddress.value = f.change.address;
    }
    rbf.value = f.rbf ?? true;
    if (f.path) {
      pathId.value = f.path.id;
      signNow.value = f.path.signNow ?? false;
    }
    name.value = f.name ?? '';
  }

  return {
    context, contextError, loading, rows, feeRate, preset, mode, coinControl, chosen, includeUnconfirmed, changeMode, changeAddress, rbf, locktime, pathId, signNow, name,
    preview, errors, previewError, creating, seed, unit, feeOrigin, touched, submitted, refused, shownErrors,
    load, applyPreset, typeRate, presetRate, form, runPreview, touch, errorAt, fillFromUri, create, reset, fromForm,
  };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useSendStore, import.meta.hot));
