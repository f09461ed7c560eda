// The way back from the signers (#16): signed PSBTs (base64 or hex, v0 or v2) or a fully signed raw
// transaction are matched to their draft by the unsigned transaction, kept (each once), combined with
// the draft (another PSBT version converted first), and reported per input and cosigner; finalize
// verifies every signature offline, finalizes and extracts, and asks the node's finalizepsbt too.
import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../../shared/errors';
import { assertSize } from '../../../shared/limits';
import { analyzePsbt, explainPsbtError, parsePsbt, psbtTextToBytes, rawTxFromText, type Psbt } from '../../../shared/bitcoin/psbt';
import { parseTx, serializeTx } from '../../../shared/bitcoin/tx';
import type { DraftView, ImportReply } from '../../../shared/ipc/send';
import { encodeBase64 } from '../../../shared/bitcoin/psbt';
import type { SendCore } from './core';
import type { DraftService } from './draft-service';
import type { DraftRow } from './drafts-store';
import { psbtB64, readPsbt, unsignedTxidOf } from './jobs';
import { parseUrPart, UrScanError, type UrPart } from '../psbt/ur-part';
import { InlineScanRunner, type UrScanRunner } from '../psbt/scan-runner';
import type { ScanProgressView } from '../../../shared/ipc/send';

const digestOf = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/**
 * A signed raw transaction (hex, or base64; a binary `.txn` arrives as hex), else null; an unsigned one
 * is refused. A PSBT's text (hex "70736274ff…", base64 "cHNidP8…") is not one (its own cap applies);
 * anything else over the raw-transaction cap (shared/limits.ts) is refused unparsed.
 */
export function rawTx(text: string): Uint8Array | null {
  const t = text.trim();
  if (/^70736274ff/i.test(t) || t.startsWith('cHNidP8')) return null;
  assertSize('rawTx', t, 'psbt', 'This transaction');
  const raw = rawTxFromText(t);
  if (!raw) return null;
  if (!raw.signed) throw new AppError('input.invalid', 'This is an unsigned raw transaction, not a signed one or a PSBT: bring back what the signer wrote after signing.', { field: 'psbt' });
  return raw.bytes;
}

/** A PSBT's bytes read, or why not: Spyglass's words first, Core's decodepsbt text as the detail. */
function readSignedPsbt(bytes: Uint8Array): Psbt {
  const r = parsePsbt(bytes);
  if (r.ok) return r.psbt;
  throw new AppError('input.invalid', explainPsbtError(r.message, bytes) ?? `This PSBT cannot be read: ${r.message}`, { field: 'psbt', core: r.message });
}

/** The draft's PSBT with each input's final scriptSig and witness taken from a signed transaction. */
function withFinalInputs(p: Psbt, txBytes: Uint8Array): Psbt {
  const tx = parseTx(txBytes);
  return {
    ...p,
    inputs: p.inputs.map((i, k) => {
      const vin = tx.vin[k]!;
      return {
        ...i,
        partialSigs: new Map(),
        hdKeypaths: new Map(),
        tapBip32: new Map(),
        tapScriptSigs: new Map(),
        tapKeySig: undefined,
        redeemScript: undefined,
        witnessScript: undefined,
        ...(vin.scriptSig.length ? { finalScriptSig: vin.scriptSig } : {}),
        ...(vin.witness.length ? { finalScriptWitness: vin.witness } : {}),
      };
    }),
  };
}

export class SignService {
  /** The last answer of each scan (at most 8): what a refused frame leaves on screen. */
  readonly #last = new Map<string, ScanProgressView>();
  readonly #scans: UrScanRunner;

  constructor(
    private readonly core: SendCore,
    private readonly drafts: DraftService,
  ) {
    this.#scans = core.deps.scans ?? new InlineScanRunner();
  }

