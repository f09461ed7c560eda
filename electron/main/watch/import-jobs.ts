// The heavy halves of "Add addresses" and the BIP329 label import — parse the text, merge with what is
// stored, write it in ONE transaction — as functions of the repository alone, so that they run in the
// import worker (import-worker.ts, its own connection to the app's SQLite file) and never block the
// main process, or inline (tests that build the services by hand). Both run the same code.
// Nothing is written unless every line is valid: a bad line comes back as an error with its line number.
import type { AddAddressesResult, LabelImportPreview, MergeRule } from '../../../shared/ipc/contract';
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';
import { mergeLabels, parseBip329, type LabelRecord } from '../../../shared/bip329';
import { parseAddressList } from '../../../shared/watchlist';
import { AppError } from '../../../shared/errors';
import type { WatchRepository } from '../store/watch';
import { addressType, INDEX_SERVED_TYPES } from './address-type';

/** How many rows of a label import's changes the preview lists. */
export const PREVIEW_CHANGES = 500;

export function networkNamed(chain: string): Network {
  const n = NETWORKS[chain as Network['chain']];
  if (!n) throw new AppError('input.invalid', `"${chain}" is not a chain Spyglass knows.`);
  return n;
}

/** Every local label of the profile's wallet as BIP329 records. */
export function localRecords(repo: WatchRepository, pid: string): LabelRecord[] {
  return repo.listLabels(pid).map((l) => {
    const base = { ref: l.ref, label: l.label, ...(l.origin ? { origin: l.origin } : {}) };
    return l.type === 'output' ? { type: 'output', ...base, ...(l.spendable !== null ? { spendable: l.spendable } : {}) } : { type: l.type, ...base };
  });
}

export interface LabelImportRequest {
  profileId: string;
  chain: string;
  text: string;
  rule: MergeRule;
  apply: boolean;
}

export interface LabelImportReply {
  preview: LabelImportPreview;
  /** How many labels were written (0 for a preview or an import with errors). */
  written: number;
}

/**
 * Parses a BIP329 file, merges it with the stored labels under `rule` and — when `apply` — writes the
 * added and updated labels. The read of the stored labels and the write are one transaction, so a
 * label set elsewhere meanwhile is neither lost nor merged against a stale copy.
 */
export function labelImportJob(repo: WatchRepository, req: LabelImportRequest): LabelImportReply {
  const parsed = parseBip329(req.text, { network: networkNamed(req.chain) });
  const base = { records: parsed.records.length, added: 0, updated: 0, unchanged: 0, conflicts: 0 };
  if (parsed.errors.length > 0) return { preview: { ...base, errors: parsed.errors.map((e) => ({ line: e.line, message: e.message })), changes: [] }, written: 0 };
  const run = (): LabelImportReply => {
    const merge = mergeLabels(localRecords(repo, req.profileId), parsed.records, req.rule);
    let written = 0;
    if (req.apply) {
      const changes = [...merge.added, ...merge.updated.map((u) => u.after)];
      written = repo.setLabels(
        req.profileId,
        changes.map((r) => ({ type: r.type, ref: r.ref, label: r.label ?? '', spendable: r.type === 'output' ? (r.spendable ?? null) : null, origin: r.origin ?? null })),
      );
    }
    const changes: LabelImportPreview['changes'] = [];
    for (const r of merge.added) {
      if (changes.length >= PREVIEW_CHANGES) break;
      changes.push({ type: r.type, ref: r.ref, before: null, after: r.label ?? '' });
    }
    for (const u of merge.updated) {
      if (changes.length >= PREVIEW_CHANGES) break;
      changes.push({ type: u.after.type, ref: u.after.ref, before: u.before.label ?? '', after: u.after.label ?? '' });
    }
    const preview = { ...base, added: merge.added.length, updated: merge.updated.length, unchanged: merge.unchanged.length, conflicts: merge.conflicts.length, errors: [], changes };
    return { preview, written };
  };
  return req.apply ? repo.transaction(run) : run();
}

export interface AddAddressesRequest {
  profileId: string;
  chain: string;
  text: string;
}

/**
 * Parses the text of "Add addresses" for the chain and adds every address (with its label, if the
 * line gave one) in one transaction — or nothing, with every bad line, when any line is bad.
 */
export function addAddressesJob(repo: WatchRepository, req: AddAddressesRequest): AddAddressesResult {
  const network = networkNamed(req.chain);
  const parsed = parseAddressList(req.text, network);
  const none = { unserved: 0, unservedExamples: [] };
  if (parsed.errors.length > 0) {
    return { added: 0, existing: 0, errors: parsed.errors.map((e) => ({ line: e.line, input: e.input, message: e.hint ? `${e.message} ${e.hint}` : e.message })), ...none };
  }
  if (parsed.addresses.length === 0) return { added: 0, existing: 0, errors: [{ line: 0, input: '', message: 'No address was found in the text.' }], ...none };
  const result = repo.transaction(() => {
    const r = repo.addAddresses(req.profileId, parsed.addresses, 'user');
    const labels = [...parsed.labels].map(([address, label]) => ({ type: 'addr' as const, ref: address, label }));
    if (labels.length) repo.setLabels(req.profileId, labels);
    return r;
  });
  const unserved = result.added.filter((a) => !INDEX_SERVED_TYPES.has(addressType(a, network)));
  return { added: result.added.length, existing: result.existing.length, errors: [], unserved: unserved.length, unservedExamples: unserved.slice(0, 3) };
}
