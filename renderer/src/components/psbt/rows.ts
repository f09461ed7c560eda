// Cheap cells for the PSBT tables, which can hold thousands of rows: amounts as plain text in the
// unit of the global toggle (no component per cell) and one copy state per table instead of a
// CopyButton per row.
import { ref, type Ref } from 'vue';
import { useToastStore } from '../../stores/toast';
import { useWatchStore } from '../../stores/watch';
import { copyText } from '../../lib/download';
import { formatAmount, unitName } from '../../lib/format';

export function useAmounts(): { text: (sats: string | null) => string; other: (sats: string | null) => string | undefined } {
  const watch = useWatchStore();
  return {
    text: (sats) => (sats === null ? '—' : formatAmount(BigInt(sats), watch.unit)),
    other: (sats) => {
      if (sats === null) return undefined;
      const u = watch.unit === 'btc' ? 'sats' : 'btc';
      return `${formatAmount(BigInt(sats), u)} ${unitName(u)}`;
    },
  };
}

export function useRowCopy(): { copied: Ref<string | null>; copy: (value: string) => Promise<void> } {
  const toast = useToastStore();
  const copied = ref<string | null>(null);
  let timer: ReturnType<typeof setTimeout> | undefined;
  async function copy(value: string): Promise<void> {
    if (await copyText(value)) {
      copied.value = value;
      clearTimeout(timer);
      timer = setTimeout(() => (copied.value = null), 1800);
    } else {
      toast.info('The clipboard refused: select the text and press Ctrl+C.');
    }
  }
  return { copied, copy };
}
