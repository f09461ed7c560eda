// Settings in a real SQLite file, through the IPC dispatch: defaults, partial changes, validation, the
// settings:changed event, per-profile values removed with the profile, and their effect on main (the
// chain monitor's interval, the PSBT review's fee warnings).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { openDatabase } from '../../electron/main/store/db';
import { SettingsRepository } from '../../electron/main/store/settings';
import type { SettingsView } from '../../shared/ipc/contract';
import { DEFAULT_APP_SETTINGS } from '../../shared/settings';
import { dispatchOk } from '../support/app';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-settings-'));
let app: SpyglassApp;
beforeAll(() => {
  app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('settings', () => {
  it('defaults before anything is set; no profile, no profile settings', async () => {
    expect(await dispatchOk<SettingsView>(app, 'settings:get')).toEqual({ app: DEFAULT_APP_SETTINGS, profileId: null, profile: null });
    expect(app.monitor.intervalMs).toBe(10_000);
  });

  it('a partial change keeps the rest, is stored in the file, told to every window, and applied', async () => {
    const seen: SettingsView[] = [];
    app.services.on('settings:changed', (v) => seen.push(v));
    const v = await dispatchOk<SettingsView>(app, 'settings:set', { app: { unit: 'sats', refreshSeconds: 30, feePercentWarn: 2.5 } });
    expect(v.app).toEqual({ ...DEFAULT_APP_SETTINGS, unit: 'sats', refreshSeconds: 30, feePercentWarn: 2.5 });
    expect(seen).toEqual([v]);
    expect(app.monitor.intervalMs).toBe(30_000);
    await dispatchOk(app, 'settings:set', { app: { refreshSeconds: 0 } });
    expect(app.monitor.intervalMs).toBeNull();
    // Another connection to the same file reads the same.
    const db = openDatabase(app.dbFile);
    expect(new SettingsRepository(db).app().feePercentWarn).toBe(2.5);
    db.close();
  });

  it('bad values are refused, each naming its field; nothing is saved', async () => {
    for (const bad of [{ unit: 'eur' }, { refreshSeconds: 2 }, { refreshSeconds: 1.5 }, { feeRateWarnSatVb: 0 }, { feePercentWarn: 101 }, { nope: true }]) {
      const r = await app.dispatch('settings:set', { app: bad });
      expect(r.ok, JSON.stringify(bad)).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/^Invalid request for settings:set: app/);
    }
    expect((await dispatchOk<SettingsView>(app, 'settings:get')).app.unit).toBe('sats');
  });

  it("a profile's settings live and go with it", async () => {
    const saved = await dispatchOk<{ profile: { id: string } }>(app, 'profiles:save', {
      profile: { name: 'Nowhere', nodeUrl: 'http://127.0.0.1:9', auth: 'password', rpcUser: 'u', wallet: '', indexUrl: 'http://127.0.0.1:9' },
      password: 'p',
      remember: 'session',
    });
    const id = saved.profile.id;
    await app.dispatch('profiles:activate', { id });
    expect((await dispatchOk<SettingsView>(app, 'settings:get')).profile).toEqual({ notifications: true, indexNoticeAcknowledged: '', keyWalletsAcknowledged: [] });
    expect((await dispatchOk<SettingsView>(app, 'settings:set', { profile: { notifications: false } })).profile).toEqual({ notifications: false, indexNoticeAcknowledged: '', keyWalletsAcknowledged: [] });
    // The third-party index notice, acknowledged for one URL, is kept with the profile.
    expect((await dispatchOk<SettingsView>(app, 'settings:set', { profile: { indexNoticeAcknowledged: 'https://index.example.com' } })).profile).toEqual({ notifications: false, indexNoticeAcknowledged: 'https://index.example.com', keyWalletsAcknowledged: [] });
    expect((await app.dispatch('settings:set', { profile: { indexNoticeAcknowledged: 7 } })).ok).toBe(false);
    await dispatchOk(app, 'profiles:delete', { id });
    const db = openDatabase(app.dbFile);
    expect(new SettingsRepository(db).profile(id)).toEqual({ notifications: true, indexNoticeAcknowledged: '', keyWalletsAcknowledged: [] });
    expect(db.prepare("SELECT count(*) AS n FROM settings WHERE key LIKE 'profile.%'").get()).toEqual({ n: 0 });
    db.close();
  });
});
