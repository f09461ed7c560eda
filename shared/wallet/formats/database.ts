/**
 * Another program's own database file opened by mistake (a wallet program's storage, not an
 * export), recognized by its header so the refusal can say what it is and what to export:
 * - SQLite ("SQLite format 3\0", sqlite.org/fileformat.html §1.3.1): Bitcoin Core's descriptor
 *   wallet.dat (src/wallet/sqlite.cpp), and other programs' SQLite stores;
 * - Berkeley DB btree (magic 0x00053162 at byte 12, little-endian; Core's src/wallet/migrate.cpp
 *   BTREE_MAGIC): Bitcoin Core's legacy wallet.dat;
 * - H2 MVStore ("H:2,block:"): Sparrow's wallet files;
 * - anything with NUL characters: some other binary file.
 * Only the first bytes are looked at.
 */
import { WalletImportError } from '../types';

export function databaseKind(text: string): string | null {
  const head = text.slice(0, 4096);
  if (head.startsWith('SQLite format 3\u0000')) return "an SQLite database file (Bitcoin Core's wallet.dat is one, and so are other wallet programs' own stores)";
  if (head.slice(12, 16) === 'b1\u0005\u0000' || head.slice(12, 16) === 'a\u0015\u0006\u0000') return "a Berkeley DB database file (Bitcoin Core's legacy wallet.dat)";
  if (head.startsWith('H:2,block:')) return "Sparrow's own wallet database (H2)";
  if (head.includes('\u0000')) return 'a binary file';
  return null;
}

export function refuseDatabase(kind: string): never {
  throw new WalletImportError(
    'database',
    'file',
    `This is ${kind}, a program's own storage, not a wallet export. Export the wallet's public part from that program and import that: in Bitcoin Core, the output of listdescriptors (without private keys); in Sparrow, File > Export Wallet; in Electrum, Wallet > Information (master public key); in Specter, the wallet's Export. Do not share the database itself: it may hold private keys.`,
  );
}
