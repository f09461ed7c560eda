// PSBT review (issue 4): the PSBT being reviewed, how it came in (paste, file, drop), main's review
// and Core's JSON, and the node cross-check. Main decodes; the renderer only turns files into text
// (binary .psbt → base64, recognised by the magic bytes 70 73 62 74 ff) and bytes back for export.
// Nothing here needs a connection: the review works offline, only the cross-check asks the node.
import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { PsbtCrosscheckReply, PsbtInputView, PsbtOutputView, PsbtReviewReply, PsbtReviewView, PsbtWarningCode, PsbtWarningView, WarningSeverity } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/errors';
import { LIMITS } from '../../../shared/limits';
import { REVIEW_PAGE_MAX } from '../../../shared/ipc/psbt';
import * as api from '../api/spyglass';
import { readFileBytes } from '../lib/download';
import { readRawTx } from '../../../shared/bitcoin/psbt/signer-answer';

/** The psbt channels accept at most this many characters of text (shared/ipc/contract.ts). */
export const MAX_PSBT_TEXT = LIMITS.psbt.chars;
/** A file larger than this is not read at all. */
export const MAX_PSBT_FILE = LIMITS.psbt.chars;
export const PSBT_MAGIC = Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff);

export type PsbtSource =
  | { kind: 'paste'; chars: number }
  /** Opened from a draft's page ("Open in Review PSBT"): the draft's PSBT as main exported it. */
  | { kind: 'draft'; name: string; version: 0 | 2 }
  | { kind: 'file' | 'drop'; name: string; size: number; binary: boolean };

// ——— pure helpers (tested in test/renderer/psbt-store.test.ts) ———

/** The file starts with the PSBT magic bytes: a binary .psbt, not base64 or hex text. */
export function isBinaryPsbt(bytes: Uint8Array): boolean {
  if (bytes.length < PSBT_MAGIC.length) return false;
  for (let i = 0; i < PSBT_MAGIC.length; i++) if (bytes[i] !== PSBT_MAGIC[i]) return false;
  return true;
}

/** Standard base64 with padding (btoa over chunks: a 10 MB PSBT must not overflow the call stack). */
export function bytesToBase64(bytes: Uint8Array): string {
  const CHUNK = 0x6000; // a multiple of 3: every chunk but the last encodes without padding
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const sub = bytes.subarray(i, i + CHUNK);
    let s = '';
    for (let j = 0; j < sub.length; j++) s += String.fromCharCode(sub[j]!);
    parts.push(btoa(s));
  }
  return parts.join('');
}

/** The bytes of base64 text (main's `base64`, already checked by Core's strict decoder). */
export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** "576 bytes", "1.4 kB", "10.2 MB" (decimal units, one decimal). */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

