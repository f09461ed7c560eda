// Watching a wallet the node already has (#17, "or it attaches to an existing wallet"): the node's
// wallets are listed (loaded: listwallets; on disk: listwalletdir) with their kind, one is loaded when
// it is only on disk, and it is refused unless it is a descriptor wallet without private keys — or one
// with private keys the person explicitly acknowledged (#26: remembered per profile and wallet in the
// profile's settings, and marked wherever the wallet shows). A legacy wallet is always refused. Its active descriptors (listdescriptors) become the stored WalletDescription — parsed by the
// same importer as a pasted descriptor — and the active profile watches it from then on.
// Also here: the node-version gate every wallet creation and attach passes first.
import { AppError, isAppError } from '../../../shared/errors';
import type { NodeWalletView, NodeWalletsView, WalletAttachResult } from '../../../shared/ipc/wallet';
import { importWallet, type WalletDescription } from '../../../shared/wallet/index';
import type { Network } from '../../../shared/bitcoin/networks';
import { walletKindOf, type NodeRpc } from '../connection';
import type { ActiveConnection } from '../services';
import type { WalletServiceDeps } from './service';

/** The wallets holding private keys a profile acknowledged it watches anyway (kept in the profile's settings). */
export interface KeyWalletAcknowledgements {
  acknowledged(profileId: string): readonly string[];
  acknowledge(profileId: string, walletName: string): void;
}

/** Bitcoin Core 21.0: the first with descriptor wallets (createwallet `descriptors`, importdescriptors, listdescriptors). */
export const DESCRIPTOR_WALLETS_VERSION = 210000;

/** Core's version number in words: 200100 → "0.20.1", 210000 → "21.0", 319900 → "31.99". */
export function coreVersionName(v: number): string {
  const major = Math.floor(v / 10000);
  const minor = Math.floor(v / 100) % 100;
  const patch = v % 100;
  if (v < DESCRIPTOR_WALLETS_VERSION) return `0.${major}.${minor}${patch ? `.${patch}` : ''}`;
  return `${major}.${minor}${patch ? `.${patch}` : ''}`;
}

/** Refuses a node older than Core 21.0 before any wallet is created or attached. */
export async function requireDescriptorWallets(rpc: NodeRpc): Promise<void> {
  const net = await rpc.call<{ version: number; subversion: string }>('getnetworkinfo', [], { wallet: false });
  if (typeof net.version === 'number' && net.version < DESCRIPTOR_WALLETS_VERSION) {
    throw new AppError(
      'node.unsupported',
      `The node runs Bitcoin Core ${coreVersionName(net.version)} (${net.subversion}): watch-only descriptor wallets need Bitcoin Core 21.0 or newer (createwallet with descriptors, importdescriptors, listdescriptors). Upgrade the node to watch a wallet with Spyglass.`,
      { version: net.version, required: DESCRIPTOR_WALLETS_VERSION },
    );
  }
}

/**
 * The profile's wallet field becomes `walletName` (the next connection uses it): the normal profile
 * update, so what the store keeps under the profile's former wallet name follows it.
 */
export function setProfileWallet(deps: Pick<WalletServiceDeps, 'profiles'>, profileId: string, walletName: string): void {
  const p = deps.profiles.require(profileId);
  deps.profiles.update(profileId, { name: p.name, nodeUrl: p.nodeUrl, auth: p.auth, rpcUser: p.rpcUser, cookiePath: p.cookiePath, wallet: walletName, indexUrl: p.indexUrl });
}

/** The active profile watches `walletName` from now on (its wallet field switched, reconnected). */
export async function watchFromNow(deps: WalletServiceDeps, profileId: string, walletName: string): Promise<void> {
  setProfileWallet(deps, profileId, walletName);
  await deps.services.activate(profileId);
}

