// Receive like Sparrow (#26): the wallet's current unused receive address, the same one on every visit
// until it is paid; "Next address" skips to a fresh one on purpose (its gap from the last used address
// said, past BIP44's 20); a label typed there saved to that address at once, on the node (setlabel) and
// here (the BIP329 `addr` label the Balances editor writes, in the export at once).
//
// "Used" is the node wallet's word when connected: an address listreceivedbyaddress (minconf 0, so a
// payment still in the mempool counts) or listunspent (minconf 0) names; offline, the latest snapshot's.
// The address is derived from the descriptors stored here at the import/attach (the receive index they
// keep, `receive_next`, is how many were handed out) and checked with getaddressinfo: the node's wallet
// must watch it (importdescriptors gave it a range). Handing it out puts it in the node's address book
// (setlabel, with its label or none: listreceivedbyaddress then lists it, so Balances knows it as a node
// address) and in the profile's watched set as a node address. A wallet whose descriptors are not stored
// here (a profile pointing at a node wallet it never imported) gets the node's getnewaddress, kept while
// unused for this session.
import { AppError, isAppError } from '../../../shared/errors';
import type { ReceiveAddressView, ReceiveLabelResult } from '../../../shared/ipc/wallet';
import { WalletAddresses, type WalletDescription } from '../../../shared/wallet/index';
import { walletPolicyView } from '../../../shared/wallet/policy-view';
import { networkNamed } from '../watch/import-jobs';
import type { ActiveConnection, Services } from '../services';
import type { ProfileRepository } from '../store/profiles';
import type { WalletRepository } from '../store/wallets';
import type { WatchRepository } from '../store/watch';
import type { Logger } from '../log';

/** BIP44's gap limit: wallets restoring from the seed stop after this many unused addresses in a row. */
export const GAP_LIMIT = 20;
/** Addresses derived per step when matching used addresses to indexes (the event loop runs between steps). */
const CHUNK = 1000;

export interface ReceiveDeps {
  services: Services;
  wallets: WalletRepository;
  profiles: ProfileRepository;
  watch: WatchRepository;
  log: Logger;
}

interface StoredReceive {
  profileId: string;
  walletName: string;
  description: WalletDescription;
  handed: number;
}

/**
 * Every call Receive makes to the local store, in one place (the store is being re-keyed by wallet:
 * only these lines change then).
 */
class ReceiveLocal {
  constructor(private readonly deps: ReceiveDeps) {}

  stored(profileId: string, walletName: string): StoredReceive | null {
    const s = this.deps.wallets.get(profileId, walletName);
    return s ? { profileId, walletName, description: s.description, handed: s.receiveNext } : null;
  }

  /** Records that receive index `index` was handed out (never lowers the count). */
  handedOut(s: StoredReceive, index: number): void {
    this.deps.wallets.bumpReceive(s.profileId, s.walletName, index + 1);
  }

  label(profileId: string, address: string): string | null {
    return this.deps.watch.getLabel(profileId, 'addr', address)?.label ?? null;
  }

  /** The BIP329 `addr` label, as the Balances label editor sets it (`labels:set`); empty removes it. */
  setLabel(profileId: string, address: string, label: string): void {
    if (label.trim() === '') this.deps.watch.deleteLabel(profileId, 'addr', address);
    else this.deps.watch.setLabel(profileId, { type: 'addr', ref: address, label });
  }

  /** In the profile's watched set as one of the node wallet's addresses (its page then knows it). */
  watchAsNode(profileId: string, address: string): void {
    this.deps.watch.addAddresses(profileId, [address], 'node');
  }

  isNodeAddress(profileId: string, address: string): boolean {
    return this.deps.watch.getAddress(profileId, address)?.source === 'node';
  }

  /** Offline: the addresses the latest snapshot saw paid (unconfirmed payments included, as the node listed them). */
  usedInSnapshot(profileId: string): Set<string> {
    const snap = this.deps.watch.latestSnapshot(profileId);
    const used = new Set<string>();
    if (snap) for (const [address, r] of this.deps.watch.received(snap.id)) if (r.amountSats > 0n || r.txids.length > 0) used.add(address);
    return used;
  }
}

type AddressInfo = { ismine?: boolean; ischange?: boolean; desc?: string; parent_desc?: string; hdkeypath?: string; hdmasterfingerprint?: string; labels?: unknown[] };

const yieldLoop = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** The receive index a getaddressinfo reply names: its hdkeypath, else the first key origin of its desc (multisig). */
/** The wallet's spending policy from a descriptor; null (and nothing else) when it cannot be read. */
function policyOf(descriptor: string, chain: string): ReceiveAddressView['policy'] {
  try {
    return walletPolicyView(descriptor, networkNamed(chain));
  } catch {
    return null;
  }
}

