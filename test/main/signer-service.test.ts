/**
 * Hardware wallets over USB (#30) on the real main-process services (createApp: real SQLite, the
 * devnet over HTTP): the external signer program is the test HWI program (test/support/hwi-signer.mjs,
 * standing in for a device, which cannot exist here) named by SPYGLASS_SIGNER. A watch-only wallet of
 * a device's account descriptors (signer:descriptors) is funded; the device shows a receive address
 * (signer:display-address); a draft of a wpkh and a tr coin is signed on the device (signer:sign),
 * finalized, broadcast and mined; a 2-of-3 wsh is signed by two devices one after another. The exact
 * program and argv are checked (no shell, no user text as an option), and each failure — locked,
 * passphrase, declined, slow past the deadline, cancelled, garbage, crash, flood, tampered, wrong
 * device, missing program — has its own message and leaves the draft as it was.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { IpcResult } from '../../shared/errors';
import type { DraftView, SendContextView, SendCreateReply } from '../../shared/ipc/send';
import type { SignerDescriptorsView, SignerListView, SignerSignView, SignerXpubView } from '../../shared/ipc/signer';
import type { WalletPreview } from '../../shared/ipc/wallet';
import { REGTEST } from '../../shared/bitcoin/networks';
import { assembleMultisig, bip48Path, cosignerFromDevice, readCosigner } from '../../shared/wallet/multisig-assemble';
import { connectNode, dispatchOk } from '../support/app';
import { cosignerKeyOf, fingerprintOf, HWI_CONFIG_ENV, HWI_SIGNER, withChecksum, xpubAt, type HwiConfig, type HwiDevice } from '../support/hwi-devices';
import { startDevnetPayer } from '../support/payer-node';
import type { PayerNode } from '../support/payer-node';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-signer-'));
const configFile = join(dir, 'hwi-config.json');
const argvLog = join(dir, 'argv.log');
const A: HwiDevice = { name: 'A', type: 'trezor', model: 'trezor_t' };
const B: HwiDevice = { name: 'B', type: 'ledger', model: 'ledger_nano_s_plus' };
const C: HwiDevice = { name: 'C', type: 'coldcard', model: 'coldcard' };
const fpA = fingerprintOf('A');
const fpB = fingerprintOf('B');
const fpC = fingerprintOf('C');

const setDevices = (devices: HwiDevice[], extra: Partial<HwiConfig> = {}): void => writeFileSync(configFile, JSON.stringify({ devices, log: argvLog, slowMs: 20_000, ...extra }));
const loggedArgv = (): Array<{ argv: string[]; stdin: boolean }> => (existsSync(argvLog) ? readFileSync(argvLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { argv: string[]; stdin: boolean }) : []);

let n: PayerNode;
let app: SpyglassApp;
let profileId = '';
let payTo = '';
const suffix = Date.now().toString(36);
const watch = `device-${suffix}`;

async function fail(channel: string, payload: unknown): Promise<{ code: string; message: string; detail?: Record<string, unknown> }> {
  const r: IpcResult<unknown> = await app.dispatch(channel, payload);
  if (r.ok) throw new Error(`${channel} should have failed`);
  return r.error as { code: string; message: string; detail?: Record<string, unknown> };
}

async function useWallet(wallet: string): Promise<void> {
  expect((await connectNode(app, n, wallet, profileId)).state).toBe('connected');
}

async function compose(amount: string, seed: number): Promise<DraftView> {
  const c = await dispatchOk<SendContextView>(app, 'send:context');
  const r = await dispatchOk<SendCreateReply>(app, 'send:create', { form: { rows: [{ kind: 'pay', address: payTo, amount }], unit: 'btc', feeRate: '2', coins: c.coins.map((x) => x.outpoint), seed } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.draft;
}

beforeAll(async () => {
  setDevices([A, B, C]);
  n = await startDevnetPayer('signer-pw');
  payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
  app = createApp({
    dataDir: dir,
    info: { version: 'test', platform: process.platform, bridge: true },
    secretBackend: null,
    psbtWorker: 'inline',
    signer: { env: { ...process.env, SPYGLASS_SIGNER: HWI_SIGNER, [HWI_CONFIG_ENV]: configFile }, timeouts: { buttonMs: 8_000, quickMs: 60_000 }, maxReplyBytes: 1 << 20 },
  });
  const c = await connectNode(app, n, '');
  profileId = c.profileId;
  expect(c.state).toBe('connected');
}, 300_000);

afterAll(async () => {
  await app?.close();
  await n?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a single-sig wallet from a device', () => {
  let draft: DraftView;

  it('signer:list: the program from SPYGLASS_SIGNER and each device with its model, fingerprint and what it needs', async () => {
    setDevices([A, { ...B, mode: 'locked' }]);
    const l = await dispatchOk<SignerListView>(app, 'signer:list');
    expect(l.program).toEqual({ program: HWI_SIGNER, source: 'env', problem: null, nativePicker: false });
    expect(l.devices).toMatchObject([
      { model: 'trezor_t', fingerprint: fpA, needsPin: false, needs: null },
      { model: 'ledger_nano_s_plus', fingerprint: null, needsPin: true, needs: expect.stringMatching(/PIN/) },
    ]);
  });

  it('signer:descriptors: the account’s single-sig pairs; imported into a watch-only wallet and funded', async () => {
    setDevices([A, B, C]);
    const d = await dispatchOk<SignerDescriptorsView>(app, 'signer:descriptors', { fingerprint: fpA, account: 0 });
    expect(d.pairs.map((p) => p.scriptType)).toEqual(['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2tr']);
    await n.rpc.call('createwallet', [watch, true, true, '', false, true, true]);
    const chosen = d.pairs.filter((p) => p.scriptType === 'p2wpkh' || p.scriptType === 'p2tr');
    const imported = await n.rpc.call<Array<{ success: boolean }>>(
      'importdescriptors',
      [chosen.flatMap((p) => [{ desc: p.receive, active: true, internal: false, range: [0, 100], timestamp: 'now', next_index: 0 }, { desc: p.change, active: true, internal: true, range: [0, 100], timestamp: 'now', next_index: 0 }])],
      watch,
    );
    expect(imported.every((r) => r.success)).toBe(true);
    for (const type of ['bech32', 'bech32m']) await n.rpc.call('sendtoaddress', [await n.rpc.call<string>('getnewaddress', ['', type], watch), 1], n.payer);
    await n.mine(1);
    await useWallet(watch);
  }, 120_000);

  it('signer:display-address: the node’s descriptor of a receive address goes to the device, which shows the same address', async () => {
    const addr = await n.rpc.call<string>('getnewaddress', ['', 'bech32m'], watch);
    const shown = await dispatchOk<{ address: string; descriptor: string; matches: boolean }>(app, 'signer:display-address', { address: addr });
    expect(shown).toMatchObject({ address: addr, matches: true, descriptor: expect.stringMatching(new RegExp(`^tr\\(\\[${fpA}/86h/1h/0h/0/\\d+\\]`)) });
    const last = loggedArgv().at(-1)!;
    expect(last).toEqual({ argv: ['--fingerprint', fpA, '--chain', 'regtest', 'displayaddress', '--desc', shown.descriptor], stdin: false });
    // another device holds none of its keys
    expect((await fail('signer:display-address', { address: addr, fingerprint: fpB })).detail).toMatchObject({ signer: 'wrong-fingerprint' });
  }, 60_000);

  it('every failure has its own message and leaves the draft as it was', async () => {
    draft = await compose('1.5', 7);
    expect(draft.inputs).toHaveLength(2);
    const same = async () => {
      const now = await dispatchOk<DraftView>(app, 'drafts:get', { id: draft.id });
      expect({ status: now.status, combined: now.combined, imports: now.imports, finalTx: now.finalTx }).toEqual({ status: 'unsigned', combined: null, imports: [], finalTx: null });
    };
    const cases: Array<[HwiDevice[], string, RegExp]> = [
      [[{ ...A, mode: 'locked' }], 'needs-pin', /locked: enter its PIN/],
      [[{ ...A, mode: 'passphrase' }], 'needs-passphrase', /passphrase/],
      [[{ ...A, mode: 'decline' }], 'declined', /Declined on trezor_t/],
      [[{ ...A, mode: 'garbage' }], 'garbage', /not JSON/],
      [[{ ...A, mode: 'exit' }], 'crashed', /exit code 1.*device disconnected/],
      [[{ ...A, mode: 'tamper' }], 'changed-tx', /different transaction.*output 0's amount/],
      [[{ ...A, mode: 'flood' }], 'too-big', /more than 1 MB/],
      [[{ ...A, taproot: false }], 'unsupported', /Taproot/],
      [[B], 'wrong-fingerprint', new RegExp(`No connected device has the fingerprint ${fpA}: connected is ledger_nano_s_plus \\(${fpB}\\)`)],
      [[], 'no-device', /No device is connected/],
      [[{ ...A, mode: 'slow' }], 'timeout', /did not answer within 8 seconds/],
    ];
    for (const [devices, failure, words] of cases) {
      setDevices(devices);
      const e = await fail('signer:sign', { id: draft.id, fingerprint: fpA });
      expect(e.detail?.signer, `${failure}: ${e.message}`).toBe(failure);
      expect(e.message).toMatch(words);
      await same();
    }
    // a device whose key is not in the draft is not even asked
    setDevices([A, B]);
    const before = loggedArgv().length;
    expect((await fail('signer:sign', { id: draft.id, fingerprint: fpB })).detail).toMatchObject({ signer: 'not-a-key' });
    expect(loggedArgv()).toHaveLength(before);
    await same();
  }, 300_000);

  it('Cancel stops a device still waiting for its button; nothing is kept', async () => {
    setDevices([{ ...A, mode: 'slow' }]);
    const before = loggedArgv().length;
    const pending = app.dispatch('signer:sign', { id: draft.id, fingerprint: fpA, op: 'op-1' });
    // The device has been asked (the op is registered before the program starts): it now waits for its button.
    while (!loggedArgv().slice(before).some((l) => l.argv.includes('signtx'))) await new Promise((r) => setTimeout(r, 50));
    expect(await dispatchOk(app, 'signer:cancel', { op: 'op-1' })).toEqual({ canceled: true });
    const r = await pending;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'cancelled', detail: { signer: 'canceled' } });
    expect((await dispatchOk<DraftView>(app, 'drafts:get', { id: draft.id })).status).toBe('unsigned');
  }, 60_000);

  it('arguments: no user text becomes an option, the program runs without a shell (a path full of shell syntax)', async () => {
    setDevices([A, B]);
    const before = loggedArgv().length;
    for (const fingerprint of ['--chain=main', '0000000g', `${fpA};x`, `-${fpA.slice(1)}`]) {
      expect((await fail('signer:sign', { id: draft.id, fingerprint })).code).toBe('input.invalid');
    }
    expect((await fail('signer:descriptors', { fingerprint: fpA, account: -1 })).code).toBe('input.invalid');
    expect((await fail('signer:descriptors', { fingerprint: fpA, account: 1.5 })).code).toBe('input.invalid');
    // an address is only asked of the node (a JSON-RPC parameter), never put on the command line
    expect((await fail('signer:display-address', { address: '--desc=wpkh(x)' })).message).toMatch(/Invalid or unsupported|address/i);
    expect(loggedArgv()).toHaveLength(before);
    // the program the person chose, at a path full of shell syntax: run as that file, no shell reads it
    const weird = join(dir, 'my hwi $(touch pwned); `touch pwned2` | x');
    symlinkSync(HWI_SIGNER, weird);
    const other = createApp({ dataDir: mkdtempSync(join(dir, 'chosen-')), info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline', signer: { env: { PATH: process.env.PATH ?? '', [HWI_CONFIG_ENV]: configFile } } });
    try {
      expect(await dispatchOk(other, 'signer:set-program', { file: weird })).toEqual({ program: weird, source: 'setting', problem: null, nativePicker: false });
      expect((await dispatchOk<SignerListView>(other, 'signer:list')).devices.map((x) => x.fingerprint)).toEqual([fpA, fpB]);
      expect(loggedArgv().at(-1)).toEqual({ argv: ['enumerate'], stdin: false });
      for (const f of ['pwned', 'pwned2']) expect(existsSync(join(process.cwd(), f)) || existsSync(join(dir, f))).toBe(false);
      // a file that cannot run is refused when chosen
      expect((await other.dispatch('signer:set-program', { file: configFile })).ok).toBe(false);
      expect(await dispatchOk(other, 'signer:set-program', { file: null })).toMatchObject({ source: 'path' });
    } finally {
      await other.close();
    }
  });

  it('signer:sign: the draft as PSBT v0 goes to the device; its signatures verify and merge; finalize, broadcast, mined', async () => {
    setDevices([A, B, C]);
    const exported = await dispatchOk<{ base64: string; version: number }>(app, 'drafts:export', { id: draft.id, version: 0, which: 'combined' });
    const signed = await dispatchOk<SignerSignView>(app, 'signer:sign', { id: draft.id, fingerprint: fpA, op: 'sign-1' });
    // the exact program and argv: the fixed options, the checked fingerprint and chain, the PSBT itself
    expect(loggedArgv().at(-1)).toEqual({ argv: ['--fingerprint', fpA, '--chain', 'regtest', 'signtx', exported.base64], stdin: false });
    expect(signed.draft.status).toBe('signed');
    expect(signed.message).toMatch(/trezor_t \(.{8}\) signed: PSBT v0: 2 new signatures/);
    expect(signed.draft.imports).toEqual([expect.objectContaining({ source: `Signed on trezor_t (${fpA})` })]);
    // asking again adds nothing and changes nothing
    expect((await fail('signer:sign', { id: draft.id, fingerprint: fpA })).detail).toMatchObject({ signer: 'no-signature' });
    const fin = await dispatchOk<DraftView>(app, 'drafts:finalize', { id: draft.id });
    expect(fin.status).toBe('final');
    await dispatchOk(app, 'drafts:broadcast', { id: draft.id, confirmed: true });
    await n.mine(1);
    const tx = await n.rpc.call<{ confirmations: number }>('gettransaction', [fin.finalTx!.txid], n.payer);
    expect(tx.confirmations).toBe(1);
  }, 120_000);
});

describe('a 2-of-3 wsh: two devices sign one after another', () => {
  it('device A, then device C; finalized and broadcast', async () => {
    setDevices([A, B, C]);
    const keys = ['A', 'B', 'C'].map((k) => cosignerKeyOf(k, 'regtest'));
    const branch = (b: number) => withChecksum(`wsh(sortedmulti(2,${keys.map((k) => `${k}/${b}/*`).join(',')}))`);
    const vault = `vault-${suffix}`;
    await n.rpc.call('createwallet', [vault, true, true, '', false, true, true]);
    const r = await n.rpc.call<Array<{ success: boolean }>>(
      'importdescriptors',
      [[{ desc: branch(0), active: true, internal: false, range: [0, 50], timestamp: 'now', next_index: 0 }, { desc: branch(1), active: true, internal: true, range: [0, 50], timestamp: 'now', next_index: 0 }]],
      vault,
    );
    expect(r.every((x) => x.success)).toBe(true);
    const [addr] = await n.rpc.call<string[]>('deriveaddresses', [branch(0), [0, 0]]);
    await n.rpc.call('sendtoaddress', [addr, 2], n.payer);
    await n.mine(1);
    await useWallet(vault);
    // a multisig address: the person chooses which of its devices shows it; that device shows the same address
    const e = await fail('signer:display-address', { address: addr });
    expect(e).toMatchObject({ code: 'input.invalid', detail: { field: 'fingerprint' } });
    expect(e.message).toContain(`keys of several devices (${[fpA, fpB, fpC].sort().join(', ')})`);
    // the wallet's own descriptor at the address (xpubs with origins, sortedmulti, /0/<index>), as a Ledger
    // needs it to match the policy registered on it (the test device refuses the node's derived-key `multi`
    // form), and as the Coldcard needs it (sortedmulti only)
    const atAddress = withChecksum(`wsh(sortedmulti(2,${keys.map((k) => `${k}/0/0`).join(',')}))`);
    setDevices([A, { ...B, registered: [withChecksum(`wsh(sortedmulti(2,${keys.map((k) => `${k}/<0;1>/*`).join(',')}))`)] }, C]);
    for (const fp of [fpB, fpC, fpA]) {
      expect(await dispatchOk(app, 'signer:display-address', { address: addr, fingerprint: fp })).toEqual({ address: addr, matches: true, descriptor: atAddress });
      expect(loggedArgv().at(-1)).toEqual({ argv: ['--fingerprint', fp, '--chain', 'regtest', 'displayaddress', '--desc', atAddress], stdin: false });
    }
    // a Ledger on which the person registered this wallet as multi shows no sortedmulti address
    setDevices([A, { ...B, registered: [withChecksum(`wsh(multi(2,${keys.map((k) => `${k}/<0;1>/*`).join(',')}))`)] }, C]);
    expect((await fail('signer:display-address', { address: addr, fingerprint: fpB })).detail).toMatchObject({ signer: 'unsupported', hwiMessage: expect.stringMatching(/sortedmulti policy is not the wallet registered on this Ledger/) });
    setDevices([A, B, C]);
    const d = await compose('0.5', 11);
    // the Signers page lists the devices first: their models name the signatures
    expect((await dispatchOk<SignerListView>(app, 'signer:list')).devices.map((x) => x.fingerprint)).toEqual([fpA, fpB, fpC]);
    const first = await dispatchOk<SignerSignView>(app, 'signer:sign', { id: d.id, fingerprint: fpA });
    expect(first.draft.status).toBe('partial');
    expect(first.draft.signing.inputs[0]!.signed).toBe(1);
    const withFirst = await dispatchOk<{ base64: string }>(app, 'drafts:export', { id: d.id, version: 0, which: 'combined' });
    const second = await dispatchOk<SignerSignView>(app, 'signer:sign', { id: d.id, fingerprint: fpC });
    expect(second.draft.status).toBe('signed');
    // the second device got the draft with the first one's signature in it
    expect(loggedArgv().at(-1)).toEqual({ argv: ['--fingerprint', fpC, '--chain', 'regtest', 'signtx', withFirst.base64], stdin: false });
    expect(second.draft.imports.map((i) => i.source)).toEqual([`Signed on trezor_t (${fpA})`, `Signed on coldcard (${fpC})`]);
    const fin = await dispatchOk<DraftView>(app, 'drafts:finalize', { id: d.id });
    expect(fin.status).toBe('final');
    await dispatchOk(app, 'drafts:broadcast', { id: d.id, confirmed: true });
  }, 180_000);

  it('a missing program: a clear message with how to install HWI', async () => {
    const bare = createApp({ dataDir: mkdtempSync(join(dir, 'bare-')), info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline', signer: { env: { PATH: join(dir, 'nothing-here') } } });
    try {
      const l = await dispatchOk<SignerListView>(bare, 'signer:list');
      expect(l.program).toMatchObject({ program: null, source: 'path', problem: expect.stringMatching(/“hwi” is not on your PATH.*Install HWI/) });
      expect(l.devices).toEqual([]);
      const e = await bare.dispatch('signer:set-program', { file: join(dir, 'no-such-hwi') });
      expect(!e.ok && e.error.message).toMatch(/does not exist.*Install HWI/);
    } finally {
      await bare.close();
    }
  });
});

describe('a cosigner’s key from a device (getxpub), for assembling a multisig', () => {
  it('signer:xpub: the BIP48 key at the path asked, by exactly HWI’s argv; assembled into a 2-of-3 the import previews as the node derives it', async () => {
    setDevices([A, B, C]);
    const path = bip48Path('p2wsh', REGTEST, 0);
    expect(path).toBe('m/48h/1h/0h/2h');
    const got = await dispatchOk<SignerXpubView>(app, 'signer:xpub', { fingerprint: fpB, path });
    expect(got).toEqual({ fingerprint: fpB, path, xpub: xpubAt('B', path, 'regtest') });
    expect(loggedArgv().at(-1)).toEqual({ argv: ['--fingerprint', fpB, '--chain', 'regtest', 'getxpub', path], stdin: false });
    // the same key with ' for hardened is sent as HWI writes it (h)
    expect((await dispatchOk<SignerXpubView>(app, 'signer:xpub', { fingerprint: fpA, path: "m/48'/1'/0'/2'" })).path).toBe(path);
    const a = await dispatchOk<SignerXpubView>(app, 'signer:xpub', { fingerprint: fpA, path });
    const asm = assembleMultisig(
      { type: 'p2wsh', threshold: 2, cosigners: [cosignerFromDevice({ ...a, source: 'A' }), cosignerFromDevice({ ...got, source: 'B' }), readCosigner(cosignerKeyOf('C', 'regtest'), 'p2wsh')] },
      REGTEST,
    );
    const preview = await dispatchOk<WalletPreview>(app, 'wallet:preview', { text: asm.descriptor });
    expect({ scriptType: preview.scriptType, threshold: preview.threshold, fps: preview.keys.map((k) => k.fingerprint) }).toEqual({ scriptType: 'p2wsh', threshold: 2, fps: [fpA, fpB, fpC] });
    // the same 2-of-3 the 2-of-3 signing test below imports by hand (each key's /0/* and /1/*)
    const keys = ['A', 'B', 'C'].map((k) => cosignerKeyOf(k, 'regtest'));
    const receive = withChecksum(`wsh(sortedmulti(2,${keys.map((k) => `${k}/0/*`).join(',')}))`);
    expect(preview.firstAddresses.map((x) => x.address)).toEqual(await n.rpc.call<string[]>('deriveaddresses', [receive, [0, preview.firstAddresses.length - 1]]));
  }, 60_000);

  it('refused: a path that is not one (never on the command line), a locked device, a device that is not connected', async () => {
    setDevices([A, { ...B, mode: 'locked' }]);
    const before = loggedArgv().length;
    for (const path of ['--chain=main', 'm/48h/1h/0h/2h --expert', '48h/1h', 'm/2147483648', 'm/1/2/3/4/5/6/7/8/9/10/11']) {
      expect((await fail('signer:xpub', { fingerprint: fpA, path })).code, path).toBe('input.invalid');
    }
    expect(loggedArgv()).toHaveLength(before);
    expect((await fail('signer:xpub', { fingerprint: fpB, path: 'm/48h/1h/0h/2h' })).detail).toMatchObject({ signer: 'needs-pin' });
    setDevices([A]);
    expect((await fail('signer:xpub', { fingerprint: fpC, path: 'm/48h/1h/0h/2h' })).detail).toMatchObject({ signer: 'wrong-fingerprint' });
  }, 60_000);
});