const MB = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} MB`;

function localError(message: string, detail: IpcError['detail'] = {}): IpcError {
  return { code: 'input.invalid', message, detail: { field: 'psbt', ...detail } };
}

const hexOfBytes = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** The pickers' file types: PSBTs (binary, base64, hex) and signed raw transactions (binary `.txn` or hex). */
export const SIGNER_FILE_ACCEPT = '.psbt,.txn,.txt,.hex,.b64,.base64,application/octet-stream,text/plain';

/**
 * The text of a file a signer wrote: a binary PSBT → base64; a binary raw transaction (a `.txn`) →
 * hex (main recognises it as a transaction); else UTF-8 text (base64 or hex), BOM removed.
 */
export function fileToPsbtText(bytes: Uint8Array, name: string): { ok: true; text: string; binary: boolean } | { ok: false; error: IpcError } {
  if (!isBinaryPsbt(bytes) && readRawTx(bytes)) return { ok: true, text: hexOfBytes(bytes), binary: true };
  if (isBinaryPsbt(bytes)) {
    const b64Length = 4 * Math.ceil(bytes.length / 3);
    if (b64Length > MAX_PSBT_TEXT) {
      return { ok: false, error: localError(`“${name}” is a binary PSBT of ${MB(bytes.length)}; as base64 it would be ${MB(b64Length)}, above the ${MB(MAX_PSBT_TEXT)} Spyglass accepts.`, { limit: MAX_PSBT_TEXT }) };
    }
    return { ok: true, text: bytesToBase64(bytes), binary: true };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = '\u0000';
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000e-\u001f\u007f]/.test(text)) {
    const head = Array.from(bytes.subarray(0, 5), (b) => b.toString(16).padStart(2, '0')).join(' ');
    return {
      ok: false,
      error: localError(`“${name}” is not a PSBT or a signed transaction: a binary PSBT starts with the bytes 70 73 62 74 ff (“psbt” and 0xff), this file starts with ${head || 'nothing'}; it is no raw transaction, and not base64 or hex text either.`),
    };
  }
  return { ok: true, text, binary: false };
}

/**
 * Core's compact JSON indented for reading. Only whitespace is added between tokens: every string
 * and number stays exactly as Core wrote it (0.00100000 is not turned into 0.001).
 */
export function indentJson(text: string, indent = '  '): string {
  const out: string[] = [];
  let depth = 0;
  let i = 0;
  const n = text.length;
  const newline = (): void => {
    out.push('\n', indent.repeat(depth));
  };
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      if (text[i + 1] === close) {
        out.push(c, close);
        i += 2;
        continue;
      }
      depth++;
      out.push(c);
      newline();
    } else if (c === '}' || c === ']') {
      depth--;
      newline();
      out.push(c);
    } else if (c === ',') {
      out.push(',');
      newline();
    } else if (c === ':') {
      out.push(': ');
    } else if (c !== ' ' && c !== '\n' && c !== '\r' && c !== '\t') {
      let j = i;
      while (j < n && !'{}[],:" \n\r\t'.includes(text[j]!)) j++;
      out.push(text.slice(i, j));
      i = j;
      continue;
    }
    i++;
  }
  return out.join('');
}

/** Short titles of the review's warning codes (shared/bitcoin/psbt-review.ts); the message says the rest. */
export const WARNING_TITLES: Record<PsbtWarningCode, string> = {
  'non-witness-utxo-txid-mismatch': 'UTXO data is for another transaction',
  'segwit-amount-mismatch': 'Input amounts disagree (segwit fee attack)',
  'fee-negative': 'Outputs exceed inputs',
  'fee-unknown': 'Fee unknown',
  'fee-rate-high': 'Fee rate too high',
  'fee-percent-high': 'Fee is a large share of the payment',
  'sighash-nonstandard': 'Sighash other than ALL',
  'input-not-watched': 'Inputs outside your watched set',
  'output-to-used-address': 'Payment to a used address',
  'dust-output': 'Dust output',
  'unknown-fields': 'Unknown fields',
  'proprietary-fields': 'Proprietary fields',
  'locktime-future': 'Locktime in the future',
  rbf: 'Replace-by-fee',
};

export const SEVERITY_LABELS: Record<WarningSeverity, string> = { danger: 'Danger', warning: 'Warning', info: 'Note' };

export const SEVERITY_RANK: Record<WarningSeverity, number> = { danger: 0, warning: 1, info: 2 };

/** Most severe first; the order main gave is kept within a severity. */
export function sortWarnings(ws: readonly PsbtWarningView[]): PsbtWarningView[] {
  return ws
    .map((w, i) => ({ w, i }))
    .sort((a, b) => SEVERITY_RANK[a.w.severity] - SEVERITY_RANK[b.w.severity] || a.i - b.i)
    .map((x) => x.w);
}

/** Distinct destinations of the external outputs (by address, or script for scripts without one). */
export function externalDestinations(r: PsbtReviewView): number {
  return r.summary.externalDestinations;
}

/** A file name for the export: the loaded file's stem, else spyglass-<txid prefix>. */
export function exportStem(source: PsbtSource | null, txid: string): string {
  if (source && (source.kind === 'file' || source.kind === 'drop')) {
    const stem = source.name.replace(/\.(psbt|txt|b64|base64|hex)$/i, '').replace(/\.(psbt|base64)$/i, '');
    // eslint-disable-next-line no-control-regex
    const clean = stem.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').trim();
    if (clean !== '') return clean;
  }
  return `spyglass-${txid.slice(0, 12)}`;
}

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

  /** Sets (or, when empty, removes) the `addr` label of a watched output's address. */
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
