// PSBT review (issue 4): the PSBT being reviewed, how it came in (paste, file, drop), main's review
// and Core's JSON, and the node cross-check. Main decodes; the renderer only turns files into text
// (binary .psbt → base64, recognised by the magic bytes 70 73 62 74 ff) and bytes back for export.
// Nothing here needs a connection: the review works offline, only the cross-check asks the node.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { PsbtCrosscheckReply, PsbtInputView, PsbtOutputView, PsbtReviewReply, WarningSeverity } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/errors';
import { REVIEW_PAGE_MAX } from '../../../shared/ipc/psbt';
import * as api from '../api/spyglass';
import { readFileBytes } from '../lib/download';
import { MAX_PSBT_FILE, MAX_PSBT_TEXT, MB, base64ToBytes, fileToPsbtText, localError, type PsbtSource } from './psbt-files';
import { sortWarnings } from './psbt-display';

// The store's module is where the screens and tests import these from.
export {
  MAX_PSBT_FILE,
  MAX_PSBT_TEXT,
  PSBT_MAGIC,
  SIGNER_FILE_ACCEPT,
  base64ToBytes,
  bytesToBase64,
  exportStem,
  fileToPsbtText,
  isBinaryPsbt,
  type PsbtSource,
} from './psbt-files';
export { SEVERITY_LABELS, SEVERITY_RANK, WARNING_TITLES, externalDestinations, formatBytes, indentJson, sortWarnings } from './psbt-display';

