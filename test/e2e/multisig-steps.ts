/**
 * The steps of Watch a wallet → Assemble a multisig and of Receive → Verify on device for a multisig
 * (#30), shared by the devnet run (multisig-assemble.e2e.test.ts) and real Bitcoin Core's
 * (hwi-multisig-core.e2e.test.ts). The devices are the test HWI program's (hwi-rig.ts), standing in
 * for hardware wallets.
 */
import { expect } from 'vitest';
import { cosignerKeyOf, fingerprintOf, withChecksum } from '../support/hwi-devices';
import type { HwiRig } from './hwi-rig';

/** The import page with the assembler open, at the BIP48 native SegWit path of regtest's account 0. */
export async function openAssembler(h: HwiRig): Promise<void> {
  await h.page.goto(`${h.origin()}/#/import`);
  await h.tid('ms-open').click({ timeout: 60_000 });
  expect(await h.tid('multisig-assembler').getByTestId('ms-device-path').innerText()).toBe('m/48h/1h/0h/2h');
}

/** A connected device's key (getxpub at the BIP48 path) as the next cosigner. */
export async function addDeviceCosigner(h: HwiRig, fingerprint: string): Promise<void> {
  await h.tid('multisig-assembler').getByTestId(`signer-choose-${fingerprint}`).click({ timeout: 60_000 });
  await h.page.locator(`[data-testid="ms-cosigner"][data-fingerprint="${fingerprint}"]`).waitFor({ timeout: 60_000 });
}

/** A pasted `[fingerprint/path]tpub` (the test key of `name`) as the next cosigner. */
export async function pasteCosigner(h: HwiRig, name: string): Promise<void> {
  await h.tid('ms-key-text').fill(cosignerKeyOf(name, 'regtest'));
  await h.tid('ms-key-add').click();
  await h.page.locator(`[data-testid="ms-cosigner"][data-fingerprint="${fingerprintOf(name)}"]`).waitFor();
}

/** The 2-of-3's descriptor with `suffix` after every key (`/0/*`, `/<0;1>/*`, `/0/5`): the cosigners' keys in the order listed. */
export function vaultWith(threshold: number, names: string[], suffix: string): string {
  return withChecksum(`wsh(sortedmulti(${threshold},${names.map((k) => `${cosignerKeyOf(k, 'regtest')}${suffix}`).join(',')}))`);
}

/** The wallet's descriptor of one branch (0 receive, 1 change), as the node is given it. */
export const vaultDescriptor = (threshold: number, names: string[], branch: 0 | 1): string => vaultWith(threshold, names, `/${branch}/*`);

/**
 * `threshold` of the listed cosigners (the test keys `names`, in order) → the import's own preview (a
 * `wsh(sortedmulti(…/<0;1>/*))` with each key) → imported as `wallet` with a rescan; Receive's first
 * address is the node's deriveaddresses of the receive descriptor. Returns that address.
 */
export async function useAndImport(h: HwiRig, opts: { threshold: number; names: string[]; wallet: string; shot: string }): Promise<string> {
  const { tid, page } = h;
  await tid('ms-threshold').fill(String(opts.threshold));
  await tid('ms-use').click();
  await page.locator(`[data-testid="import-preview"][data-stale="false"][data-threshold="${opts.threshold}"]`).waitFor({ timeout: 60_000 });
  expect(await tid('import-text').inputValue()).toMatch(new RegExp(`^wsh\\(sortedmulti\\(${opts.threshold},.*/<0;1>/\\*\\)\\)#[a-z0-9]{8}$`));
  expect(await tid('import-key').allInnerTexts()).toEqual(opts.names.map((k) => expect.stringContaining(fingerprintOf(k))));
  await h.rig.screenshot(opts.shot);
  await tid('import-wallet-name').fill(opts.wallet);
  await tid('import-rescan-now').check();
  await tid('import-create').click();
  await tid('receive-address').waitFor({ timeout: 60_000 });
  const [first] = await h.n.rpc.call<string[]>('deriveaddresses', [vaultDescriptor(opts.threshold, opts.names, 0), [0, 0]]);
  const shown = await tid('receive-address').innerText();
  expect(shown).toBe(first);
  return shown;
}

/**
 * Receive → Verify on device for a multisig: the node's descriptor has keys of several devices, so the
 * person chooses; each listed device says whether it needs the multisig registered (`register`, in the
 * order listed: the maker a device must register it with first, or null when it shows it from the
 * descriptor); each device of `showOn` in turn shows the very address, given `sent`: the wallet's
 * descriptor at that address (xpubs with origins, sortedmulti), what a Ledger needs.
 */
export async function verifyMultisigOnDevice(h: HwiRig, opts: { register: Array<string | null>; showOn: string[]; sent: string; shot: string }): Promise<void> {
  const { tid, page } = h;
  const address = await tid('receive-address').innerText();
  for (const [n, fingerprint] of opts.showOn.entries()) {
    await tid('device-verify-go').click();
    await page.locator('[data-testid="device-verify-result"][data-ok="false"]').waitFor({ timeout: 60_000 });
    expect(await tid('device-verify-result').innerText()).toContain('keys of several devices');
    const verify = tid('device-verify');
    await verify.getByTestId('signer-device-note').first().waitFor({ timeout: 60_000 });
    if (n === 0) {
      const notes = verify.getByTestId('signer-device-note');
      expect(await notes.evaluateAll((els) => els.map((e) => e.getAttribute('data-warn')))).toEqual(opts.register.map((r) => String(r !== null)));
      for (const [i, maker] of opts.register.entries()) {
        if (maker) expect(await notes.nth(i).innerText()).toMatch(new RegExp(`^Needs this multisig registered: Register the multisig on the ${maker} first`));
      }
      await h.rig.screenshot(opts.shot);
    }
    await verify.getByTestId(`signer-choose-${fingerprint}`).click();
    await page.locator('[data-testid="device-verify-result"][data-ok="true"]').waitFor({ timeout: 60_000 });
    expect(await tid('device-verify-result').innerText()).toContain(address);
    expect(h.runs().filter((argv) => argv.includes('displayaddress')).at(-1)).toEqual(['--fingerprint', fingerprint, '--chain', 'regtest', 'displayaddress', '--desc', opts.sent]);
  }
}
