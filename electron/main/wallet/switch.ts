// The wallet switcher (#26): a profile is a node connection, and under it each node wallet it watches
// is the unit of data. The switcher lists the profile's wallets from SQLite (so it works offline, with
// each one's cached balance) and makes one of them the wallet every screen shows: the profile names it
// and reconnects, and while that runs the screens already read the new wallet's cached data (the store
// keys everything by the wallet the profile names).
import { AppError } from '../../../shared/errors';
import type { ConnectionState, ProfileWalletsView } from '../../../shared/ipc/contract';
import { setProfileWallet } from './attach';
import type { WalletServiceDeps } from './service';

/** The wallet kind in words, from the descriptors kept for it. */
function kindOf(deps: WalletServiceDeps, profileId: string, name: string): string | null {
  const w = deps.wallets.get(profileId, name)?.description;
  if (!w) return null;
  if (w.policy) return `${w.scriptType} policy, ${w.keys.length} key${w.keys.length === 1 ? '' : 's'}`;
  return w.keys.length > 1 ? `${w.scriptType} ${w.threshold}-of-${w.keys.length}` : w.scriptType;
}

export function listProfileWallets(deps: WalletServiceDeps): ProfileWalletsView {
  const pid = deps.services.currentProfileId();
  const profile = pid ? deps.profiles.get(pid) : null;
  if (!profile) return { profileId: null, profileName: null, wallets: [] };
  const active = profile.wallet.trim();
  const known = deps.wallets.known(profile.id);
  const keyWallets = new Set(deps.keyWallets?.acknowledged(profile.id) ?? []);
  // The wallet in use is listed even before anything of it is kept.
  if (active !== '' && !known.some((k) => k.nodeWallet === active)) known.push({ nodeWallet: active, snapshotAt: null, balanceSats: null });
  known.sort((a, b) => a.nodeWallet.localeCompare(b.nodeWallet));
  return {
    profileId: profile.id,
    profileName: profile.name,
    wallets: known.map((k) => ({
      name: k.nodeWallet,
      active: k.nodeWallet === active,
      kind: kindOf(deps, profile.id, k.nodeWallet),
      snapshotAt: k.snapshotAt,
      balanceSats: k.balanceSats === null ? null : k.balanceSats.toString(),
      holdsKeys: keyWallets.has(k.nodeWallet),
    })),
  };
}

/** Every screen shows `walletName` from now on. Only a wallet the profile already watches can be switched to. */
export async function switchWallet(deps: WalletServiceDeps, walletName: string): Promise<ConnectionState> {
  const pid = deps.services.currentProfileId();
  const profile = pid ? deps.profiles.get(pid) : null;
  if (!profile) throw new AppError('profile.not_found', 'No profile is active: connect to a node first.');
  const name = walletName.trim();
  if (name === profile.wallet.trim()) return deps.services.connectionState();
  if (!deps.wallets.known(profile.id).some((k) => k.nodeWallet === name)) {
    throw new AppError('input.invalid', `"${name}" is not one of this profile's wallets. Watch it first (Watch a wallet: import its descriptors, or use a wallet already on the node).`, {
      field: 'walletName',
    });
  }
  setProfileWallet(deps, profile.id, name);
  deps.log.info(`wallet switched: ${profile.id} → ${name}`);
  // The reconnect runs on: the screens show the wallet's cached data meanwhile (the state says
  // "connecting" now), and its outcome arrives as connection:changed like any other.
  void deps.services.activate(profile.id).catch((e: unknown) => deps.log.warn(`reconnect after the wallet switch: ${String(e)}`));
  return deps.services.connectionState();
}