export const usePsbtStore = defineStore('psbt', () => {
  /** The paste box. */
  const input = ref('');
  const source = shallowRef<PsbtSource | null>(null);
  const loading = ref(false);
  const reply = shallowRef<PsbtReviewReply | null>(null);
  const error = ref<IpcError | null>(null);

  const crosschecking = ref(false);
  const crosscheck = shallowRef<PsbtCrosscheckReply | null>(null);
  const crosscheckError = ref<IpcError | null>(null);
  /** The last failed label save or conversion, for a toast. */
  const actionError = ref<IpcError | null>(null);
  /** The loaded PSBT was converted here from another version (what export and copy now give). */
  /** `notes`: what version 0 holds in another form (required locktimes → nLockTime, modifiable flags dropped). */
  const converted = ref<{ from: 0 | 2; to: 0 | 2; notes: string[] } | null>(null);
  const converting = ref(false);

  /**
   * The review's rows loaded so far: the reply brings the first page, `loadRows` asks main for more
   * (a 100,000-input review is not one reply). `rowsLoading`: a page is on its way.
   */
  const rows = shallowRef<{ inputs: PsbtInputView[]; outputs: PsbtOutputView[] }>({ inputs: [], outputs: [] });
  const rowsLoading = ref<{ inputs: boolean; outputs: boolean }>({ inputs: false, outputs: false });
  /** The text the shown review was made of (a page asks the worker to review it again if its copy is gone). */
  let reviewedText = '';

  const warnings = computed(() => (reply.value ? sortWarnings(reply.value.review.warnings) : []));
  const counts = computed(() => {
    const c: Record<WarningSeverity, number> = { danger: 0, warning: 0, info: 0 };
    for (const w of warnings.value) c[w.severity]++;
    return c;
  });
  /** The rows each severity points at, for marking table rows. */
  const flagged = computed(() => {
    const inputs = new Map<number, WarningSeverity>();
    const outputs = new Map<number, WarningSeverity>();
    for (const w of warnings.value) {
      if (w.severity === 'info') continue;
      for (const i of w.inputs) if (!inputs.has(i)) inputs.set(i, w.severity);
      for (const o of w.outputs) if (!outputs.has(o)) outputs.set(o, w.severity);
    }
    return { inputs, outputs };
  });

  let seq = 0;

  function reset(): void {
    reply.value = null;
    rows.value = { inputs: [], outputs: [] };
    rowsLoading.value = { inputs: false, outputs: false };
    reviewedText = '';
    converted.value = null;
    error.value = null;
    crosscheck.value = null;
    crosscheckError.value = null;
    crosschecking.value = false;
  }

  /** Sends text to main for review; the size is checked first. A later load wins over an earlier one. */
  async function decodeText(text: string, from: PsbtSource): Promise<boolean> {
    const mine = ++seq;
    reset();
    source.value = from;
    if (text.trim() === '') {
      error.value = localError('Paste a PSBT (base64 or hex), open a .psbt file or drop one on this page.');
      return false;
    }
    if (text.length > MAX_PSBT_TEXT) {
      error.value = localError(`The PSBT text is ${MB(text.length)}, above the ${MB(MAX_PSBT_TEXT)} Spyglass accepts. Nothing was sent for decoding.`, { limit: MAX_PSBT_TEXT });
      return false;
    }
    loading.value = true;
    try {
      const r = await api.psbtReview(text);
      if (mine !== seq) return false;
      reply.value = r;
      rows.value = { inputs: r.review.inputs, outputs: r.review.outputs };
      reviewedText = text;
      return true;
    } catch (e) {
      if (mine !== seq) return false;
      error.value = api.asIpcError(e);
      return false;
    } finally {
      if (mine === seq) loading.value = false;
    }
  }

  /** Reviews a draft's PSBT, opened from its page (the source names the draft, not "pasted text"). */
  function loadDraft(base64: string, name: string, version: 0 | 2): Promise<boolean> {
    input.value = '';
    return decodeText(base64, { kind: 'draft', name, version });
  }

  /** Decodes what is in the paste box. */
  function decodeInput(): Promise<boolean> {
    return decodeText(input.value, { kind: 'paste', chars: input.value.length });
  }

  /** Reads a picked or dropped file (binary .psbt or base64/hex text) and decodes it. */
  async function loadFile(file: File, via: 'file' | 'drop' = 'file'): Promise<boolean> {
    if (file.size > MAX_PSBT_FILE) {
      ++seq;
      reset();
      source.value = { kind: via, name: file.name, size: file.size, binary: false };
      error.value = localError(`“${file.name}” is ${MB(file.size)}, above the ${MB(MAX_PSBT_FILE)} Spyglass reads. Nothing was sent for decoding.`, { limit: MAX_PSBT_FILE });
      return false;
    }
    let bytes: Uint8Array;
    try {
      bytes = await readFileBytes(file);
    } catch (e) {
      ++seq;
      reset();
      error.value = localError(e instanceof Error ? e.message : String(e));
      return false;
    }
    return loadBytes(bytes, file.name, via);
  }

  function loadBytes(bytes: Uint8Array, name: string, via: 'file' | 'drop'): Promise<boolean> {
    const t = fileToPsbtText(bytes, name);
    const from: PsbtSource = { kind: via, name, size: bytes.length, binary: t.ok && t.binary };
    if (!t.ok) {
      ++seq;
      reset();
      source.value = from;
      error.value = t.error;
      return Promise.resolve(false);
    }
    return decodeText(t.text, from);
  }

  /**
   * Converts the loaded PSBT to version 0 or 2 (main's psbt:convert, as Core writes each; to 0 as BIP370 says) and
   * reviews the result in its place; export and copy then give the converted bytes.
   */
  async function convertTo(to: 0 | 2): Promise<boolean> {
    const r = reply.value;
    if (r === null || r.version === to || converting.value) return false;
    converting.value = true;
    actionError.value = null;
    try {
      const c = await api.psbtConvert(r.base64, to);
      // The version it was loaded as (converting back to it is not a conversion any more).
      const original = converted.value?.from ?? r.version;
      const ok = await decodeText(c.base64, source.value ?? { kind: 'paste', chars: c.base64.length });
      if (ok) converted.value = to === original ? null : { from: original, to, notes: c.notes };
      return ok;
    } catch (e) {
      actionError.value = api.asIpcError(e);
      return false;
    } finally {
      converting.value = false;
    }
  }

  /** Asks the connected node's decodepsbt and compares (main says when there is no node). */
  async function runCrosscheck(): Promise<PsbtCrosscheckReply | null> {
    const r = reply.value;
    if (r === null || crosschecking.value) return null;
    const mine = seq;
    crosschecking.value = true;
    crosscheckError.value = null;
    try {
      const c = await api.psbtCrosscheck(r.base64, 'base64');
      if (mine !== seq) return null;
      crosscheck.value = c;
      return c;
    } catch (e) {
      if (mine !== seq) return null;
      crosscheckError.value = api.asIpcError(e);
      crosscheck.value = null;
      return null;
    } finally {
      if (mine === seq) crosschecking.value = false;
    }
  }

  /** The PSBT's bytes exactly as loaded (from main's base64). */
  function bytes(): Uint8Array | null {
    return reply.value ? base64ToBytes(reply.value.base64) : null;
  }

  /** Loads the review's rows on `side` up to row `upto` (exclusive; capped at the total), a page at a time. */
  async function loadRows(side: 'inputs' | 'outputs', upto: number): Promise<boolean> {
    const r = reply.value;
    if (r === null || rowsLoading.value[side]) return false;
    const mine = seq;
    const total = side === 'inputs' ? r.review.summary.inputCount : r.review.summary.outputCount;
    const end = Math.min(upto, total);
    rowsLoading.value = { ...rowsLoading.value, [side]: true };
    try {
      while (mine === seq && rows.value[side].length < end) {
        const from = rows.value[side].length;
        const ask = { key: r.reviewKey, encoding: 'auto' as const, side, from, count: Math.min(REVIEW_PAGE_MAX, end - from) };
        let page;
        try {
          page = await api.psbtReviewPage(ask);
        } catch (e) {
          // The worker reviewed another PSBT since: send the text so it reviews this one again.
          if (api.asIpcError(e).detail?.field !== 'key') throw e;
          page = await api.psbtReviewPage({ ...ask, psbt: reviewedText });
        }
        if (mine !== seq) return false;
        const got = page[side];
        if (got.length === 0) break;
        rows.value = side === 'inputs' ? { ...rows.value, inputs: [...rows.value.inputs, ...page.inputs] } : { ...rows.value, outputs: [...rows.value.outputs, ...page.outputs] };
      }
      return mine === seq;
    } catch (e) {
      if (mine === seq) actionError.value = api.asIpcError(e);
      return false;
    } finally {
      if (mine === seq) rowsLoading.value = { ...rowsLoading.value, [side]: false };
    }
  }

  /** Core's JSON of the review: in the reply, or asked of main when it was too long for it (58 MB for 100,000 inputs). */
  async function coreJson(): Promise<string | null> {
    const r = reply.value;
    if (r === null) return null;
    if (r.coreJson !== null || r.coreJsonChars === 0) return r.coreJson;
    const ask = { key: r.reviewKey, encoding: 'auto' as const };
    try {
      return (await api.psbtReviewCoreJson(ask)).json;
    } catch (e) {
      if (api.asIpcError(e).detail?.field !== 'key') throw e;
      return (await api.psbtReviewCoreJson({ ...ask, psbt: reviewedText })).json;
    }
  }

  /** Sets (or, when empty, removes) the `addr` label of a watched output's address. */
  async function setOutputLabel(address: string, text: string): Promise<boolean> {
    const label = text.trim();
    actionError.value = null;
    try {
      await api.setLabel({ type: 'addr', ref: address, label });
    } catch (e) {
      actionError.value = api.asIpcError(e);
      return false;
    }
    const r = reply.value;
    if (r !== null) {
      const relabel = (o: PsbtOutputView): PsbtOutputView => (o.address === address ? { ...o, label: label === '' ? null : label } : o);
      reply.value = { ...r, review: { ...r.review, outputs: r.review.outputs.map(relabel) } };
      rows.value = { ...rows.value, outputs: rows.value.outputs.map(relabel) };
    }
    return true;
  }

  function clear(): void {
    ++seq;
    reset();
    loading.value = false;
    source.value = null;
    input.value = '';
  }

  // A review is made against the active profile's watched set: another profile's review is not shown.
  let reviewedFor: string | null | undefined;
  api.onConnectionChanged((st) => {
    const pid = st.state === 'none' ? null : st.profileId;
    if (reviewedFor !== undefined && pid !== reviewedFor) {
      ++seq;
      reset();
      loading.value = false;
    }
    reviewedFor = pid;
  });

  return {
    input, source, loading, reply, error, loadDraft, crosschecking, crosscheck, crosscheckError, actionError, converted, converting, convertTo,
    warnings, counts, flagged, rows, rowsLoading, loadRows, coreJson,
    decodeText, decodeInput, loadFile, loadBytes, runCrosscheck, bytes, setOutputLabel, clear,
  };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(usePsbtStore, import.meta.hot));
