/**
 * The set-up every hardware-wallet e2e shares (#30): a node (the devnet or real Bitcoin Core, from
 * payer-node.ts), the app behind the loopback bridge with Chromium (harness.ts), a profile on that
 * node, and the test HWI program (test/support/hwi-signer.mjs, standing in for the hardware wallets,
 * which cannot exist here) named by SPYGLASS_SIGNER, whose devices come from a configuration file the
 * test rewrites (`setDevices`) to plug, unplug or switch a device's behaviour. Used by hwi-flow.ts,
 * multisig-assemble.e2e.test.ts and hwi-multisig-core.e2e.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { PayerNode } from '../support/payer-node';
import { HWI_CONFIG_ENV, HWI_SIGNER, type HwiDevice } from '../support/hwi-devices';
import { startRig, type Rig } from './harness';

export interface HwiRig {
  /** Set in beforeAll. */
  n: PayerNode;
  rig: Rig;
  page: Page;
  tid(testId: string): Locator;
  /** The bridge's origin: `${origin()}/#/…` opens a page. */
  origin(): string;
  /** The devices the test HWI program lists from now on (each run reads the file again). */
  setDevices(devices: HwiDevice[]): void;
  /** Every run of the test HWI program so far: its argv (after the program), in order. */
  runs(): string[][];
  /** An IPC call through the app's own dispatcher; its error's message is thrown. */
  ok<T>(channel: string, payload: unknown): Promise<T>;
}

/** Registers the beforeAll/afterAll of the rig (in the calling describe) and returns it; `devices` are plugged in at the start. */
export function useHwiRig(start: () => Promise<PayerNode>, devices: HwiDevice[]): HwiRig {
  const tmp = mkdtempSync(join(tmpdir(), 'spyglass-hwi-e2e-'));
  const config = join(tmp, 'hwi-config.json');
  const log = join(tmp, 'hwi-runs.jsonl');
  const saved: Record<string, string | undefined> = {};
  const h = {
    tid: (t: string) => h.page.getByTestId(t),
    origin: () => h.rig.web.bridge.origin,
    setDevices: (list: HwiDevice[]) => writeFileSync(config, JSON.stringify({ devices: list, log })),
    runs: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { argv: string[] }).argv) : []),
    ok: async <T>(channel: string, payload: unknown): Promise<T> => {
      const r = await h.rig.web.app.dispatch(channel, payload);
      if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
      return r.value as T;
    },
  } as HwiRig;

  beforeAll(async () => {
    h.setDevices(devices);
    for (const k of ['SPYGLASS_SIGNER', HWI_CONFIG_ENV]) saved[k] = process.env[k];
    process.env.SPYGLASS_SIGNER = HWI_SIGNER;
    process.env[HWI_CONFIG_ENV] = config;
    h.n = await start();
    h.rig = await startRig();
    h.page = h.rig.page;
    const p = await h.ok<{ profile: { id: string } }>('profiles:save', { profile: { name: 'Node', nodeUrl: h.n.rpcUrl, auth: 'password', rpcUser: h.n.user, wallet: '', indexUrl: h.n.indexUrl }, password: h.n.password, remember: 'session' });
    await h.ok('profiles:activate', { id: p.profile.id });
  }, 300_000);
  afterAll(async () => {
    await h.rig?.close();
    await h.n?.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(tmp, { recursive: true, force: true });
  });
  return h;
}