  #profileId(): string {
    return this.core.profileWallet().profileId;
  }

  #draftFor(txid: string, wanted: DraftRow | null, what: 'PSBT' | 'signed transaction' = 'PSBT'): DraftRow {
    const d = wanted?.unsignedTxid === txid ? wanted : this.core.deps.drafts.byUnsignedTxid(this.#profileId(), txid);
    if (wanted && d !== wanted) {
      const other = d ? `It belongs to your draft “${d.name}”: open it there.` : 'No draft of this profile has it.';
      throw new AppError('input.invalid', `This is the ${what} of another transaction (${txid.slice(0, 16)}…), not of this draft (${wanted.unsignedTxid.slice(0, 16)}…). ${other}`, { field: 'psbt', draftId: d?.id ?? null });
    }
    if (!d) throw new AppError('input.invalid', `No draft of this profile has this transaction (${txid.slice(0, 16)}…): it was composed elsewhere, or its draft was deleted. Open it in Review PSBT to look at it.`, { field: 'psbt' });
    return d;
  }

  async import(texts: ReadonlyArray<{ text: string; source: string }>, id?: string): Promise<ImportReply> {
    const wanted = id ? this.drafts.require(id) : null;
    const results: ImportReply['results'] = [];
    let target: DraftRow | null = wanted;
    for (const { text, source } of texts) {
      try {
        const raw = rawTx(text);
        if (raw) {
          const tx = parseTx(raw);
          const stripped = serializeTx({ ...tx, vin: tx.vin.map((i) => ({ ...i, scriptSig: new Uint8Array(0), witness: [] })) }, { witness: false });
          const d = this.#draftFor(parseTx(stripped).txid, target, 'signed transaction');
          const p = withFinalInputs(readPsbt(d.psbt), raw);
          if (analyzePsbt(p).next !== 'extractor') throw new AppError('input.invalid', 'This signed transaction does not verify against the coins it spends (a signature or script is wrong, or it is not fully signed).', { field: 'psbt' });
          this.core.deps.drafts.update(d.id, { combined: psbtB64(p), finalTx: Buffer.from(raw).toString('hex'), status: d.status === 'sent' ? 'sent' : 'final' });
          results.push({ source, ok: true, message: `A fully signed transaction (${tx.txid.slice(0, 16)}…) of the draft “${d.name}”: every input verifies, ready to broadcast` });
          target = d;
          continue;
        }
        const t = psbtTextToBytes(text, 'auto');
        if (!t.ok) throw new AppError('input.invalid', `Not a PSBT or a signed transaction: ${t.message}`, { field: 'psbt' });
        const p = readSignedPsbt(t.bytes);
        const d = this.#draftFor(unsignedTxidOf(p), target);
        const digest = digestOf(t.bytes);
        if (this.core.deps.drafts.hasImport(d.id, digest)) throw new AppError('input.invalid', 'This very PSBT was imported before: nothing new in it.', { field: 'psbt' });
        const before = (await this.drafts.signing(d)).inputs.reduce((a, i) => a + i.signed, 0);
        const all = [d.psbt, ...this.core.deps.drafts.imports(d.id).map((i) => i.psbt), encodeBase64(t.bytes)];
        const c = await this.core.deps.runner.run('send-combine', { psbts: all });
        const after = c.signing.inputs.reduce((a, i) => a + i.signed, 0);
        this.core.deps.drafts.transaction(() => {
          this.core.deps.drafts.addImport(d.id, digest, encodeBase64(t.bytes), source);
          const status = d.status === 'sent' || d.status === 'confirmed' ? d.status : c.signing.complete ? 'signed' : after > 0 ? 'partial' : 'unsigned';
          this.core.deps.drafts.update(d.id, { combined: c.combined, status });
        });
        const added = after - before;
        const last = c.dropped.filter((x) => x.startsWith(`signed PSBT ${all.length - 1}:`));
        if (last.length) {
          results.push({ source, ok: false, message: `Kept, but ${last.length === 1 ? 'a signature does not verify and was left out' : `${last.length} signatures do not verify and were left out`}: ${last.map((x) => x.replace(/^signed PSBT \d+: /, '')).join('; ')}. Have it signed again.` });
          target = d;
          continue;
        }
        const fps = [...new Set(c.signing.inputs.flatMap((i) => i.keys.filter((k) => k.signed).map((k) => k.fingerprint ?? k.pubkey.slice(0, 8))))];
        results.push({ source, ok: true, message: `PSBT v${p.version}: ${added > 0 ? `${added} new signature${added === 1 ? '' : 's'}` : 'no new signature'}; signed so far by ${fps.join(', ') || 'nobody'}. ${c.signing.text}` });
        target = d;
      } catch (e) {
        if (!isAppError(e)) throw e;
        const core = e.detail?.core;
        results.push({ source, ok: false, message: e.message, ...(typeof core === 'string' ? { detail: `decodepsbt: ${core}` } : {}) });
      }
    }
    if (!target) throw new AppError('input.invalid', results.map((r) => `${r.source}: ${r.message}`).join(' '), { field: 'psbt' });
    return { draft: await this.drafts.get(target.id), results };
  }

  /** Verifies, finalizes and extracts; the node's finalizepsbt must agree when it can be asked. */
  async finalize(id: string): Promise<DraftView> {
    const d = this.drafts.require(id);
    if (d.finalTx) return this.drafts.get(id);
    const psbt = d.combined ?? d.psbt;
    const f = await this.core.deps.runner.run('send-finalize', { psbt });
    if (f.refused.length) throw new AppError('input.invalid', `Not finalized: ${f.refused.length === 1 ? 'a signature does not' : `${f.refused.length} signatures do not`} verify — ${f.refused.join('; ')}. Have ${f.refused.length === 1 ? 'that input' : 'those inputs'} signed again.`, { field: 'signatures' });
    if (!f.complete || !f.txHex) {
      const signing = await this.drafts.signing(d);
      throw new AppError('input.invalid', `Not enough signatures to finalize: ${signing.text}.`, { field: 'signatures' });
    }
    const check = await this.#nodeFinalize(psbt, f.txHex);
    if (check.differs) throw new AppError('input.invalid', `The node's finalizepsbt extracts another transaction than Spyglass: not finalized. ${check.note}`, { field: 'signatures' });
    this.core.deps.drafts.update(d.id, { combined: f.psbt, finalTx: f.txHex, status: d.status === 'sent' ? 'sent' : 'final', summary: { ...d.summary, finalCheck: check.note } });
    this.core.deps.log.info(`send: draft ${d.id} finalized (${f.txid}); node check: ${check.note}`);
    return this.drafts.get(id);
  }

  async #nodeFinalize(psbt: string, txHex: string): Promise<{ differs: boolean; note: string }> {
    const conn = this.core.deps.services.activeConnection();
    if (!conn) return { differs: false, note: 'finalized offline: the node was not asked' };
    try {
      const r = await conn.rpc.call<{ hex?: string; complete: boolean }>('finalizepsbt', [psbt, true], { wallet: false, timeoutMs: 120_000 });
      if (!r.complete || r.hex !== txHex) return { differs: true, note: r.complete ? `node: ${r.hex?.slice(0, 32)}…` : 'the node says it is not complete' };
      return { differs: false, note: `your node's finalizepsbt extracts the same transaction` };
    } catch (e) {
      return { differs: false, note: `the node could not check it: ${isAppError(e) ? e.message : 'no answer'}` };
    }
  }

  /**
   * One decoded QR text of an animated ur:crypto-psbt: progress, and the PSBT once whole. The text is
   * checked here first (ur-part.ts: form, type, numbers within shared/limits.ts, bytewords, the part's
   * header), so a frame no PSBT could have is refused before any decoder sees it; a part that passed goes
   * to the scan worker (scan-runner.ts), which decodes off this thread.
   */
  async scanFrame(session: string, text: string): Promise<ScanProgressView> {
    const last = this.#last.get(session) ?? { progress: 0, received: 0, expected: null, done: false, psbt: null, error: null, errorCode: null };
    let part: UrPart;
    try {
      part = parseUrPart(text);
    } catch (e) {
      if (!(e instanceof UrScanError)) throw e;
      return { ...last, done: false, psbt: null, error: e.message, errorCode: e.code };
    }
    let reply: ScanProgressView;
    try {
      reply = await this.#scans.scan(session, part);
    } catch (e) {
      if (!(e instanceof UrScanError)) throw e;
      this.#last.delete(session);
      return { progress: 0, received: 0, expected: null, done: false, psbt: null, error: e.message, errorCode: e.code };
    }
    this.#last.delete(session);
    if (!reply.done) {
      if (this.#last.size >= 8) this.#last.delete(this.#last.keys().next().value!);
      this.#last.set(session, { ...reply, error: null, errorCode: null });
    }
    return reply;
  }
}