/** The node's wallets, loaded ones and those only in its wallets directory, for "Use a wallet already on the node". */
export async function listNodeWallets(deps: WalletServiceDeps, conn: ActiveConnection): Promise<NodeWalletsView> {
  const loaded = await conn.rpc.call<string[]>('listwallets', [], { wallet: false });
  let onDisk: Array<{ name: string; warnings?: string[] }> = [];
  let walletDirListed = true;
  try {
    onDisk = (await conn.rpc.call<{ wallets: Array<{ name: string; warnings?: string[] }> }>('listwalletdir', [], { wallet: false })).wallets;
  } catch (e) {
    if (!(isAppError(e) && e.code === 'rpc.method_not_found')) throw e;
    walletDirListed = false;
  }
  const known = new Set(deps.wallets.list(conn.profile.id).map((w) => w.nodeWallet));
  const names = new Set([...loaded, ...onDisk.map((w) => w.name)]);
  const warnings = new Map(onDisk.map((w) => [w.name, w.warnings ?? []]));
  // What a loaded wallet is, to mark the ones attach would refuse (an unloaded one is checked when attached).
  const kinds = new Map(
    await Promise.all(loaded.map(async (name) => [name, (await walletKindOf(conn.rpc, name).catch(() => null)) as NodeWalletView['kind']] as const)),
  );
  const acknowledged = deps.keyWallets?.acknowledged(conn.profile.id) ?? [];
  const wallets = [...names].sort((a, b) => a.localeCompare(b)).map((name) => {
    const kind = kinds.get(name) ?? null;
    // "Watched now" only for what the connection really watches (never a wallet attach refuses).
    const active = conn.report.node.wallet === name && (kind === 'watch-only' || (kind === 'private-keys' && acknowledged.includes(name)));
    return { name, loaded: loaded.includes(name), kind, known: known.has(name), active, keysAcknowledged: kind === 'private-keys' && acknowledged.includes(name), warnings: warnings.get(name) ?? [] };
  });
  return { wallets, walletDirListed };
}

interface ListedDescriptor {
  desc: string;
  active: boolean;
  internal?: boolean;
}

