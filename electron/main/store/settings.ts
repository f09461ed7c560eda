// The person's settings in the key/value `settings` table (migration 0010): the app's under
// `app.<name>`, each profile's under `profile.<id>.<name>`, values as JSON, over their defaults. Values
// are validated by the IPC schema before they get here; a stored value of the wrong type (an older or
// newer build's) falls back to the default.
import { DEFAULT_APP_SETTINGS, DEFAULT_PROFILE_SETTINGS, type AppSettings, type ProfileSettings } from '../../../shared/settings';
import type { Database } from './db';

const APP = 'app.';
const profileScope = (id: string): string => `profile.${id}.`;

function merged<T extends object>(defaults: T, rows: Array<{ key: string; value: string }>): T {
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const { key, value } of rows) {
    if (!(key in defaults)) continue;
    try {
      const v: unknown = JSON.parse(value);
      if (typeof v === typeof (defaults as Record<string, unknown>)[key]) out[key] = v;
    } catch {
      // Unreadable: the default stands.
    }
  }
  return out as T;
}

export class SettingsRepository {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** The rows under `prefix`, keyed without it. */
  #rows(prefix: string): Array<{ key: string; value: string }> {
    return this.#db
      .prepare<[{ prefix: string; len: number }], { key: string; value: string }>('SELECT substr(key, @len + 1) AS key, value FROM settings WHERE substr(key, 1, @len) = @prefix')
      .all({ prefix, len: prefix.length });
  }

  #write(prefix: string, values: object): void {
    const put = this.#db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    this.#db.transaction(() => {
      for (const [k, v] of Object.entries(values)) if (v !== undefined) put.run(prefix + k, JSON.stringify(v));
    })();
  }

  app(): AppSettings {
    return merged(DEFAULT_APP_SETTINGS, this.#rows(APP));
  }

  setApp(values: Partial<AppSettings>): AppSettings {
    this.#write(APP, values);
    return this.app();
  }

  profile(profileId: string): ProfileSettings {
    return merged(DEFAULT_PROFILE_SETTINGS, this.#rows(profileScope(profileId)));
  }

  setProfile(profileId: string, values: Partial<ProfileSettings>): ProfileSettings {
    this.#write(profileScope(profileId), values);
    return this.profile(profileId);
  }

  deleteProfile(profileId: string): void {
    const prefix = profileScope(profileId);
    this.#db.prepare('DELETE FROM settings WHERE substr(key, 1, @len) = @prefix').run({ prefix, len: prefix.length });
  }
}
