// Input checks of the watch-only repository: what the repository refuses with a clear input.invalid
// (or profile.not_found) error before it writes anything — addresses, amounts, UTXOs, labels, new
// snapshots — and the profile's existence.
import { AppError } from '../../../shared/errors';
import type { Database } from './db';
import { LABEL_TYPES, type LabelInput, type LabelType, type NewSnapshot, type SnapshotAddress, type UtxoRecord, type WalletKey, type WalletScope } from './watch-types';

export const HEX64 = /^[0-9a-f]{64}$/;

export function invalid(message: string, field?: string): AppError {
  return new AppError('input.invalid', message, field === undefined ? undefined : { field });
}

/** A watched address as stored: letters and digits only (validation for the chain is the caller's). */
export function checkAddress(address: unknown): string {
  if (typeof address !== 'string' || !/^[A-Za-z0-9]{14,100}$/.test(address)) {
    throw invalid(`"${String(address).slice(0, 40)}" is not an address.`, 'address');
  }
  return address;
}

function checkSats(v: bigint, what: string): bigint {
  if (typeof v !== 'bigint' || v < 0n || v > 2_100_000_000_000_000n) throw invalid(`${what} is not an amount in satoshis.`);
  return v;
}

function checkUtxo(u: UtxoRecord, address: string): void {
  if (!HEX64.test(u.txid)) throw invalid(`UTXO of ${address}: "${u.txid}" is not a txid.`);
  if (!Number.isSafeInteger(u.vout) || u.vout < 0) throw invalid(`UTXO of ${address}: vout ${u.vout} is not an output index.`);
  if (u.height !== null && (!Number.isSafeInteger(u.height) || u.height < 0)) throw invalid(`UTXO of ${address}: ${u.height} is not a height.`);
  checkSats(u.amountSats, `UTXO ${u.txid}:${u.vout}`);
}

export function checkLabel(input: LabelInput): { type: LabelType; ref: string; label: string; spendable: boolean | null; origin: string | null } {
  if (!(LABEL_TYPES as readonly string[]).includes(input.type)) throw invalid(`"${String(input.type)}" is not a label type (${LABEL_TYPES.join(', ')}).`, 'type');
  if (typeof input.ref !== 'string' || input.ref === '' || input.ref.length > 4096) throw invalid('A label needs a reference (an address, txid, outpoint, …).', 'ref');
  if (typeof input.label !== 'string' || input.label.length > 10_000) throw invalid('The label must be text of at most 10,000 characters.', 'label');
  const spendable = input.spendable ?? null;
  if (spendable !== null && typeof spendable !== 'boolean') throw invalid('spendable must be true, false or absent.', 'spendable');
  const origin = input.origin ?? null;
  if (origin !== null && typeof origin !== 'string') throw invalid('origin must be text or absent.', 'origin');
  return { type: input.type, ref: input.ref, label: input.label, spendable, origin };
}

export function checkWalletState(w: string | null | undefined): void {
  if (w !== undefined && w !== null && (typeof w !== 'string' || w.length === 0 || w.length > 200)) throw invalid('The wallet state is not a short text.');
}

export function checkNewSnapshot(s: NewSnapshot): void {
  for (const t of [s.node, s.index]) {
    if (!Number.isSafeInteger(t.height) || t.height < 0 || !HEX64.test(t.hash)) throw invalid(`${JSON.stringify(t)} is not a block tip.`);
  }
  if (Number.isNaN(Date.parse(s.takenAt))) throw invalid(`"${s.takenAt}" is not a time.`);
  checkWalletState(s.walletState);
  const seen = new Map<string, SnapshotAddress>();
  for (const a of s.addresses) {
    checkAddress(a.address);
    if (seen.has(a.address)) throw invalid(`${a.address} is listed twice in the snapshot.`);
    seen.set(a.address, a);
    if (a.state === 'fetched') for (const u of a.utxos) checkUtxo(u, a.address);
    if (a.state === 'carried' && s.previousId === null) {
      throw invalid(`${a.address} cannot be carried forward: there is no previous snapshot.`);
    }
  }
  const rec = new Set<string>();
  for (const r of s.received) {
    if (rec.has(r.address)) throw invalid(`${r.address} is listed twice by the node.`);
    rec.add(r.address);
    const a = seen.get(r.address);
    if (a === undefined || a.source !== 'node') throw invalid(`${r.address} is a node address but not one of the snapshot's node addresses.`);
    checkSats(r.amountSats, `The amount received by ${r.address}`);
    if (!Number.isSafeInteger(r.confirmations) || r.confirmations < 0) throw invalid(`${r.address}: ${r.confirmations} is not a number of confirmations.`);
    if (!Array.isArray(r.txids) || !r.txids.every((t) => HEX64.test(t))) throw invalid(`${r.address}: the txids are not 64-hex strings.`);
  }
}

export function requireProfile(db: Database, profileId: string): void {
  if (db.prepare<[string], { x: number }>('SELECT 1 AS x FROM profiles WHERE id = ?').get(profileId) === undefined) {
    throw new AppError('profile.not_found', 'This profile no longer exists. It may have been deleted in another window.', { id: profileId });
  }
}

/**
 * The wallet `scope` names: a WalletKey as it is, a profile id as the wallet that profile names now
 * (an unknown profile gives the empty name; writers check the profile with requireProfile).
 */
export function walletKey(db: Database, scope: WalletScope): WalletKey {
  if (typeof scope !== 'string') return scope;
  const r = db.prepare<[string], { wallet: string }>('SELECT trim(wallet) AS wallet FROM profiles WHERE id = ?').get(scope);
  return { profileId: scope, wallet: r?.wallet ?? '' };
}
