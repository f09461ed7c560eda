// The wallet a connection watches, as the store keys its data (store/watch-types.ts WalletKey): the
// profile's wallet name as the profile named it when the connection was made (#26).
import type { ActiveConnection } from '../services';
import type { WalletKey } from '../store/watch-types';

export function walletOf(conn: Pick<ActiveConnection, 'profile'>): WalletKey {
  return { profileId: conn.profile.id, wallet: conn.profile.wallet.trim() };
}
