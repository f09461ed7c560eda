// Schema 10: connection profiles and a key/value settings table.
// There is deliberately no password column, here or in any later migration: secrets live in the OS
// keychain or in memory (electron/main/credentials.ts), never in this file.
import type { Database } from '../db';

export default function updateToSchemaVersion10(db: Database): void {
  db.exec(`
    CREATE TABLE profiles (
      id               TEXT    NOT NULL PRIMARY KEY,
      name             TEXT    NOT NULL,
      node_url         TEXT    NOT NULL,
      auth             TEXT    NOT NULL CHECK (auth IN ('password', 'cookie')),
      rpc_user         TEXT    NOT NULL DEFAULT '',
      cookie_path      TEXT    NOT NULL DEFAULT '',
      wallet           TEXT    NOT NULL DEFAULT '',
      index_url        TEXT    NOT NULL,
      password_storage TEXT    NOT NULL CHECK (password_storage IN ('keychain', 'session', 'none')),
      is_demo          INTEGER NOT NULL DEFAULT 0 CHECK (is_demo IN (0, 1)),
      created_at       TEXT    NOT NULL,
      updated_at       TEXT    NOT NULL
    ) STRICT;

    -- Names are unique regardless of case (the repository also compares Unicode case; NOCASE folds ASCII only).
    CREATE UNIQUE INDEX profiles_name ON profiles (name COLLATE NOCASE);
    -- At most one demo profile.
    CREATE UNIQUE INDEX profiles_one_demo ON profiles (is_demo) WHERE is_demo = 1;

    CREATE TABLE settings (
      key   TEXT NOT NULL PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT;
  `);
}