/** The outer script functions of a descriptor ("sh(wsh(" of sh(wsh(sortedmulti(…)))): pairs receive with change. */
const shapeOf = (desc: string): string => /^((?:[a-z_]+\()+)/.exec(desc)?.[1]?.replace(/(multi|sortedmulti|multi_a|sortedmulti_a)\($/, '') ?? '';
/** When a wallet has several active types (Core's default wallets have four), the one Spyglass hands out. */
const PREFERRED = ['wsh(', 'sh(wsh(', 'tr(', 'wpkh(', 'sh(wpkh(', 'pkh(', 'sh('];
const rank = (desc: string): number => {
  const i = PREFERRED.indexOf(shapeOf(desc));
  return i < 0 ? PREFERRED.length : i;
};

/** The active receive and change descriptors of a listdescriptors reply (refused with a reason when there is none). */
export function activeDescriptors(walletName: string, listed: ListedDescriptor[]): { external: string; internal: string | null; others: string[] } {
  const externals = listed.filter((d) => d.active && !d.internal).sort((a, b) => rank(a.desc) - rank(b.desc));
  const chosen = externals[0];
  if (!chosen) {
    throw new AppError(
      'input.invalid',
      `The wallet "${walletName}" has no active receive descriptor (${listed.length ? `only ${listed.length} inactive one${listed.length > 1 ? 's' : ''}` : 'it is blank'}): there are no addresses to watch. Import the wallet's descriptors instead (Watch a wallet).`,
      { walletName, reason: 'no-descriptors' },
    );
  }
  const internal = listed.find((d) => d.active && d.internal && shapeOf(d.desc) === shapeOf(chosen.desc))?.desc ?? null;
  return { external: chosen.desc, internal, others: externals.slice(1).map((d) => d.desc) };
}

/**
 * Attaches to `walletName` on the node: loads it when it is only on disk (and unloads it again when it
 * is refused), checks it is a watch-only descriptor wallet, stores its active descriptors, and the
 * active profile watches it.
 */
export async function attachWallet(deps: WalletServiceDeps, conn: ActiveConnection, net: Network, walletName: string, opts: { acknowledgeKeys?: boolean } = {}): Promise<WalletAttachResult> {
  const name = walletName.trim();
  if (name === '') throw new AppError('input.invalid', 'Choose the wallet to attach.', { field: 'walletName' });
  await requireDescriptorWallets(conn.rpc);
  const call = <T>(method: string, params: unknown[], wallet: boolean | string = false): Promise<T> => conn.rpc.call<T>(method, params, { wallet });

  let loadedHere = false;
  if (!(await call<string[]>('listwallets', [])).includes(name)) {
    try {
      await call('loadwallet', [name]);
      loadedHere = true;
    } catch (e) {
      const core = isAppError(e) ? String(e.detail?.coreMessage ?? e.message) : '';
      if (isAppError(e) && /Path does not exist|not found/i.test(core)) {
        throw new AppError('input.invalid', `The node has no wallet named "${name}" (not loaded, and not in its wallets directory).`, { field: 'walletName', walletName: name });
      }
      if (isAppError(e) && /legacy|migratewallet|BDB|Berkeley/i.test(core)) {
        throw new AppError('input.invalid', `"${name}" is a legacy wallet, which this node cannot load (${core}). Migrate it with \`bitcoin-cli migratewallet ${name}\`, then attach it.`, { walletName: name, reason: 'legacy' });
      }
      throw e;
    }
  }
  try {
    const kind = await walletKindOf(conn.rpc, name);
    if (kind === 'legacy') {
      throw new AppError(
        'input.invalid',
        `"${name}" is a legacy wallet (not a descriptor wallet): Spyglass watches descriptor wallets only. Migrate it with \`bitcoin-cli -rpcwallet=${name} migratewallet\` (Core 26 or newer), or import its public keys as a new watch-only wallet.`,
        { walletName: name, reason: 'legacy' },
      );
    }
    const pid = conn.profile.id;
    const holdsKeys = kind === 'private-keys';
    const keysAcknowledged = holdsKeys && (opts.acknowledgeKeys === true || (deps.keyWallets?.acknowledged(pid) ?? []).includes(name));
    if (holdsKeys && (!keysAcknowledged || !deps.keyWallets)) {
      throw new AppError(
        'input.invalid',
        `"${name}" holds private keys: Spyglass never holds keys, so it attaches only to watch-only wallets (created with private keys disabled). Import this wallet's public descriptors (\`bitcoin-cli -rpcwallet=${name} listdescriptors\`) as a new watch-only wallet instead${
          deps.keyWallets ? `, or watch it anyway by acknowledging that it holds private keys on the node (Watch a wallet → Use a wallet already on the node → "${name}" → Watch it anyway; wallet:attach with acknowledgeKeys)` : ''
        }.`,
        { walletName: name, reason: 'private-keys', canAcknowledge: deps.keyWallets !== undefined },
      );
    }
    const listed = await call<{ descriptors: ListedDescriptor[] }>('listdescriptors', [], name);
    const { external, internal, others } = activeDescriptors(name, listed.descriptors);
    let w: WalletDescription;
    try {
      w = importWallet([external, internal].filter((d): d is string => d !== null).join('\n'), net, { format: 'descriptor', name });
    } catch (e) {
      throw new AppError('input.invalid', `The wallet "${name}" watches a descriptor Spyglass cannot use (${external.slice(0, 60)}…): ${(e as Error).message}`, { walletName: name, reason: 'descriptor' });
    }
    const warnings = [...w.warnings];
    if (others.length) warnings.push(`The wallet has ${others.length} other active receive descriptor${others.length > 1 ? 's' : ''} (${others.map(shapeOf).join(', ')}…): Spyglass hands out the addresses of ${shapeOf(external)}…).`);
    if (keysAcknowledged) {
      deps.keyWallets!.acknowledge(pid, name);
      warnings.push(`"${name}" holds private keys on the node (acknowledged): Spyglass never uses them, but anyone with access to this node can spend its coins.`);
    }
    deps.wallets.save(pid, name, w);
    await watchFromNow(deps, pid, name);
    deps.log.info(`wallet attached: ${name} (${w.scriptType}, ${internal ? 2 : 1} descriptors${loadedHere ? ', loaded' : ''}${keysAcknowledged ? ', holds private keys: acknowledged' : ''})`);
    return { walletName: name, profileId: pid, loaded: loadedHere, holdsKeys: keysAcknowledged, external: w.external, internal: w.internal, scriptType: w.scriptType, threshold: w.threshold, keys: w.keys.length, warnings };
  } catch (e) {
    // A refused wallet is left as it was found: unloaded again when it was loaded for this.
    if (loadedHere && !(deps.services.activeConnection()?.report.node.wallet === name)) await call('unloadwallet', [name]).catch(() => undefined);
    throw e;
  }
}
