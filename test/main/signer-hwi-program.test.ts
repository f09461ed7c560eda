/**
 * The test HWI program (test/support/hwi-signer.mjs) speaks HWI 3.x's command line: the shapes of
 * enumerate, getdescriptors, getxpub, displayaddress and signtx, HWI's error codes, argparse's refusals,
 * and real signatures (wpkh, tr key path, a 2-of-3 wsh cosigned by two devices) that Spyglass's own
 * verifier accepts and finalizes. It stands in for a hardware wallet, which cannot exist here.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as btc from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { combinePsbtsBase64, finalizePsbtBase64, parsePsbt, verifyPsbtSignatures } from '../../shared/bitcoin/psbt';
import { deriveAddresses, parseDescriptor } from '../../shared/bitcoin/descriptor';
import { REGTEST } from '../../shared/bitcoin/networks';
import { cosignerKeyOf, fingerprintOf, HWI_SIGNER, masterOf, parsePath, withChecksum, writeHwiConfig, type HwiConfig } from '../support/hwi-devices';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-hwi-program-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(config: HwiConfig, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { env } = writeHwiConfig(dir, config);
  return new Promise((resolve) => {
    execFile(HWI_SIGNER, args, { env: { ...process.env, ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}
const json = async (config: HwiConfig, args: string[]): Promise<unknown> => {
  const r = await run(config, args);
  return JSON.parse(r.stdout);
};

const A = { name: 'A', type: 'trezor', model: 'trezor_t' };
const B = { name: 'B', type: 'ledger', model: 'ledger_nano_s_plus' };
const C = { name: 'C', type: 'coldcard', model: 'coldcard' };
const NET = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const fpNum = (name: string) => Number.parseInt(fingerprintOf(name), 16);
const keyAt = (name: string, path: string) => masterOf(name).derive(path.replace(/h/g, "'"));

describe('the test HWI program', () => {
  it('enumerate: every device with type, model, path and fingerprint; a locked one needs its PIN and has no fingerprint', async () => {
    const list = (await json({ devices: [A, { ...B, mode: 'locked' }] }, ['enumerate'])) as Array<Record<string, unknown>>;
    expect(list[0]).toMatchObject({ type: 'trezor', model: 'trezor_t', fingerprint: fingerprintOf('A'), needs_pin_sent: false, needs_passphrase_sent: false });
    expect(list[1]).toMatchObject({ type: 'ledger', needs_pin_sent: true, code: -12 });
    expect(list[1]!.fingerprint).toBeUndefined();
  });

  it('getdescriptors: BIP44/49/84/86 account descriptors with checksums that derive addresses', async () => {
    const d = (await json({ devices: [A] }, ['--fingerprint', fingerprintOf('A'), '--chain', 'regtest', 'getdescriptors', '--account', '3'])) as { receive: string[]; internal: string[] };
    expect(d.receive.map((x) => x.slice(0, x.indexOf('('))).sort()).toEqual(['pkh', 'sh', 'tr', 'wpkh']);
    expect(d.receive.find((x) => x.startsWith('wpkh'))).toContain(`[${fingerprintOf('A')}/84h/1h/3h]tpub`);
    for (const x of [...d.receive, ...d.internal]) expect(parseDescriptor(x, REGTEST, { requireChecksum: true }).isRange()).toBe(true);
    // a device that signs no taproot leaves tr out
    const noTr = (await json({ devices: [{ ...A, taproot: false }] }, ['--fingerprint', fingerprintOf('A'), '--chain', 'regtest', 'getdescriptors'])) as { receive: string[] };
    expect(noTr.receive).toHaveLength(3);
  });

  it('displayaddress --desc: the address of the descriptor after checking the fingerprint and key', async () => {
    const d = (await json({ devices: [A] }, ['--fingerprint', fingerprintOf('A'), '--chain', 'regtest', 'getdescriptors'])) as { receive: string[] };
    for (const ranged of d.receive) {
      const one = withChecksum(ranged.replace(/#.*$/, '').replace('/0/*', '/0/5'));
      const expected = (deriveAddresses(ranged, REGTEST, [5, 5]) as string[])[0];
      expect(await json({ devices: [A] }, ['--fingerprint', fingerprintOf('A'), '--chain', 'regtest', 'displayaddress', '--desc', one])).toEqual({ address: expected });
    }
    const other = d.receive[2]!.replace(/#.*$/, '').replace('/0/*', '/0/0').replace(fingerprintOf('A'), '00000001');
    expect(await json({ devices: [A] }, ['--fingerprint', fingerprintOf('A'), '--chain', 'regtest', 'displayaddress', '--desc', other])).toMatchObject({ code: -7, error: expect.stringMatching(/fingerprint does not match/) });
  });

  it('displayaddress --desc of a multisig: derived from the xpubs and their suffix; a Ledger refuses derived keys and a policy it has not registered, as HWI 3.2.0', async () => {
    const keys = ['A', 'B', 'C'].map((k) => cosignerKeyOf(k, 'regtest'));
    const ms = (fn: string, suffix: string) => withChecksum(`wsh(${fn}(2,${keys.map((k) => `${k}${suffix}`).join(',')}))`);
    const expected = (deriveAddresses(ms('sortedmulti', '/1/*'), REGTEST, [4, 4]) as string[])[0];
    const ledger = { ...B, registered: [ms('sortedmulti', '/<0;1>/*')] };
    const show = (device: typeof A, desc: string) => json({ devices: [device] }, ['--fingerprint', fingerprintOf(device.name), '--chain', 'regtest', 'displayaddress', '--desc', desc]);
    for (const device of [A, ledger, C]) expect(await show(device, ms('sortedmulti', '/1/4'))).toEqual({ address: expected });
    // the node's descriptor of the same address: derived keys, multi (Core's InferDescriptor)
    const derived = parseDescriptor(ms('sortedmulti', '/1/*'), REGTEST).expandedString(4);
    expect(await show(A, derived)).toEqual({ address: expected });
    expect(await show(ledger, derived)).toEqual({ code: -7, error: 'Ledger Bitcoin app requires derivation paths ending with /0/* or /1/* for multisig' });
    expect(await show(C, derived)).toEqual({ code: -7, error: 'Coldcards only allow sortedmulti descriptors' });
    expect(await show(ledger, ms('multi', '/1/4'))).toMatchObject({ code: -19, error: expect.stringMatching(/multi policy is not the wallet registered on this Ledger \(2-of-3 sortedmulti\)/) });
    expect(await show(ledger, withChecksum(`wsh(sortedmulti(2,${keys.map((k, i) => `${k}/1/${4 + i}`).join(',')}))`))).toMatchObject({ code: -7, error: expect.stringMatching(/all derivation paths to end with/) });
  });

  it('getxpub PATH: {"xpub": …} at the path, in the version of the chain (tpub off mainnet), as HWI 3.x writes it; a path that is not one is BAD_ARGUMENT', async () => {
    const fp = fingerprintOf('B');
    for (const [chain, path] of [['regtest', 'm/48h/1h/0h/2h'], ['main', "m/48'/0'/3'/1'"], ['test', 'm']] as const) {
      const k = keyAt('B', path);
      const want = new HDKey({ versions: chain === 'main' ? { private: 0x0488ade4, public: 0x0488b21e } : { private: 0x04358394, public: 0x043587cf }, depth: k.depth, index: k.index, parentFingerprint: k.parentFingerprint, chainCode: k.chainCode!, publicKey: k.publicKey! }).publicExtendedKey;
      expect(await json({ devices: [B] }, ['--fingerprint', fp, '--chain', chain, 'getxpub', path])).toEqual({ xpub: want });
    }
    expect(await json({ devices: [B] }, ['--fingerprint', fp, '--chain', 'regtest', 'getxpub', '48h/1h'])).toEqual({ error: 'Invalid BIP 32 path', code: -7 });
    expect((await run({ devices: [B] }, ['--fingerprint', fp, 'getxpub'])).code).toBe(2);
  });

  it("errors as HWI writes them: no such fingerprint, a declined button, argparse's refusal with exit code 2", async () => {
    expect(await json({ devices: [A] }, ['--fingerprint', 'deadbeef', 'signtx', 'cHNidP8='])).toEqual({ error: 'Could not find device with specified fingerprint or type', code: -3 });
    expect(await json({ devices: [A] }, ['getdescriptors'])).toMatchObject({ code: -1 });
    expect(await json({ devices: [{ ...A, mode: 'decline' }] }, ['--fingerprint', fingerprintOf('A'), 'signtx', 'cHNidP8='])).toEqual({ error: 'Action canceled by user', code: -14 });
    const bad = await run({ devices: [A] }, ['--fingerprint', fingerprintOf('A'), 'signtx', '--sighash', 'x']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ code: -2 });
    const garbage = await run({ devices: [{ ...A, mode: 'garbage' }] }, ['--fingerprint', fingerprintOf('A'), 'signtx', 'cHNidP8=']);
    expect(() => JSON.parse(garbage.stdout)).toThrow();
    const dead = await run({ devices: [{ ...A, mode: 'exit' }] }, ['--fingerprint', fingerprintOf('A'), 'signtx', 'cHNidP8=']);
    expect(dead).toMatchObject({ code: 1, stdout: '' });
  });

  it('signtx: signs wpkh and tr key-path inputs; each device signs its share of a 2-of-3 wsh; the signatures verify and finalize', async () => {
    const tx = new btc.Transaction({ allowUnknownOutputs: true });
    const prev = (n: number) => new Uint8Array(32).fill(n);
    // wpkh of A
    const wpkhPath = "m/84'/1'/0'/0/0";
    const wk = keyAt('A', wpkhPath);
    tx.addInput({ txid: prev(1), index: 0, witnessUtxo: { script: btc.p2wpkh(wk.publicKey!, NET).script, amount: 100_000n }, bip32Derivation: [[wk.publicKey!, { fingerprint: fpNum('A'), path: parsePath(wpkhPath) }]] });
    // tr key path of A
    const trPath = "m/86'/1'/0'/0/0";
    const tk = keyAt('A', trPath).publicKey!.subarray(1);
    tx.addInput({ txid: prev(2), index: 1, witnessUtxo: { script: btc.p2tr(tk, undefined, NET).script, amount: 200_000n }, tapInternalKey: tk, tapBip32Derivation: [[tk, { hashes: [], der: { fingerprint: fpNum('A'), path: parsePath(trPath) } }]] });
    // 2-of-3 wsh(sortedmulti) of A, B, C at m/48'/1'/0'/2'/0/0
    const msPath = "m/48'/1'/0'/2'/0/0";
    const pubs = ['A', 'B', 'C'].map((n) => ({ n, pub: keyAt(n, msPath).publicKey! }));
    const sorted = [...pubs].sort((x, y) => Buffer.compare(Buffer.from(x.pub), Buffer.from(y.pub)));
    const ms = btc.p2wsh(btc.p2ms(2, sorted.map((p) => p.pub)), NET);
    tx.addInput({ txid: prev(3), index: 2, witnessUtxo: { script: ms.script, amount: 300_000n }, witnessScript: ms.witnessScript!, bip32Derivation: pubs.map((p) => [p.pub, { fingerprint: fpNum(p.n), path: parsePath(msPath) }] as [Uint8Array, { fingerprint: number; path: number[] }]) });
    tx.addOutputAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 590_000n, NET);
    const unsigned = base64.encode(tx.toPSBT(0));

    const devices = { devices: [A, B, C] };
    const byA = (await json(devices, ['--fingerprint', fingerprintOf('A'), '--chain', 'regtest', 'signtx', unsigned])) as { psbt: string; signed: boolean };
    expect(byA.signed).toBe(true);
    const byC = (await json(devices, ['--fingerprint', fingerprintOf('C'), '--chain', 'regtest', 'signtx', unsigned])) as { psbt: string; signed: boolean };
    expect(byC.signed).toBe(true);
    const combined = combinePsbtsBase64([unsigned, byA.psbt, byC.psbt]);
    if (!combined.ok) throw new Error(combined.error);
    const parsed = parsePsbt(base64.decode(combined.psbt));
    if (!parsed.ok) throw new Error(parsed.message);
    const report = verifyPsbtSignatures(parsed.psbt);
    expect(report.ok).toBe(true);
    expect(report.checks.filter((c) => c.status === 'valid').map((c) => [c.input, c.kind])).toEqual([[0, 'ecdsa'], [1, 'taproot-key'], [2, 'ecdsa'], [2, 'ecdsa']]);
    const fin = finalizePsbtBase64(combined.psbt, { extract: true });
    expect(fin.ok && fin.result.complete).toBe(true);

    // a tampered answer signs another transaction: the first output pays 1,000 sats less
    const tampered = (await json({ devices: [{ ...A, mode: 'tamper' }] }, ['--fingerprint', fingerprintOf('A'), '--chain', 'regtest', 'signtx', unsigned])) as { psbt: string };
    expect(btc.Transaction.fromPSBT(base64.decode(tampered.psbt)).getOutput(0).amount).toBe(589_000n);
    // a device without taproot refuses a tr spend
    expect(await json({ devices: [{ ...A, taproot: false }] }, ['--fingerprint', fingerprintOf('A'), 'signtx', unsigned])).toMatchObject({ code: -9 });
  }, 60_000);

  it('--stdin: the command comes on standard input, as Bitcoin Core sends signtx', async () => {
    const log = join(dir, 'argv.log');
    const { env } = writeHwiConfig(dir, { devices: [A], log });
    const r = await new Promise<string>((resolve, reject) => {
      const child = execFile(HWI_SIGNER, ['--stdin', '--fingerprint', fingerprintOf('A'), '--chain', 'regtest'], { env: { ...process.env, ...env } }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
      child.stdin!.end('getdescriptors --account 1\n\n');
    });
    expect((JSON.parse(r) as { receive: string[] }).receive[0]).toContain('/44h/1h/1h]');
    expect(JSON.parse(readFileSync(log, 'utf8').trim())).toEqual({ argv: ['--stdin', '--fingerprint', fingerprintOf('A'), '--chain', 'regtest'], stdin: true });
  });
});
