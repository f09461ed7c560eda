// E2E: a bitcoin: link handed to the app (as the OS does through main's UriInbox: open-url on macOS, a
// second instance's argv on Windows and Linux; `npm run web -- bitcoin:…` here) opens the payment
// request page, whether it was waiting when the window loaded or arrives while it is open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eSkipReason, startRig, type Rig } from './harness';

const skip = e2eSkipReason();
const REGTEST_ADDRESS = 'bcrt1q73aqjmlw6twu5dm80g2exg0urvp382uzvkpgef';

describe.skipIf(skip !== null)(`bitcoin: links (Chromium e2e)${skip ? ` — skipped: ${skip}` : ''}`, () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ autoDemo: true });
    await rig.page.waitForSelector('[data-testid="balances"], [data-testid="dashboard-state"][data-state="connected"]', { timeout: 60_000 });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('a link waiting when the window loads opens the payment request, checked against the node’s chain', async () => {
    const page = rig.page;
    // No window open (its event stream closed) when the link arrives, as when a link starts the app.
    await page.goto('about:blank');
    rig.web.app.uris.put(`bitcoin:${REGTEST_ADDRESS.toUpperCase()}?amount=0.015&label=Rent%20March&message=Thanks!&lightning=lnbcrt1xyz`);
    await page.goto(rig.web.bridge.pageUrl);
    await page.getByTestId('pay-request').waitFor();
    expect(await page.getByTestId('pay-address').innerText()).toContain(REGTEST_ADDRESS);
    expect(await page.getByTestId('pay-amount-value').getAttribute('data-sats')).toBe('1500000');
    expect(await page.getByTestId('pay-label').innerText()).toBe('Rent March');
    expect(await page.getByTestId('pay-message').innerText()).toBe('Thanks!');
    expect(await page.getByTestId('pay-other').innerText()).toContain('lnbcrt1xyz');
    await page.waitForSelector('[data-testid="pay-chain"][data-state="ok"]');
    expect(await page.getByTestId('pay-chain').innerText()).toContain('regtest address, the chain of your node');
    await rig.screenshot('40-payment-request');
    // Taken once: a reload does not bring it back.
    expect(await rig.web.app.dispatch('uri:take', {})).toEqual({ ok: true, value: { uri: null } });
  });

  it('a link arriving while the window is open takes it there; another chain’s address is flagged', async () => {
    const page = rig.page;
    await page.getByTestId('nav-settings').click();
    rig.web.app.uris.put('bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount=1');
    await page.waitForSelector('[data-testid="pay-chain"][data-state="other"]');
    expect(await page.getByTestId('pay-chain').innerText()).toBe('This is a mainnet address, but your node is on regtest: it cannot be paid from this wallet.');
  });

  it('a request with an unknown req- parameter is refused, as BIP21 says', async () => {
    const page = rig.page;
    rig.web.app.uris.put(`bitcoin:${REGTEST_ADDRESS}?amount=1&req-escrow=1`);
    await page.waitForSelector('[data-testid="pay-error"][data-field="parameter"]');
    expect(await page.getByTestId('pay-error').innerText()).toContain('The request requires "req-escrow", which Spyglass does not support');
    await rig.screenshot('41-payment-request-refused');
  });
});
