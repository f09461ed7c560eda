// The signer program the person chose (#30), kept in the settings table under its own key (not an
// `app.` setting: settings:set cannot change which program runs; only signer:set-program, which checks
// the file, can).
import type { Database } from '../store/db';

const KEY = 'signer.program';

export function signerProgramSetting(db: Database): { get(): string | null; set(file: string | null): void } {
  return {
    get() {
      const row = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(KEY);
      if (!row) return null;
      try {
        const v: unknown = JSON.parse(row.value);
        return typeof v === 'string' && v ? v : null;
      } catch {
        return null;
      }
    },
    set(file) {
      if (file === null) db.prepare('DELETE FROM settings WHERE key = ?').run(KEY);
      else db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(KEY, JSON.stringify(file));
    },
  };
}
