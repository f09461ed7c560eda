// What every Send service needs: the active profile and its node wallet, the node facts (live, or the
// last ones kept when the node is away), the network, labels, the wallet's coins and descriptors, and
// the change address (the node's next one, or derived offline from the internal descriptor).
import { AppError, isAppError } from '../../../shared/errors';
import { parseDescriptor } from '../../../shared/bitcoin/descriptor';
import { decodeDestination, encodeDestination, extractDestination } from '../../../shared/bitcoin/address';
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';
import { watchOnlyWallet, type WatchOnlyWallet } from '../../../shared/bitcoin/psbt';
import { inputKindFromScripts } from '../../../shared/bitcoin/spend/kind';
import type { InputKind } from '../../../shared/bitcoin/spend/size';
import { solver } from '../../../shared/bitcoin/script';
import type { AppSettings } from '../../../shared/settings';
import type { Logger } from '../log';
import type { PsbtRunner } from '../psbt/runner';
import type { UrScanRunner } from '../psbt/scan-runner';
import type { ActiveConnection, Services } from '../services';
import type { ProfileRepository } from '../store/profiles';
import type { WatchRepository } from '../store/watch';
import { walletCoins, type CoinsAlong, type WalletCoin } from './coins';
import { descriptorKind, pathResolver, walletPolicy, type WalletPolicy } from './paths';
import type { DraftStore } from './drafts-store';
import { fetchFacts, type NodeFacts } from './facts';
import { OwnScripts } from './own-scripts';
import type { SendStore } from './store';

export interface SendDeps {
  services: Services;
  store: SendStore;
  drafts: DraftStore;
  watch: WatchRepository;
  profiles: ProfileRepository;
  runner: PsbtRunner;
  /** Where animated-QR scans are decoded (default: inline; the app passes the scan worker). */
  scans?: UrScanRunner;
  settings: () => AppSettings;
  log: Logger;
  /** Random 32-bit seeds (tests pin them through the form's `seed`). */
  random?: () => number;
}

export interface FactsAt {
  profileId: string;
  wallet: string;
  facts: NodeFacts;
  asOf: string;
  offline: boolean;
  changeNext: number;
  conn: ActiveConnection | null;
}

/** How long facts fetched for the screen are reused by the preview (every keystroke). */
const FRESH_MS = 20_000;
const NETWORK_FAILURES = /^(net\.|rpc\.warming_up|rpc\.http|rpc\.bad_reply)/;

