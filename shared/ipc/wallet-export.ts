// IPC shape of `wallet:export` (#17): the stored watch-only wallet back out as descriptors or as a
// BSMS 1.0 descriptor record, made in main from SQLite (no node needed).

export type WalletExportFormat = 'descriptors' | 'bsms';

export interface WalletExportView {
  /** The wallet's name on the node (its row in SQLite). */
  walletName: string;
  format: WalletExportFormat;
  /** The file's text, exactly what Save writes. */
  text: string;
  /** A file name to save it under (the wallet's name, made safe for any file system). */
  filename: string;
  mime: string;
  /** The descriptors it carries (receive, change, and receive+change in one when they pair up). */
  external: string;
  internal: string | null;
  multipath: string | null;
  /** Receive address 0, to compare with the signer's (and line 4 of a BSMS record). */
  firstAddress: string;
  network: string;
}
