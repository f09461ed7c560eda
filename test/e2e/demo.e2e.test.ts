// E2E: "Try the demo" on a fresh data folder starts the built-in devnet in the main process and
// connects to it; the demo profile survives a restart of the app (new ports, new session password).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();

describe.skipIf(skip !== null)(`demo (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('Try the demo → connected to the regtest devnet with its watch-only wallet', async () => {
    const page = rig.page;
    await page.getByTestId('welcome-demo').click();
    await page.waitForSelector('[data-testid="dashboard-state"][data-state="connected"]', { timeout: 60_000 });
    expect(await page.getByTestId('dashboard-chain').innerText()).toContain('regtest');
    expect(await page.getByTestId('dashboard-wallet').innerText()).toContain('watch');
    await rig.screenshot('12-demo');
    const state = await rig.web.app.dispatch('connection:status', {});
    expect(state.ok && (state.value as { state: string }).state).toBe('connected');
  });

  it('the demo profile is listed as such in Settings', async () => {
    const page = rig.page;
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('profiles-table').waitFor();
    const row = page.locator('[data-testid="profile-row"][data-active="true"]');
    expect(await row.innerText()).toMatch(/Demo/);
    expect(await row.getByTestId('profile-password').innerText()).toMatch(/session/i);
  });
});