export const CORE_CHANGE_TYPE: Array<[RegExp, string]> = [
  [/^pkh\(/, 'legacy'],
  [/^sh\(w(pkh|sh)\(/, 'p2sh-segwit'],
  [/^sh\(/, 'legacy'],
  [/^w(pkh|sh)\(/, 'bech32'],
  [/^tr\(/, 'bech32m'],
];

export class SendCore {
  #memo: { key: string; at: number; f: FactsAt } | null = null;
  #own: { key: string; scripts: OwnScripts } | null = null;

  constructor(readonly deps: SendDeps) {}

  seed(given: number | undefined): number {
    return given ?? Math.floor((this.deps.random?.() ?? Math.random()) * 0x100000000) >>> 0;
  }

  /** The active profile and the node wallet it spends from. */
  profileWallet(): { profileId: string; wallet: string; conn: ActiveConnection | null } {
    const conn = this.deps.services.activeConnection();
    if (conn) {
      const wallet = conn.report.node.wallet;
      if (!wallet) throw new AppError('rpc.wallet_not_specified', 'This profile names no wallet on the node: choose the watch-only wallet to spend from in the profile, or import one (Watch a wallet).');
      return { profileId: conn.profile.id, wallet, conn };
    }
    const pid = this.deps.services.currentProfileId();
    const profile = pid ? this.deps.profiles.get(pid) : null;
    if (!profile) throw new AppError('credentials.missing', 'Connect to your node first (Dashboard): Send spends from a wallet on it.');
    if (!profile.wallet.trim()) throw new AppError('rpc.wallet_not_specified', 'This profile names no wallet on the node.');
    return { profileId: profile.id, wallet: profile.wallet.trim(), conn: null };
  }

  /** Facts from the node (and kept), or — the node away — the last kept ones, marked offline. */
  async facts(opts: { live?: boolean } = {}): Promise<FactsAt> {
    const { profileId, wallet, conn } = this.profileWallet();
    const key = `${profileId}\n${wallet}\n${conn ? 'on' : 'off'}`;
    if (!opts.live && this.#memo && this.#memo.key === key && Date.now() - this.#memo.at < FRESH_MS) return this.#memo.f;
    if (conn) {
      try {
        const facts = await fetchFacts(conn);
        const asOf = new Date().toISOString();
        this.deps.store.saveFacts(profileId, wallet, facts, asOf);
        const changeNext = this.deps.store.facts(profileId, wallet)?.changeNext ?? 0;
        const f: FactsAt = { profileId, wallet, facts, asOf, offline: false, changeNext, conn };
        this.#memo = { key, at: Date.now(), f };
        return f;
      } catch (e) {
        if (!(isAppError(e) && NETWORK_FAILURES.test(e.code))) throw e;
        this.deps.log.warn(`send: the node did not answer (${e.code}); composing from the last facts`);
      }
    }
    const kept = this.deps.store.facts(profileId, wallet);
    if (!kept) {
      throw new AppError('credentials.missing', `Spyglass cannot reach your node, and has never fetched the coins of the wallet "${wallet}": connect once to compose offline later.`);
    }
    const f: FactsAt = { profileId, wallet, facts: kept.facts, asOf: kept.fetchedAt, offline: true, changeNext: kept.changeNext, conn: null };
    this.#memo = { key, at: Date.now(), f };
    return f;
  }

  forget(): void {
    this.#memo = null;
  }

  network(f: FactsAt): Network {
    const n = NETWORKS[f.facts.chain as Network['chain']];
    if (!n) throw new AppError('chain.unsupported', `The node's chain "${f.facts.chain}" is not one Spyglass knows.`);
    return n;
  }

  label(profileId: string, type: 'addr' | 'output' | 'tx', ref: string): string {
    return this.deps.watch.getLabel(profileId, type, ref)?.label ?? '';
  }

  /** The wallet's coins; those of a multi-path descriptor sized along `pathId` (default: the policy's first path). */
  coins(f: FactsAt, pathId?: string): WalletCoin[] {
    const frozen = this.deps.store.frozen(f.profileId, f.wallet);
    const policy = this.policy(f);
    let along: CoinsAlong | undefined;
    if (policy) {
      const id = pathId ?? policy.policy.paths[0]!.id;
      along = { network: this.network(f), pathId: id, resolve: pathResolver(f.facts.descriptors, this.network(f), id, (s) => this.wallet(f).locate(s)) };
    }
    return walletCoins(f.facts.unspent, frozen, (op, addr) => this.label(f.profileId, 'output', op) || this.label(f.profileId, 'addr', addr), along);
  }

  /** The spending policy of the wallet's receive descriptor when it has more than one path (miniscript, tr leaves), else null. */
  policy(f: FactsAt): WalletPolicy | null {
    return walletPolicy(f.facts.descriptors, this.network(f));
  }

  wallet(f: FactsAt): WatchOnlyWallet {
    return watchOnlyWallet(f.facts.descriptors, this.network(f));
  }

  /** The wallet's scripts handed out so far (and a look-ahead), kept per profile and wallet (own-scripts.ts). */
  ownScripts(f: FactsAt): OwnScripts {
    const key = `${f.profileId}\n${f.wallet}\n${f.facts.chain}`;
    if (!this.#own || this.#own.key !== key) this.#own = { key, scripts: new OwnScripts(this.network(f)) };
    this.#own.scripts.extend(f.facts.descriptors, f.changeNext);
    return this.#own.scripts;
  }

  /** The wallet's own script (its descriptors up to the addresses handed out, or a watched address)? */
  isOwn(f: FactsAt, script: Uint8Array): boolean {
    if (this.ownScripts(f).has(script)) return true;
    const d = extractDestination(script);
    return d !== null && this.deps.watch.getAddress(f.profileId, encodeDestination(d, this.network(f))) !== null;
  }

  /** The active internal descriptor change goes to (Core: taproot for a taproot payment when it has one, else bech32, else the only one). */
  changeDescriptor(f: FactsAt, recipientScripts: readonly Uint8Array[]): { desc: string; next: number; type: string } | null {
    const internal = f.facts.descriptors.filter((d) => d.active && d.internal);
    if (internal.length === 0) return null;
    const typeOf = (desc: string): string => CORE_CHANGE_TYPE.find(([re]) => re.test(desc))?.[1] ?? 'bech32';
    const wantsTr = recipientScripts.some((s) => solver(s).type === 'witness_v1_taproot');
    const pick = (wantsTr && internal.find((d) => typeOf(d.desc) === 'bech32m')) || internal.find((d) => /^wpkh\(/.test(d.desc)) || internal.find((d) => typeOf(d.desc) === 'bech32') || internal[0]!;
    const listed = pick as { next_index?: number; next?: number };
    return { desc: pick.desc, next: Math.max(listed.next_index ?? listed.next ?? 0, f.changeNext), type: typeOf(pick.desc) };
  }

  /** The change script for a preview (derived, nothing handed out) and its kind. */
  previewChange(f: FactsAt, recipientScripts: readonly Uint8Array[]): { script: Uint8Array; kind: InputKind; address: string; index: number | null } {
    const d = this.changeDescriptor(f, recipientScripts);
    if (!d) throw new AppError('input.invalid', 'This wallet has no change descriptor (an internal one): enter a change address.', { field: 'change' });
    const script = parseDescriptor(d.desc, this.network(f)).expand(d.next)[0]!.script;
    return { script, kind: descriptorKind(d.desc, this.network(f)), address: encodeDestination(extractDestination(script)!, this.network(f)), index: d.next };
  }

  /** The change address for a draft: the node's getrawchangeaddress (checked to be the wallet's), or derived offline. */
  async realChange(f: FactsAt, recipientScripts: readonly Uint8Array[]): Promise<{ script: Uint8Array; kind: InputKind; address: string; index: number | null }> {
    const d = this.changeDescriptor(f, recipientScripts);
    if (f.conn && d) {
      let address: string;
      try {
        address = await f.conn.rpc.call<string>('getrawchangeaddress', [d.type], { wallet: true });
      } catch (e) {
        // A node that cannot hand one out (its keypool of that type is empty): the next one of the
        // internal descriptor, derived here, is within the range the node watches.
        if (!(isAppError(e) && e.code === 'rpc.error' && /no available keys|keypool ran out|No .* addresses available/i.test(e.message))) throw e;
        this.deps.log.warn(`send: getrawchangeaddress failed (${e.message}); deriving the change address`);
        return this.#derivedChange(f, recipientScripts);
      }
      // the node's next change address is taken: the next preview must show the one after it
      this.forget();
      const dec = decodeDestination(address, this.network(f));
      // the node's next one is within the look-ahead; only an address far past it walks the whole range
      if (!dec.ok || !(this.ownScripts(f).has(dec.script) || this.wallet(f).locate(dec.script))) throw new AppError('internal', `The node's change address ${address} is not one of this wallet's descriptors.`);
      return { script: dec.script, kind: descriptorKind(d.desc, this.network(f)), address, index: null };
    }
    return this.#derivedChange(f, recipientScripts);
  }

  #derivedChange(f: FactsAt, recipientScripts: readonly Uint8Array[]): { script: Uint8Array; kind: InputKind; address: string; index: number | null } {
    const c = this.previewChange(f, recipientScripts);
    this.deps.store.bumpChange(f.profileId, f.wallet, (c.index ?? 0) + 1);
    this.forget();
    return c;
  }

  /** A change address the person typed: the node's chain, and its kind (for the cost of spending it later). */
  pickedChange(f: FactsAt, address: string): { script: Uint8Array; kind: InputKind; address: string; index: null } {
    const dec = decodeDestination(address.trim(), this.network(f));
    if (!dec.ok) throw new AppError('input.invalid', `The change address is not valid on ${f.facts.chain}: ${dec.error || 'Invalid address'}`, { field: 'change' });
    let kind: InputKind;
    try {
      kind = inputKindFromScripts(dec.script);
    } catch {
      kind = { type: 'p2wpkh' };
    }
    return { script: dec.script, kind, address: address.trim(), index: null };
  }
}
