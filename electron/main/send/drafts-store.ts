// The `drafts` and `draft_imports` tables (schema 60): one row per unsigned transaction a profile
// composed, with its filled PSBT, the form, a summary, and what came back from the signers.
import type { DraftStatus, PathPreviewView, SendForm } from '../../../shared/ipc/send';
import type { BumpInfoView } from '../../../shared/ipc/bump';
import { randomBytes } from 'node:crypto';
import type { Database } from '../store/db';

/** What a draft keeps besides its PSBT: enough to list it, show it and rebuild its views. */
export interface DraftSummary {
  feeSats: string;
  feeRate: string;
  vsize: number;
  feePercent: string;
  sentSats: string;
  rbf: boolean;
  locktime: number;
  psbtVersion: 0 | 2;
  changeIndex: number | null;
  outputs: Array<{ index: number; role: 'recipient' | 'change' | 'data'; address: string | null; amountSats: string; label: string; dataHex: string | null }>;
  inputs: Array<{ outpoint: string; address: string; amountSats: string; type: string | null; label: string; unconfirmed: boolean }>;
  warnings: Array<{ code: string; severity: 'warning' | 'info'; message: string; rows: number[] }>;
  build: { nodeAvailable: boolean; reason: string | null; identical: boolean; version: 0 | 2; node: string | null; differences: Array<{ path: string; offline: string | null; node: string | null }> };
  prevTxSources: { node: number; index: number; cache: number };
  noKeyPaths: number[];
  offline: boolean;
  /** The node's finalizepsbt of the same PSBT: agreed, or why it was not asked. */
  finalCheck?: string;
  /** A fee bump of a wallet transaction (electron/main/send/bump-any.ts). */
  bump?: BumpInfoView;
  /** The spending path taken (multi-path wallets), with from when it can be broadcast. */
  path?: PathPreviewView;
}

export interface DraftRow {
  id: string;
  profileId: string;
  wallet: string;
  name: string;
  status: DraftStatus;
  unsignedTxid: string;
  psbt: string;
  combined: string | null;
  finalTx: string | null;
  txid: string | null;
  form: SendForm;
  summary: DraftSummary;
  replaces: string | null;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
}

interface Raw {
  id: string;
  profile_id: string;
  node_wallet: string;
  name: string;
  status: DraftStatus;
  unsigned_txid: string;
  psbt: string;
  combined: string | null;
  final_tx: string | null;
  txid: string | null;
  form: string;
  summary: string;
  replaces: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
}

const toRow = (r: Raw): DraftRow => ({
  id: r.id,
  profileId: r.profile_id,
  wallet: r.node_wallet,
  name: r.name,
  status: r.status,
  unsignedTxid: r.unsigned_txid,
  psbt: r.psbt,
  combined: r.combined,
  finalTx: r.final_tx,
  txid: r.txid,
  form: JSON.parse(r.form) as SendForm,
  summary: JSON.parse(r.summary) as DraftSummary,
  replaces: r.replaces,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  sentAt: r.sent_at,
});

export type DraftUpdate = Partial<Pick<DraftRow, 'name' | 'status' | 'combined' | 'finalTx' | 'txid' | 'sentAt' | 'summary'>>;

const COLUMNS: Record<keyof DraftUpdate, string> = { name: 'name', status: 'status', combined: 'combined', finalTx: 'final_tx', txid: 'txid', sentAt: 'sent_at', summary: 'summary' };

/** A new draft's id: 'd_' and 12 random bytes (base64url). */
export function newDraftId(): string {
  return `d_${randomBytes(12).toString('base64url')}`;
}

export class DraftStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Runs `fn` in one transaction (a draft and its labels are saved together or not at all). */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  insert(d: Omit<DraftRow, 'updatedAt' | 'sentAt' | 'combined' | 'finalTx' | 'txid'>): void {
    this.#db
      .prepare(
        `INSERT INTO drafts (id, profile_id, node_wallet, name, status, unsigned_txid, psbt, form, summary, replaces, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(d.id, d.profileId, d.wallet, d.name, d.status, d.unsignedTxid, d.psbt, JSON.stringify(d.form), JSON.stringify(d.summary), d.replaces, d.createdAt, d.createdAt);
  }

  get(profileId: string, id: string): DraftRow | null {
    const r = this.#db.prepare<[string, string], Raw>('SELECT * FROM drafts WHERE profile_id = ? AND node_wallet = (SELECT trim(wallet) FROM profiles WHERE id = drafts.profile_id) AND id = ?').get(profileId, id);
    return r ? toRow(r) : null;
  }

  byUnsignedTxid(profileId: string, txid: string): DraftRow | null {
    const r = this.#db.prepare<[string, string], Raw>('SELECT * FROM drafts WHERE profile_id = ? AND unsigned_txid = ?').get(profileId, txid);
    return r ? toRow(r) : null;
  }

  replacedBy(profileId: string, id: string): string | null {
    return this.#db.prepare<[string, string], { id: string }>('SELECT id FROM drafts WHERE profile_id = ? AND replaces = ? ORDER BY created_at DESC').get(profileId, id)?.id ?? null;
  }

  list(profileId: string): DraftRow[] {
    return this.#db.prepare<[string], Raw>('SELECT * FROM drafts WHERE profile_id = ? AND node_wallet = (SELECT trim(wallet) FROM profiles WHERE id = drafts.profile_id) ORDER BY updated_at DESC, id').all(profileId).map(toRow);
  }

  /** Drafts broadcast but not yet seen confirmed. */
  pending(profileId: string): DraftRow[] {
    return this.#db.prepare<[string], Raw>("SELECT * FROM drafts WHERE profile_id = ? AND node_wallet = (SELECT trim(wallet) FROM profiles WHERE id = drafts.profile_id) AND status = 'sent'").all(profileId).map(toRow);
  }

  update(id: string, u: DraftUpdate, at = new Date().toISOString()): void {
    const keys = Object.keys(u) as Array<keyof DraftUpdate>;
    if (keys.length === 0) return;
    const sets = keys.map((k) => `${COLUMNS[k]} = ?`).join(', ');
    const value = (k: keyof DraftUpdate): unknown => (k === 'summary' ? JSON.stringify(u.summary) : (u[k] ?? null));
    this.#db.prepare(`UPDATE drafts SET ${sets}, updated_at = ? WHERE id = ?`).run(...keys.map(value), at, id);
  }

  delete(profileId: string, id: string): boolean {
    return this.#db.prepare('DELETE FROM drafts WHERE profile_id = ? AND id = ?').run(profileId, id).changes > 0;
  }

  imports(id: string): Array<{ digest: string; psbt: string; source: string; importedAt: string }> {
    return this.#db
      .prepare<[string], { digest: string; psbt: string; source: string; imported_at: string }>('SELECT digest, psbt, source, imported_at FROM draft_imports WHERE draft_id = ? ORDER BY imported_at, digest')
      .all(id)
      .map((r) => ({ digest: r.digest, psbt: r.psbt, source: r.source, importedAt: r.imported_at }));
  }

  hasImport(id: string, digest: string): boolean {
    return this.#db.prepare('SELECT 1 FROM draft_imports WHERE draft_id = ? AND digest = ?').get(id, digest) !== undefined;
  }

  addImport(id: string, digest: string, psbt: string, source: string, at = new Date().toISOString()): void {
    this.#db.prepare('INSERT INTO draft_imports (draft_id, digest, psbt, source, imported_at) VALUES (?, ?, ?, ?, ?)').run(id, digest, psbt, source, at);
  }
}
