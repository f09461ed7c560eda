// "Connect your node" filled in as a person does (the flows that start from a fresh app: wallet-flow,
// two-wallets-flow): the form opened, every field typed, nothing submitted yet.
import type { Page } from 'playwright-core';

export interface ConnectFields {
  name: string;
  rpcUrl: string;
  user: string;
  password: string;
  wallet: string;
  indexUrl: string;
}

export async function fillConnectForm(page: Page, origin: string, f: ConnectFields): Promise<void> {
  const tid = (t: string) => page.getByTestId(t);
  await page.goto(`${origin}/#/connect`);
  await tid('profile-form')
    .waitFor()
    .catch(async (e: unknown) => {
      // What the page showed instead, for the failure message (a screen that never came is otherwise silent).
      const shown = await page.evaluate('document.body ? document.body.innerText.slice(0, 600) : "(no body)"').catch((x: unknown) => `(page unreadable: ${String(x)})`);
      throw new Error(`${(e as Error).message}\nurl: ${page.url()}\npage text: ${String(shown)}`);
    });
  await tid('form-name').fill(f.name);
  await tid('form-node-url').fill(f.rpcUrl);
  await tid('form-auth-password').check();
  await tid('form-rpc-user').fill(f.user);
  await tid('form-password').fill(f.password);
  await tid('form-wallet').fill(f.wallet);
  await tid('form-index-url').fill(f.indexUrl);
}
