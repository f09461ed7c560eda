// IPC shapes of watch-only wallet import, receive and the wallet's transaction history (#17).
import type { Sats } from './watch';

export interface WalletPreviewKey {
  xpub: string;
  fingerprint: string | null;
  path: string | null;
  label: string | null;
}

/** What an import will create, before anything is sent to the node. */
export interface WalletPreview {
  format: string;
  /** "a Caravan wallet configuration (JSON)", … */
  formatName: string;
  name: string;
  scriptType: string;
  scriptTypeName: string;
  threshold: number;
  keys: WalletPreviewKey[];
  external: string;
  internal: string | null;
  warnings: string[];
  /** A suggested rescan start from the file (a UNIX time), if it carried one. */
  birthdayTime: number | null;
  /** The first receive addresses, to compare with the signer's screen. */
  firstAddresses: Array<{ index: number; address: string; path: string | null }>;
}

export interface WalletScanProgress {
  walletName: string;
  scanning: boolean;
  /** 0…1 while the node rescans, null when it does not say. */
  progress: number | null;
  durationSeconds: number | null;
}

export interface WalletImportResult {
  walletName: string;
  /** The profile now watching it (the active one, its wallet switched to this one). */
  profileId: string;
  descriptors: number;
  rescan: 'none' | 'from-date' | 'everything';
  warnings: string[];
}

export interface ReceiveAddressView {
  address: string;
  /** Index on the receive branch. */
  index: number;
  /** Each key's full derivation path for this address (to check on a hardware wallet). */
  paths: Array<{ fingerprint: string | null; path: string | null }>;
  /** The address's own descriptor (Core's getaddressinfo `desc`). */
  descriptor: string;
  /** It already received a payment (reusing it hurts privacy). */
  used: boolean;
  label: string;
  /** Where it came from: the node's getnewaddress, or derived here (offline). */
  source: 'node' | 'offline';
}

export interface WalletTxView {
  txid: string;
  /** UNIX seconds (block time, or when the wallet saw it). */
  time: number;
  category: 'receive' | 'send' | 'generate' | 'immature' | 'orphan' | 'self';
  /** Signed: + received, − sent (fee excluded). */
  amountSats: Sats;
  feeSats: Sats | null;
  confirmations: number;
  blockHeight: number | null;
  label: string;
  /** The wallet's balance after this transaction (oldest first). */
  runningSats: Sats;
}

/** The node wallet's balances (getbalances, mine): the summary above the address rows. */
export interface WalletBalancesView {
  wallet: string;
  /** Confirmed, plus the wallet's own unconfirmed change (Core's "trusted"). */
  availableSats: Sats;
  /** Payments from others not yet in a block (Core's "untrusted_pending"). */
  incomingSats: Sats;
  immatureSats: Sats;
}

export interface WalletHistoryView {
  wallet: string;
  /** Newest first. */
  rows: WalletTxView[];
  balance: { confirmedSats: Sats; pendingSats: Sats; immatureSats: Sats };
}

// ——— attach to a wallet already on the node; rescans interrupted by a node stop (#17) ———

/** A wallet the node has: loaded (listwallets) or only in its wallets directory (listwalletdir). */
export interface NodeWalletView {
  name: string;
  loaded: boolean;
  /** A loaded wallet's kind (only a watch-only descriptor wallet can be attached); null when not loaded. */
  kind: 'watch-only' | 'private-keys' | 'legacy' | null;
  /** This profile already keeps it (imported or attached before). */
  known: boolean;
  /** The profile watches it now. */
  active: boolean;
  /** Core's warnings about loading it (listwalletdir), if any. */
  warnings: string[];
}

export interface NodeWalletsView {
  wallets: NodeWalletView[];
  /** False when the node does not serve listwalletdir: only the loaded wallets are listed. */
  walletDirListed: boolean;
}

export interface WalletAttachResult {
  walletName: string;
  profileId: string;
  /** Spyglass loaded it (it was only on disk). */
  loaded: boolean;
  /** Its active descriptors now kept here (receive, and change when it has one). */
  external: string;
  internal: string | null;
  scriptType: string;
  threshold: number;
  keys: number;
  warnings: string[];
}

/** A rescan recorded as started and not answered: still running on the node, or interrupted by a stop. */
export interface WalletRescanStatus {
  walletName: string;
  state: 'running' | 'interrupted';
  startHeight: number;
  /** UNIX seconds the rescan looks back to (0: the whole chain). */
  fromTime: number;
  startedAt: string;
  /** In words, for the wallet's notice. */
  message: string;
}

export interface WalletRescanResult {
  walletName: string;
  startHeight: number;
  stopHeight: number;
}
