/**
 * `spyglass signer list|sign|verify-address` (#31 with #30), each a child process of the built command
 * (out/main/cli.js) on one data folder against the devnet. No hardware wallet exists on a test machine:
 * the signer program is the test HWI program (test/support/hwi-signer.mjs, named by SPYGLASS_SIGNER),
 * whose devices hold known test keys (test/support/hwi-devices.ts). A watch-only wallet of device A's
 * wpkh account is imported with `wallet import`, funded, and a draft made with `send create`; then:
 * the device list, the review printed and nothing sent to the device without --yes, each refusal (no
 * program, no device, locked, declined, another device, a fingerprint that is not one) with its exit
 * code and one-line reason and the draft unchanged, and a signature merged (the draft signed, then
 * finalized — so the device's signature verifies).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DraftView, SignerListView, SignerSignView } from '../../shared/ipc/contract';
import { descriptorsOf, fingerprintOf, HWI_CONFIG_ENV, HWI_SIGNER, type HwiConfig, type HwiDevice } from '../support/hwi-devices';
import { startDevnetPayer, type PayerNode } from '../support/payer-node';
import { expectCode, reason, spyglass, type CliRun } from './spyglass-run';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-cli-signer-'));
const data = join(dir, 'data');
const configFile = join(dir, 'hwi-config.json');
const argvLog = join(dir, 'argv.log');
const A: HwiDevice = { name: 'A', type: 'trezor', model: 'trezor_t' };
const B: HwiDevice = { name: 'B', type: 'ledger', model: 'ledger_nano_s_plus' };
const fpA = fingerprintOf('A');
const fpB = fingerprintOf('B');
const PASSWORD = 'cli-signer-pw';

const setDevices = (devices: HwiDevice[]): void => writeFileSync(configFile, JSON.stringify({ devices, log: argvLog } satisfies HwiConfig));
/** The commands the signer program was run with, in order. */
const HWI_COMMANDS = ['enumerate', 'getdescriptors', 'getxpub', 'displayaddress', 'signtx'];
const ranCommands = (): string[] => (existsSync(argvLog) ? readFileSync(argvLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { argv: string[] }).argv.find((a) => HWI_COMMANDS.includes(a))!) : []);

