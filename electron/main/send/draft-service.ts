// Drafts behind `drafts:*`: saving one with its recipients' labels (one transaction), listing,
// reopening (the view with who has signed), renaming, deleting, exporting the PSBT in the version a
// signer reads (v0 by default), and the draft's labels as BIP329 lines.
import { AppError } from '../../../shared/errors';
import { serializeBip329, type LabelRecord } from '../../../shared/bip329';
import { parseTx } from '../../../shared/bitcoin/tx';
import { formatSatPerVb } from '../../../shared/bitcoin/spend/feerate';
import type { DraftSummaryView, DraftView, SigningView } from '../../../shared/ipc/send';
import type { SendCore } from './core';
import type { DraftRow, DraftStore } from './drafts-store';

export class DraftService {
  constructor(private readonly core: SendCore) {}

  get #store(): DraftStore {
    return this.core.deps.drafts;
  }

  #profileId(): string {
    return this.core.profileWallet().profileId;
  }

  /** The recipients' labels go to the addresses they pay (BIP329 `addr`), with the draft, or nothing does. */
  save(d: Omit<DraftRow, 'updatedAt' | 'sentAt' | 'combined' | 'finalTx' | 'txid'>): Promise<DraftView> {
    this.#store.transaction(() => {
      this.#store.insert(d);
      for (const o of d.summary.outputs) {
        if (o.role === 'recipient' && o.address && o.label) this.core.deps.watch.setLabel({ profileId: d.profileId, wallet: d.wallet }, { type: 'addr', ref: o.address, label: o.label });
      }
    });
    return this.view(this.require(d.id));
  }

  require(id: string): DraftRow {
    const d = this.#store.get(this.#profileId(), id);
    if (!d) throw new AppError('input.invalid', 'This draft does not exist (any more) for this profile.', { field: 'draft' });
    return d;
  }

  summary(d: DraftRow): DraftSummaryView {
    return {
      id: d.id,
      name: d.name,
      status: d.status,
      wallet: d.wallet,
      unsignedTxid: d.unsignedTxid,
      txid: d.txid,
      sentSats: d.summary.sentSats,
      feeSats: d.summary.feeSats,
      recipients: d.summary.outputs.filter((o) => o.role === 'recipient').length,
      createdAt: d.createdAt,
      updatedAt: d.updatedAt,
    };
  }

  async signing(d: DraftRow): Promise<SigningView> {
    return (await this.core.deps.runner.run('send-combine', { psbts: [d.combined ?? d.psbt] })).signing;
  }

  async view(d: DraftRow, signing?: SigningView): Promise<DraftView> {
    const s = d.summary;
    let finalTx: DraftView['finalTx'] = null;
    if (d.finalTx) {
      const tx = parseTx(Uint8Array.from(Buffer.from(d.finalTx, 'hex')));
      const fee = BigInt(s.feeSats);
      finalTx = { hex: d.finalTx, txid: tx.txid, vsize: tx.vsize, feeRate: formatSatPerVb((fee * 1000n) / BigInt(tx.vsize)).replace(' sat/vB', '') };
    }
    return {
      ...this.summary(d),
      psbt: d.psbt,
      psbtVersion: s.psbtVersion,
      combined: d.combined,
      feeRate: s.feeRate,
      vsize: s.vsize,
      feePercent: s.feePercent,
      rbf: s.rbf,
      locktime: s.locktime,
      inputs: s.inputs,
      outputs: s.outputs,
      warnings: s.warnings as DraftView['warnings'],
      build: s.build,
      prevTxSources: s.prevTxSources,
      noKeyPaths: s.noKeyPaths,
      imports: this.#store.imports(d.id).map((i) => ({ source: i.source, importedAt: i.importedAt })),
      signing: signing ?? (await this.signing(d)),
      finalTx,
      finalCheck: s.finalCheck ?? null,
      replaces: d.replaces,
      replacedBy: this.#store.replacedBy(d.profileId, d.id),
      form: d.form,
      offline: s.offline,
      sentAt: d.sentAt,
      bump: s.bump ?? null,
      ...(s.path ? { path: s.path } : {}),
    };
  }

  list(): { drafts: DraftSummaryView[] } {
    return { drafts: this.#store.list(this.#profileId()).map((d) => this.summary(d)) };
  }

  get(id: string): Promise<DraftView> {
    return this.view(this.require(id));
  }

  rename(id: string, name: string): Promise<DraftView> {
    const d = this.require(id);
    this.#store.update(d.id, { name: name.trim() });
    return this.view(this.require(id));
  }

  delete(id: string): { deleted: boolean } {
    const d = this.require(id);
    if (d.status === 'sent') throw new AppError('input.invalid', 'This payment was broadcast and is not confirmed yet: its draft is kept until it confirms (it is how Spyglass follows it).', { field: 'draft' });
    return { deleted: this.#store.delete(d.profileId, d.id) };
  }

  async export(id: string, version: 0 | 2, which: 'unsigned' | 'combined'): Promise<{ base64: string; bytes: number; version: 0 | 2; fileName: string; notes: string[] }> {
    const d = this.require(id);
    const psbt = which === 'combined' ? (d.combined ?? d.psbt) : d.psbt;
    const r = await this.core.deps.runner.run('send-export', { psbt, version });
    const safe = d.name.replace(/[^A-Za-z0-9._ -]+/g, '').trim().replace(/\s+/g, '-').slice(0, 40) || 'payment';
    return { ...r, version, fileName: `${safe}-${d.unsignedTxid.slice(0, 8)}${which === 'combined' ? '-signed' : ''}.psbt` };
  }

  /** The draft's labels as BIP329 lines: the recipients' addresses; once sent, the transaction and its outputs too. */
  labels(id: string): { text: string; records: number } {
    const d = this.require(id);
    const recs: LabelRecord[] = [];
    for (const o of d.summary.outputs) {
      if (o.role === 'recipient' && o.address && o.label) recs.push({ type: 'addr', ref: o.address, label: o.label });
      if (d.txid && o.label) recs.push({ type: 'output', ref: `${d.txid}:${o.index}`, label: o.label });
    }
    if (d.txid) recs.push({ type: 'tx', ref: d.txid, label: d.name });
    return { text: serializeBip329(recs), records: recs.length };
  }
}
