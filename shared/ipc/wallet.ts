// IPC shapes of watch-only wallet import, receive and the wallet's transaction history (#17).
import type { IpcError } from '../errors';
import type { Sats } from './watch';

export interface WalletPreviewKey {
  xpub: string;
  fingerprint: string | null;
  path: string | null;
  label: string | null;
}

/** A wallet's spending policy: in words, each key's fingerprint, each path (shared/wallet/policy-view.ts). */
export interface WalletPolicyView {
  /** "Key A, or key B after 10 blocks (~1 h 40 min)". */
  words: string;
  /** tr(): whether the key path can be spent; 'none' for other descriptors. */
  keyPath: 'none' | 'spendable' | 'unspendable';
  keys: Array<{ name: string; fingerprint: string; originPath: string | null }>;
  paths: Array<{
    id: string;
    kind: 'key-path' | 'script';
    words: string;
    /** older(N): blocks, or seconds (512-second units × 512). */
    older: { value: number; unit: 'blocks' | 'seconds'; amount: number } | null;
    /** after(N): a height or a Unix time. */
    after: { value: number; unit: 'height' | 'time' } | null;
  }>;
}

/** What an import will create, before anything is sent to the node. */
export interface WalletPreview {
  format: string;
  /** "a Caravan wallet configuration (JSON)", … */
  formatName: string;
  name: string;
  /** The name the input itself gives the wallet (a file's name or label), null when it gives none: the default wallet name then is "Wallet N". */
  givenName: string | null;
  scriptType: string;
  scriptTypeName: string;
  /** m of a multisig; 1 for a single key and for a policy wallet (whose policy says who signs). */
  threshold: number;
  /** A policy wallet (miniscript, tr() script tree): no m-of-n, the policy words say who can spend. */
  policyWallet: boolean;
  keys: WalletPreviewKey[];
  external: string;
  internal: string | null;
  warnings: string[];
  /** A suggested rescan start from the file (a UNIX time), if it carried one. */
  birthdayTime: number | null;
  /** The first receive addresses, to compare with the signer's screen. */
  firstAddresses: Array<{ index: number; address: string; path: string | null }>;
  /** The first change address (null: the wallet has no change branch), to compare with the signer's screen too. */
  firstChangeAddress: { address: string; path: string | null } | null;
  /** Who can spend, in words, with each key's fingerprint (null: the descriptor has no policy to show). */
  policy: WalletPolicyView | null;
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
  /** Index on the receive branch (-1 when the node's wallet does not say and no descriptor is stored here). */
  index: number;
  /** Each key's full derivation path for this address (to check on a hardware wallet). */
  paths: Array<{ fingerprint: string | null; path: string | null }>;
  /** The address's own descriptor (Core's getaddressinfo `desc`). */
  descriptor: string;
  /** It already received a payment (reusing it hurts privacy). Receive hands out unused addresses, so false unless the wallet cannot tell. */
  used: boolean;
  /** The address's label: this computer's BIP329 `addr` label, else the node's. */
  label: string;
  /** Where it came from: the node's wallet (checked there), or derived here (offline). */
  source: 'node' | 'offline';
  /**
   * Unused addresses handed out in a row up to this one (this one included): its index minus the highest
   * used receive index. Past `limit` (BIP44's gap limit, 20) a wallet restoring from the seed may stop
   * scanning before it and miss a payment to it.
   */
  gap: { unusedInARow: number; limit: number; lastUsedIndex: number | null };
  /** The wallet's spending policy (from its receive descriptor; null when no descriptor is known). */
  policy: WalletPolicyView | null;
}

/** What saving a label typed on Receive did: always saved here; on the node when it was reachable. */
export interface ReceiveLabelResult {
  address: string;
  label: string;
  /** 'saved': the node's wallet has it too (setlabel); 'offline': no connection, local only; 'unreachable': the node did not answer, local only. */
  node: 'saved' | 'offline' | 'unreachable';
  /** In words, for the page. */
  message: string;
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
  /** Present offline: the split of the last history the node gave (ISO time it gave it); absent: getbalances now. */
  asOf?: string;
}

export interface WalletHistoryView {
  wallet: string;
  /** Newest first. */
  rows: WalletTxView[];
  /** getbalances (mine): Core's trusted, untrusted_pending and immature. */
  balance: { confirmedSats: Sats; pendingSats: Sats; immatureSats: Sats };
  /**
   * Present when the node could not be asked: this is the last history it gave for this profile's
   * wallet (`asOf`, ISO time), and `reason` the connection's own failure. Absent: the node's answer now.
   */
  cached?: { asOf: string; reason: IpcError };
  /**
   * Present when `rows` holds only the newest transactions (wallet:history without `all`: the first
   * screen, shown at once): how many the wallet has. Absent: `rows` are all of them.
   */
  total?: number;
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
  /** The profile watches it now (never a wallet attach refuses). */
  active: boolean;
  /** It holds private keys and this profile acknowledged that (wallet:attach with acknowledgeKeys). */
  keysAcknowledged: boolean;
  /** Core's warnings about loading it (listwalletdir), if any. */
  warnings: string[];
}

/** What the person confirms before a wallet holding private keys is watched (wallet:attach acknowledgeKeys). */
export const KEYS_ACKNOWLEDGEMENT = 'This wallet holds private keys on the node. Spyglass never uses them, but anyone with access to this node can spend its coins.';

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
  /** It holds private keys on the node, watched because the person acknowledged that. */
  holdsKeys: boolean;
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

// ——— the wallet switcher (#26): the wallets a profile watches, one of them active ———

export interface ProfileWalletView {
  /** Its name on the node. */
  name: string;
  /** The wallet every screen shows now. */
  active: boolean;
  /** "p2wpkh", "p2wsh 2-of-3", … when Spyglass keeps its descriptors (imported or attached); null otherwise. */
  kind: string | null;
  /** Its latest snapshot (cached balances to show at once), or null before its first refresh. */
  snapshotAt: string | null;
  /** The balance of that snapshot; null when there is none (unknown, not zero). */
  balanceSats: Sats | null;
  /** A wallet holding private keys on the node, watched after the person acknowledged it: marked wherever it shows. */
  holdsKeys: boolean;
}

export interface ProfileWalletsView {
  profileId: string | null;
  profileName: string | null;
  wallets: ProfileWalletView[];
}