const signerEnv = { SPYGLASS_SIGNER: HWI_SIGNER, [HWI_CONFIG_ENV]: configFile, SPYGLASS_RPC_PASSWORD: PASSWORD };
const run = (args: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliRun> => spyglass(data, args, { env: { ...signerEnv, ...env } });

let n: PayerNode;
let payTo = '';
let receive = '';
let draft: DraftView;
const walletName = `device-a-${Date.now().toString(36)}`;

const refused = (r: CliRun, code: 1 | 2, what: string, pattern: RegExp) => {
  expectCode(r, code, what);
  expect(reason(r), what).toMatch(pattern);
};

/** The draft as it was made: no signature imported, not finalized. */
async function unchanged(what: string): Promise<void> {
  const d = expectCode(await run(['drafts', 'show', draft.id, '--json']), 0, 'drafts show').json<DraftView>();
  expect({ status: d.status, combined: d.combined, imports: d.imports, finalTx: d.finalTx }, what).toEqual({ status: 'unsigned', combined: null, imports: [], finalTx: null });
}

beforeAll(async () => {
  setDevices([A, B]);
  n = await startDevnetPayer(PASSWORD);
  payTo = await n.rpc.call<string>('getnewaddress', ['', 'bech32'], n.payer);
  expectCode(await run(['profile', 'add', '--name', 'node', '--node-url', n.rpcUrl, '--user', n.user, '--index-url', n.indexUrl, '--remember', 'session', '--quiet']), 0, 'profile add');
  // device A's wpkh account, as HWI's getdescriptors gives it, imported as a watch-only wallet
  const d = descriptorsOf(A, 'regtest', 0);
  writeFileSync(join(dir, 'device-a.txt'), `${d.receive.find((x) => x.startsWith('wpkh('))!}\n${d.internal.find((x) => x.startsWith('wpkh('))!}\n`);
  expectCode(await run(['wallet', 'import', join(dir, 'device-a.txt'), '--name', walletName, '--quiet']), 0, 'wallet import');
  receive = expectCode(await run(['receive', '--json']), 0, 'receive').json<{ address: string }>().address;
  await n.rpc.call('sendtoaddress', [receive, 1], n.payer);
  await n.mine(1);
  expectCode(await run(['refresh', '--quiet']), 0, 'refresh');
  draft = expectCode(await run(['send', 'create', '--to', `${payTo}=0.25`, '--fee-rate', '2', '--name', 'to the device', '--json']), 0, 'send create').json<{ draft: DraftView }>().draft;
  expect(draft.signing.cosigners.map((c) => c.fingerprint)).toEqual([fpA]);
}, 300_000);

afterAll(async () => {
  await n?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('spyglass signer (the test HWI program standing in for the devices)', () => {
  it('signer list: the program from SPYGLASS_SIGNER and each device, a locked one with what it needs', async () => {
    setDevices([A, { ...B, mode: 'locked' }]);
    const l = expectCode(await run(['signer', 'list', '--json']), 0, 'signer list').json<SignerListView>();
    expect(l.program).toEqual({ program: HWI_SIGNER, source: 'env', problem: null, nativePicker: false });
    expect(l.devices).toMatchObject([
      { model: 'trezor_t', fingerprint: fpA, needsPin: false, needs: null },
      { model: 'ledger_nano_s_plus', fingerprint: null, needsPin: true, needs: expect.stringMatching(/PIN/) },
    ]);
    const human = expectCode(await run(['signer', 'list']), 0, 'signer list').stdout;
    expect(human).toMatch(new RegExp(`\\n${fpA} +trezor_t +trezor +ready\\n`));
    expect(human).toMatch(/ledger_nano_s_plus.*Enter its PIN/);
  }, 60_000);

  it('no signer program: signer list and signer sign refuse (exit 1) saying how to install HWI', async () => {
    refused(await run(['signer', 'list'], { SPYGLASS_SIGNER: join(dir, 'no-such-hwi') }), 1, 'missing program', /no-such-hwi.*Install HWI/);
    refused(await run(['signer', 'list'], { SPYGLASS_SIGNER: undefined, PATH: dir }), 1, 'hwi not on PATH', /“hwi” is not on your PATH/);
    refused(await run(['signer', 'sign', draft.id, '--yes'], { SPYGLASS_SIGNER: undefined, PATH: dir }), 1, 'sign without program', /not on your PATH/);
    await unchanged('no program');
  }, 60_000);

  it('without --yes: the review is printed and nothing reaches the device (exit 1)', async () => {
    setDevices([A, B]);
    const before = ranCommands();
    const r = await run(['signer', 'sign', 'to the device']);
    refused(r, 1, 'no --yes', new RegExp(`not sent to the device: add --yes to sign it on trezor_t \\(${fpA}\\)`));
    expect(r.stdout).toContain(payTo);
    expect(r.stdout).toContain('0.25000000 BTC');
    expect(r.stdout).toContain(`to be signed on trezor_t (${fpA})`);
    // the device list was asked (to choose the device); signtx never ran
    expect(ranCommands().slice(before.length)).toEqual(['enumerate']);
    await unchanged('no --yes');
  }, 60_000);

  it('refusals: no device, locked, declined, another device, not a fingerprint — one line each, the draft unchanged', async () => {
    const cases: Array<[HwiDevice[], string[], 1 | 2, RegExp]> = [
      [[], [], 1, new RegExp(`no device is connected: connect and unlock the device ${fpA}`)],
      [[{ ...A, mode: 'locked' }], [], 1, /trezor_t is locked: enter its PIN/],
      [[B], [], 1, new RegExp(`no connected device holds a key this draft still needs \\(${fpA}\\): connected is ledger_nano_s_plus \\(${fpB}\\)`)],
      [[{ ...A, mode: 'decline' }], [], 1, /Declined on trezor_t .*the draft is as it was/],
      [[A, B], ['--fingerprint', fpB], 1, /holds none of this draft’s keys/],
      [[{ ...A, mode: 'locked' }], ['--fingerprint', fpA], 1, /locked: enter its PIN/],
      [[A], ['--fingerprint', 'nothex!!'], 2, /--fingerprint is a device's 8 hex digits/],
      [[A], ['--fingerprint'], 2, /--fingerprint needs a value/],
    ];
    for (const [devices, extra, code, words] of cases) {
      setDevices(devices);
      const r = await run(['signer', 'sign', draft.id, '--yes', ...extra]);
      refused(r, code, `${JSON.stringify(devices.map((d) => d.mode ?? d.name))} ${extra.join(' ')}`, words);
    }
    // nothing of any of them was kept (a signature merged shows as an import and a combined PSBT)
    await unchanged('after the refusals');
    refused(await run(['signer', 'sign', 'd_nosuchdraft', '--yes']), 2, 'unknown draft', /no draft "d_nosuchdraft"/);
  }, 180_000);

  it('signed on the device: the answer checked and merged (the draft signed), then finalized; signing again is refused', async () => {
    setDevices([A, B]);
    const r = expectCode(await run(['signer', 'sign', draft.id, '--yes', '--json']), 0, 'signer sign').json<SignerSignView>();
    expect(r.message).toMatch(/^trezor_t \(/);
    expect(r.draft).toMatchObject({ id: draft.id, status: 'signed' });
    expect(r.draft.imports.map((i) => i.source)).toEqual([`Signed on trezor_t (${fpA})`]);
    expect(ranCommands().at(-1)).toBe('signtx');
    refused(await run(['signer', 'sign', draft.id, '--yes']), 1, 'signed already', /is signed already: nothing is left to sign/);
    const fin = expectCode(await run(['drafts', 'finalize', draft.id, '--json']), 0, 'drafts finalize').json<DraftView>();
    expect(fin.status).toBe('final');
    // the node agrees the transaction is valid
    const [accept] = await n.rpc.call<Array<{ allowed: boolean }>>('testmempoolaccept', [[fin.finalTx!.hex]]);
    expect(accept!.allowed).toBe(true);
    refused(await run(['signer', 'sign', draft.id, '--yes']), 1, 'final already', /is finalized already: nothing is left to sign/);
  }, 120_000);

  it('signer verify-address: the device shows the wallet’s receive address; another device is refused', async () => {
    setDevices([A, B]);
    const r = expectCode(await run(['signer', 'verify-address', receive, '--json']), 0, 'verify-address').json<{ address: string; matches: boolean; descriptor: string }>();
    expect(r).toMatchObject({ address: receive, matches: true, descriptor: expect.stringMatching(new RegExp(`^wpkh\\(\\[${fpA}/84h/1h/0h/0/\\d+\\]`)) });
    refused(await run(['signer', 'verify-address', receive, '--fingerprint', fpB]), 1, 'another device', new RegExp(`${fpB} holds none of this address’s keys`));
  }, 60_000);

  it('--help of each signer command; the group without a subcommand is bad usage', async () => {
    for (const cmd of ['list', 'sign', 'verify-address']) expect(expectCode(await run(['signer', cmd, '--help']), 0, cmd).stdout).toMatch(new RegExp(`^usage: spyglass signer ${cmd}`));
    refused(await run(['signer']), 2, 'signer alone', /signer needs one of: list, sign, verify-address/);
  });
});
