// `wallet:export` (#17): the active profile's watch-only wallet back out, from what SQLite holds
// (electron/main/store/wallets.ts), so it works offline: Core's receive and change descriptors (and
// the BIP389 multipath form) as a text file, or a BSMS 1.0 descriptor record (BIP129) that another
// coordinator — or Spyglass itself — imports to the same wallet. The formats are
// shared/wallet/export.ts; this picks the wallet and names the file.
import { AppError } from '../../../shared/errors';
import type { WalletExportFormat, WalletExportView } from '../../../shared/ipc/wallet-export';
import { WalletAddresses } from '../../../shared/wallet/derive';
import { exportBsms, exportDescriptors } from '../../../shared/wallet/export';
import type { Services } from '../services';
import type { ProfileRepository } from '../store/profiles';
import type { StoredWallet, WalletRepository } from '../store/wallets';

export interface WalletExportDeps {
  services: Pick<Services, 'activeConnection' | 'currentProfileId'>;
  wallets: WalletRepository;
  profiles: ProfileRepository;
}

/** A wallet name as a file name: what no file system refuses (letters, digits, . _ -). */
export function safeFileStem(name: string): string {
  const s = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+|[.-]+$/g, '');
  return s === '' ? 'wallet' : s.slice(0, 64);
}

export class WalletExportService {
  constructor(private readonly deps: WalletExportDeps) {}

  /**
   * The wallet the active profile watches: the one the node answers for when connected, else the
   * profile's wallet; a profile that names none and has imported exactly one uses that one.
   */
  stored(): StoredWallet {
    const pid = this.deps.services.currentProfileId();
    const profile = pid ? this.deps.profiles.get(pid) : null;
    if (!profile) throw new AppError('credentials.missing', 'There is no active profile: connect to a node and import a wallet first.');
    const conn = this.deps.services.activeConnection();
    const name = (conn && conn.profile.id === profile.id ? conn.report.node.wallet : null) ?? profile.wallet;
    if (name) {
      const s = this.deps.wallets.get(profile.id, name);
      if (s) return s;
      throw new AppError(
        'input.invalid',
        `The wallet "${name}" was not imported with Spyglass, so its descriptors are not known here: export them on the node (bitcoin-cli -rpcwallet=${name} listdescriptors), or import the wallet with “Watch a wallet”.`,
        { field: 'wallet' },
      );
    }
    const all = this.deps.wallets.list(profile.id);
    if (all.length === 1) return all[0]!;
    throw new AppError(
      'input.invalid',
      all.length === 0 ? `The profile "${profile.name}" has no imported wallet to export: import one with “Watch a wallet”.` : `The profile "${profile.name}" has ${all.length} imported wallets and names none: choose its wallet in the profile.`,
      { field: 'wallet' },
    );
  }

  export(format: WalletExportFormat): WalletExportView {
    const s = this.stored();
    const w = s.description;
    const d = exportDescriptors(w);
    const stem = safeFileStem(s.nodeWallet);
    const common = { walletName: s.nodeWallet, format, external: d.external, internal: d.internal, multipath: d.multipath, firstAddress: WalletAddresses.of(w).address('receive', 0), network: w.network };
    if (format === 'bsms') return { ...common, text: exportBsms(w), filename: `${stem}.bsms`, mime: 'text/plain' };
    return { ...common, text: d.text, filename: `${stem}-descriptors.txt`, mime: 'text/plain' };
  }
}
