// The Send form (#15): what the node offers (coins, fee presets, limits — or the last of it, offline),
// the rows and options the person fills in, a preview from main after each change (selection, fee,
// vsize, warnings, or every field error), and the create call that builds and saves the draft.
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
  const name = ref('');
  const preview = shallowRef<SendPreviewView | null>(null);
  const errors = ref<FieldError[]>([]);
  const previewError = ref<IpcError | null>(null);
  const creating = ref(false);
  /** Fixes the random choices (tests set it from the URL); undefined: random. */
  const seed = ref<number | undefined>(undefined);

  const unit = computed(() => useWatchStore().unit);

  function presetRate(id: FeePresetId, m: 'economical' | 'conservative'): string | null {
    const p = context.value?.presets.find((x) => x.id === id);
    return p ? p[m].satVb : null;
  }

  function applyPreset(): void {
    if (preset.value === 'custom') return;
    const r = presetRate(preset.value, mode.value);
    if (r !== null) feeRate.value = r;
  }

  async function load(): Promise<void> {
    loading.value = true;
    try {
      context.value = await api.sendContext();
      contextError.value = null;
      const def = useSettingsStore().view?.app.defaultFeePreset ?? '30-min';
      if (feeRate.value === '') {
        preset.value = presetRate(def, mode.value) !== null ? def : 'custom';
        applyPreset();
      }
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
    };
  }

  let timer: ReturnType<typeof setTimeout> | null = null;
  let asked = 0;
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
      previewError.value = null;
      if (r.ok) {
        preview.value = r.preview;
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
    timer = setTimeout(() => void runPreview(), 250);
  }
  watch([rows, feeRate, coinControl, () => [...chosen], includeUnconfirmed, changeMode, changeAddress, rbf, locktime, unit], schedule, { deep: true });

  /** The form's errors at one place (row -1: the form's own fields). */
  function errorAt(row: number, field: FieldError['field']): string | null {
    return errors.value.find((e) => e.row === row && e.field === field)?.message ?? null;
  }

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

  async function create(): Promise<{ id: string } | null> {
    creating.value = true;
    try {
      const r = await api.sendCreate(form());
      if (!r.ok) {
        errors.value = r.errors;
        return null;
      }
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
    preview.value = null;
    errors.value = [];
  }

  /** Fills the form from a draft's (reopened as a new draft: "edit"). */
  function fromForm(f: SendForm): void {
    reset();
    rows.value = f.rows.map((r) => (r.kind === 'pay' ? payRow({ address: r.address, amount: r.amount, sendMax: r.sendMax ?? false, label: r.label ?? '' }) : dataRow({ data: r.data, encoding: r.encoding })));
    feeRate.value = f.feeRate;
    preset.value = 'custom';
    if (f.coins) {
      coinControl.value = true;
      for (const c of f.coins) chosen.add(c);
    }
    if (f.change?.mode === 'address') {
      changeMode.value = 'address';
      changeAddress.value = f.change.address;
    }
    rbf.value = f.rbf ?? true;
    name.value = f.name ?? '';
  }

  return {
    context, contextError, loading, rows, feeRate, preset, mode, coinControl, chosen, includeUnconfirmed, changeMode, changeAddress, rbf, locktime, name,
    preview, errors, previewError, creating, seed, unit,
    load, applyPreset, presetRate, form, runPreview, errorAt, fillFromUri, create, reset, fromForm,
  };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useSendStore, import.meta.hot));
