// The Balances table's columns and their widths (components/balances/BalancesTable.vue): label ·
// address · type · received · confirmed · pending · UTXOs · conf. · last block · actions. Amount columns are never narrower than the widest
// total (the largest figure in the table), so an amount is never cut short; everything else has a
// fixed width or shares what is left. A narrow window gives up the last block, then shortens the
// address (the whole one is in its title, link and Copy), then the total received, the type, the UTXO
// count: label, address, confirmed, pending, confirmations and the actions always stay in view (fit-columns.ts).
import { computed, ref, type Ref } from 'vue';
import { fitColumns, type FitColumn, type FitStep } from './fit-columns';

/** Longer addresses (P2WSH, P2TR) are shortened in the middle; the full one is in the title, the link and Copy. */
export const ADDRESS_CHARS = 44;
const ADDRESS_CHARS_COMPACT = 26;
/** Advance of a 12.5px monospace character, rounded up. */
export const MONO_PX = 7.6;
const addressPx = (chars: number): number => Math.ceil(chars * MONO_PX) + 46;
const FIXED = { label: 110, address: addressPx(ADDRESS_CHARS), type: 72, utxos: 64, conf: 58, block: 80, actions: 112 };
/** The " pending" (2xs type) after a pending amount, and the cell's padding. */
export const PENDING_MARK_PX = 58;
const fixedTrack = (px: number): { min: number; track: string } => ({ min: px, track: `${px}px` });
const STEPS: FitStep[] = [{ drop: 'activity' }, { compact: 'address' }, { drop: 'received' }, { drop: 'type' }, { drop: 'utxos' }];

/**
 * The grid for amounts `amountPx` wide and pending marks (the amount without trailing zeros and the
 * word: "+0.1 pending") `pendingPx` wide; `width` is set from VirtualTable's `width` event.
 */
export function useBalancesGrid(amountPx: Ref<number>, pendingPx: Ref<number>) {
  const spec = computed<FitColumn[]>(() => [
    { key: 'label', min: FIXED.label, track: `minmax(${FIXED.label}px, 1.3fr)` },
    { key: 'address', ...fixedTrack(FIXED.address), compact: fixedTrack(addressPx(ADDRESS_CHARS_COMPACT)) },
    { key: 'type', ...fixedTrack(FIXED.type) },
    { key: 'received', min: amountPx.value, track: `minmax(${amountPx.value}px, 0.9fr)` },
    { key: 'balance', min: amountPx.value, track: `minmax(${amountPx.value}px, 0.9fr)` },
    { key: 'pending', min: pendingPx.value, track: `minmax(${pendingPx.value}px, 0.9fr)` },
    { key: 'utxos', ...fixedTrack(FIXED.utxos) },
    { key: 'confirmations', ...fixedTrack(FIXED.conf) },
    { key: 'activity', ...fixedTrack(FIXED.block) },
    { key: 'actions', ...fixedTrack(FIXED.actions) },
  ]);
  /** The grid's width; unknown (everything shown) until mounted. */
  const width = ref(Number.POSITIVE_INFINITY);
  const grid = computed(() => fitColumns(spec.value, STEPS, width.value));
  return {
    width,
    grid,
    columns: computed(() => grid.value.template),
    minWidth: computed(() => `${grid.value.minWidth}px`),
    /** Characters of an address shown: fewer when its column is compact (and 7 fewer again beside a tag). */
    addressChars: computed(() => (grid.value.isCompact('address') ? ADDRESS_CHARS_COMPACT : ADDRESS_CHARS)),
    /** The footer's "Total" spans the columns before the amounts. */
    totalSpan: computed(() => ['label', 'address', 'type'].filter((k) => grid.value.has(k)).length),
  };
}