function indexFromInfo(info: AddressInfo): number | null {
  const path = info.hdkeypath ?? /\[[0-9a-fA-F]{8}((?:\/\d+[hH']?)+)\]/.exec(info.desc ?? '')?.[1] ?? null;
  if (!path) return null;
  const last = path.split('/').pop() ?? '';
  return /^\d+$/.test(last) ? Number(last) : null;
}

function nodeLabelOf(info: AddressInfo): string | null {
  const l = info.labels?.[0];
  if (typeof l === 'string') return l;
  // Core before 0.20 answered objects { name, purpose }.
  if (l && typeof l === 'object' && typeof (l as { name?: unknown }).name === 'string') return (l as { name: string }).name;
  return null;
}

export class ReceiveService {
  readonly #local: ReceiveLocal;
  /** Derivers by descriptor pair (each keeps the addresses it derived): a visit does not derive them all again. */
  readonly #derivers = new Map<string, WalletAddresses>();
  /** Each deriver's receive addresses from index 0, as far as they were needed. */
  readonly #derived = new WeakMap<WalletAddresses, string[]>();
  /** A wallet with no descriptors stored here: the node's address handed out this session, per profile and wallet. */
  readonly #nodeOnly = new Map<string, { address: string; inARow: number }>();

  constructor(private readonly deps: ReceiveDeps) {
    this.#local = new ReceiveLocal(deps);
  }

  #derive(d: WalletDescription): WalletAddresses {
    const key = `${d.external}|${d.internal ?? ''}`;
    let w = this.#derivers.get(key);
    if (!w) {
      if (this.#derivers.size >= 8) this.#derivers.clear();
      w = WalletAddresses.of(d);
      this.#derivers.set(key, w);
    }
    return w;
  }

  /** The current unused receive address (the same on every visit until it is paid). */
  current(): Promise<ReceiveAddressView> {
    return this.#hand('current');
  }

  /** Skips on purpose to the next fresh receive address. */
  next(): Promise<ReceiveAddressView> {
    return this.#hand('next');
  }

  async #hand(mode: 'current' | 'next'): Promise<ReceiveAddressView> {
    const conn = this.deps.services.activeConnection();
    if (!conn) return this.#offline(mode);
    try {
      return await this.#online(conn, mode);
    } catch (e) {
      // The node stopped answering since the connection was made: derive here, as offline.
      if (isAppError(e) && e.code.startsWith('net.') && this.#hasStored(conn)) {
        this.deps.log.warn(`receive: the node did not answer (${e.message}); derived here`);
        return this.#offline(mode);
      }
      throw e;
    }
  }

  #hasStored(conn: ActiveConnection): boolean {
    return conn.report.node.wallet ? this.#local.stored(conn.profile.id, conn.report.node.wallet) !== null : false;
  }

  async #online(conn: ActiveConnection, mode: 'current' | 'next'): Promise<ReceiveAddressView> {
    const walletName = conn.report.node.wallet;
    const stored = walletName ? this.#local.stored(conn.profile.id, walletName) : null;
    if (!stored) return this.#nodeOnlyAddress(conn, mode);
    const derive = this.#derive(stored.description);
    const used = await this.#nodeUsed(conn);
    const lastUsed = await this.#highestUsed(derive, used, stored.handed, (leftover) => this.#indexesOnNode(conn, derive, leftover));
    const index = mode === 'current' ? Math.max(lastUsed + 1, stored.handed - 1, 0) : Math.max(lastUsed + 1, stored.handed);
    const address = derive.address('receive', index);
    const info = await conn.rpc.call<AddressInfo>('getaddressinfo', [address]);
    if (info.ismine !== true) {
      throw new AppError(
        'input.invalid',
        `Receive address #${index} (${address}) is not watched by the node's wallet "${stored.walletName}": it watches a range of addresses ahead (set at the import), and this one is past it. Use an address closer to the last paid one (#${lastUsed < 0 ? 'none yet' : lastUsed}), or import the wallet again with more addresses watched ahead.`,
        { reason: 'not-watched', index },
      );
    }
    const local = this.#local.label(stored.profileId, address);
    const nodeLabel = nodeLabelOf(info);
    // Into the node's address book (listreceivedbyaddress lists it from now on, as it does getnewaddress's),
    // with the label typed here when the node lacks it.
    if (nodeLabel === null || (local !== null && local !== nodeLabel)) await conn.rpc.call('setlabel', [address, local ?? '']);
    this.#local.handedOut(stored, index);
    this.#local.watchAsNode(stored.profileId, address);
    const d = derive.details('receive', index);
    return {
      address,
      index,
      paths: d.keys.map((k) => ({ fingerprint: k.fingerprint, path: k.path })),
      descriptor: info.desc ?? d.descriptor,
      used: false,
      label: local ?? nodeLabel ?? '',
      source: 'node',
      gap: { unusedInARow: index - lastUsed, limit: GAP_LIMIT, lastUsedIndex: lastUsed < 0 ? null : lastUsed },
      policy: policyOf(stored.description.external, stored.description.network),
    };
  }

  /** The node wallet's used addresses: paid (listreceivedbyaddress, minconf 0: the mempool counts) or holding coins (listunspent, minconf 0). */
  async #nodeUsed(conn: ActiveConnection): Promise<Set<string>> {
    const [received, unspent] = await Promise.all([
      conn.rpc.call<Array<{ address: string; amount: number; txids?: string[] }>>('listreceivedbyaddress', [0, false]),
      conn.rpc.call<Array<{ address?: string }>>('listunspent', [0]),
    ]);
    const used = new Set<string>();
    for (const r of received) if (r.amount > 0 || (r.txids?.length ?? 0) > 0) used.add(r.address);
    for (const u of unspent) if (u.address) used.add(u.address);
    return used;
  }

  /**
   * The highest receive index among `used` (−1: none): the indexes up to `handed` + the gap limit are
   * derived here; a used address beyond them (paid far ahead) is asked of `resolve`.
   */
  async #highestUsed(derive: WalletAddresses, used: Set<string>, handed: number, resolve?: (leftover: string[]) => Promise<number[]>): Promise<number> {
    if (used.size === 0) return -1;
    const list = await this.#receiveAddresses(derive, handed + GAP_LIMIT + 1);
    const seen = new Set<string>();
    let highest = -1;
    list.forEach((a, i) => {
      if (used.has(a)) {
        seen.add(a);
        highest = i;
      }
    });
    const leftover = [...used].filter((a) => !seen.has(a));
    if (resolve && leftover.length > 0) for (const i of await resolve(leftover)) highest = Math.max(highest, i);
    return highest;
  }

  /** Receive addresses 0 … count − 1, derived once per deriver in steps of CHUNK with the event loop let run between them. */
  async #receiveAddresses(derive: WalletAddresses, count: number): Promise<string[]> {
    const list = this.#derived.get(derive) ?? [];
    this.#derived.set(derive, list);
    while (list.length < count) {
      list.push(...derive.addresses('receive', list.length, Math.min(CHUNK, count - list.length)));
      if (list.length < count) await yieldLoop();
    }
    return list.slice(0, count);
  }

  /** Receive indexes of addresses the node's wallet knows (getaddressinfo, one batch), each checked by deriving it here; change and foreign addresses left out. */
  async #indexesOnNode(conn: ActiveConnection, derive: WalletAddresses, addresses: string[]): Promise<number[]> {
    const replies = await conn.rpc.batch<AddressInfo>(addresses.map((a) => ({ method: 'getaddressinfo', params: [a] })));
    const out: number[] = [];
    replies.forEach((r, i) => {
      if (!r.ok || r.value.ischange === true) return;
      const index = indexFromInfo(r.value);
      if (index !== null && derive.address('receive', index) === addresses[i]) out.push(index);
    });
    return out;
  }

  /** Offline: derived from the stored descriptors; used as the latest snapshot saw it. */
  async #offline(mode: 'current' | 'next'): Promise<ReceiveAddressView> {
    const st = this.deps.services.connectionState();
    const profile = st.state === 'none' ? null : this.deps.profiles.get(st.profileId);
    const stored = profile ? this.#local.stored(profile.id, profile.wallet) : null;
    if (!profile || !stored) throw new AppError('credentials.missing', 'Not connected, and this profile has no imported wallet to derive addresses from: connect to the node.');
    const derive = this.#derive(stored.description);
    const lastUsed = await this.#highestUsed(derive, this.#local.usedInSnapshot(profile.id), stored.handed);
    const index = mode === 'current' ? Math.max(lastUsed + 1, stored.handed - 1, 0) : Math.max(lastUsed + 1, stored.handed);
    const d = derive.details('receive', index);
    this.#local.handedOut(stored, index);
    this.#local.watchAsNode(profile.id, d.address);
    return {
      address: d.address,
      index,
      paths: d.keys.map((k) => ({ fingerprint: k.fingerprint, path: k.path })),
      descriptor: d.descriptor,
      used: false,
      label: this.#local.label(profile.id, d.address) ?? '',
      source: 'offline',
      gap: { unusedInARow: index - lastUsed, limit: GAP_LIMIT, lastUsedIndex: lastUsed < 0 ? null : lastUsed },
      policy: policyOf(stored.description.external, stored.description.network),
    };
  }

  /** No descriptors stored here: the node's getnewaddress, kept while unused (this session). */
  async #nodeOnlyAddress(conn: ActiveConnection, mode: 'current' | 'next'): Promise<ReceiveAddressView> {
    const key = `${conn.profile.id}\u0000${conn.report.node.wallet ?? ''}`;
    const kept = this.#nodeOnly.get(key);
    const used = await this.#nodeUsed(conn);
    let address = kept && !used.has(kept.address) ? kept.address : null;
    let inARow = kept && address ? kept.inARow : 0;
    if (address === null || mode === 'next') {
      address = await conn.rpc.call<string>('getnewaddress', ['']);
      inARow += 1;
    }
    this.#nodeOnly.set(key, { address, inARow });
    const info = await conn.rpc.call<AddressInfo>('getaddressinfo', [address]);
    const local = this.#local.label(conn.profile.id, address);
    const nodeLabel = nodeLabelOf(info);
    if (local !== null && local !== nodeLabel) await conn.rpc.call('setlabel', [address, local]);
    this.#local.watchAsNode(conn.profile.id, address);
    return {
      address,
      index: indexFromInfo(info) ?? -1,
      paths: [{ fingerprint: info.hdmasterfingerprint ?? null, path: info.hdkeypath ?? null }],
      descriptor: info.desc ?? '',
      used: false,
      label: local ?? nodeLabel ?? '',
      source: 'node',
      gap: { unusedInARow: inARow, limit: GAP_LIMIT, lastUsedIndex: null },
      // the node's own descriptor of the address's wallet (Core 22+), when it says
      policy: info.parent_desc ? policyOf(info.parent_desc, conn.report.node.chain) : null,
    };
  }

  /**
   * Labels a receive address at once: the node's wallet (setlabel) when connected, and this computer's
   * BIP329 `addr` label in every case. The node refusing the label saves nothing; a node that does not
   * answer leaves it saved here only, and says so.
   */
  async setLabel(address: string, label: string): Promise<ReceiveLabelResult> {
    const st = this.deps.services.connectionState();
    if (st.state === 'none') throw new AppError('credentials.missing', 'No profile is active: choose one in Settings to label its addresses.');
    const profileId = st.profileId;
    const conn = this.deps.services.activeConnection();
    await this.#requireHandedOut(conn, profileId, address);
    if (label === '*') throw new AppError('input.invalid', 'Bitcoin Core reserves "*" (it means every label): choose another label.', { field: 'label' });
    let node: ReceiveLabelResult['node'] = 'offline';
    let why = '';
    if (conn) {
      try {
        await conn.rpc.call('setlabel', [address, label]);
        node = 'saved';
      } catch (e) {
        if (!isAppError(e) || !(e.code.startsWith('net.') || e.code === 'rpc.warming_up')) {
          throw new AppError(isAppError(e) ? e.code : 'internal', `The node did not take the label, so it was not saved: ${(e as Error).message}`, isAppError(e) ? e.detail : undefined);
        }
        node = 'unreachable';
        why = (e as Error).message;
      }
    }
    this.#local.setLabel(profileId, address, label);
    this.#local.watchAsNode(profileId, address);
    const what = label.trim() === '' ? 'Label removed' : 'Label saved';
    const message =
      node === 'saved'
        ? `${what} on the node's wallet and on this computer.`
        : node === 'unreachable'
          ? `${what} on this computer only: the node did not answer (${why}). Receive gives it to the node's wallet when it shows this address again with the node connected.`
          : `${what} on this computer only: the node is not connected. Receive gives it to the node's wallet when it shows this address again with the node connected.`;
    if (node !== 'saved') this.deps.log.warn(`receive label for ${address} kept locally: ${node}${why ? ` (${why})` : ''}`);
    return { address, label, node, message };
  }

  /** Only an address Receive handed out (or one of the wallet's, on the node) is labelled here. */
  async #requireHandedOut(conn: ActiveConnection | null, profileId: string, address: string): Promise<void> {
    const walletName = conn ? conn.report.node.wallet : this.deps.profiles.get(profileId)?.wallet ?? null;
    const stored = walletName ? this.#local.stored(profileId, walletName) : null;
    if (stored) {
      if ((await this.#receiveAddresses(this.#derive(stored.description), stored.handed)).includes(address)) return;
    } else {
      if (this.#local.isNodeAddress(profileId, address)) return;
      const info = conn ? await conn.rpc.call<AddressInfo>('getaddressinfo', [address]).catch(() => null) : null;
      if (info?.ismine === true) return;
    }
    throw new AppError('input.invalid', `${address} is not a receive address this wallet handed out: open Receive to get one.`, { field: 'address' });
  }
}
