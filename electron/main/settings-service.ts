// The person's settings behind `settings:get` / `settings:set`: stored in SQLite (store/settings.ts),
// told to every window (`settings:changed`) and to the parts of main that apply them live (the chain
// monitor's interval, the PSBT review's fee warnings, notifications).
import type { SettingsView } from '../../shared/ipc/contract';
import type { AppSettings, ProfileSettings } from '../../shared/settings';
import type { Services } from './services';
import type { SettingsRepository } from './store/settings';

export class SettingsService {
  readonly #listeners = new Set<(v: SettingsView) => void>();

  constructor(
    private readonly repo: SettingsRepository,
    private readonly services: Pick<Services, 'connectionState' | 'emit'>,
  ) {}

  #profileId(): string | null {
    const s = this.services.connectionState();
    return s.state === 'none' ? null : s.profileId;
  }

  view(): SettingsView {
    const profileId = this.#profileId();
    return { app: this.repo.app(), profileId, profile: profileId === null ? null : this.repo.profile(profileId) };
  }

  app(): AppSettings {
    return this.repo.app();
  }

  profile(profileId: string): ProfileSettings {
    return this.repo.profile(profileId);
  }

  set(change: { app?: Partial<AppSettings>; profile?: Partial<ProfileSettings> }): SettingsView {
    if (change.app) this.repo.setApp(change.app);
    const pid = this.#profileId();
    if (change.profile && pid !== null) this.repo.setProfile(pid, change.profile);
    const v = this.view();
    this.services.emit('settings:changed', v);
    for (const l of this.#listeners) l(v);
    return v;
  }

  /** Runs `fn` on every change made here. */
  onChange(fn: (v: SettingsView) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  deleteProfile(profileId: string): void {
    this.repo.deleteProfile(profileId);
  }
}

/** The chain monitor's interval for the settings (null: off). */
export function pollIntervalOf(app: AppSettings): number | null {
  return app.refreshSeconds === 0 ? null : app.refreshSeconds * 1000;
}
