// Hardware wallets over USB (#30) through an external signer program speaking HWI 3.x's command line
// (hwilib/_cli.py; Bitcoin Core's doc/external-signer.md): the program is a setting (SPYGLASS_SIGNER
// overrides it; else the file the person chose; else the bundled HWI; else `hwi` on PATH: program.ts),
// run with checked arguments only (args.ts), a deadline long enough to press a button, a Cancel, and a
// cap on its answer (run.ts). Signing sends the draft as PSBT version 0 (what devices read), holds the
// answer against the draft's transaction (answer.ts), verifies every new signature before anything is
// kept, and merges it through the same import as a signed PSBT file (send/sign-service.ts). Nothing of a
// device's is written anywhere but the draft.
import { z } from 'zod';
import { AppError } from '../../../shared/errors';
import { parseDescriptor } from '../../../shared/bitcoin/descriptor';
import { NETWORKS } from '../../../shared/bitcoin/networks';
import { decodeExtKey, netOf, parsePath } from '../../../shared/wallet/keys';
import type { SignerDescriptorsView, SignerDeviceView, SignerDisplayView, SignerListView, SignerPickView, SignerProgramView, SignerSignView, SignerXpubView } from '../../../shared/ipc/signer';
import type { Logger } from '../log';
import type { SendService } from '../send/index';
import { readPsbt } from '../send/jobs';
import type { ActiveConnection, Services } from '../services';
import { checkAnswer } from './answer';
import { checkAddressDescriptor, checkChain, checkFingerprint, displayAddressArgs, enumerateArgs, getDescriptorsArgs, getXpubArgs, signTxArgs, type HwiChain, type Invocation } from './args';
import { fromHwiError, HWI, INSTALL_HWI, SignerError } from './errors';
import { programProblem, resolveProgram } from './program';
import { runProgram, type RunOutcome } from './run';
import { indexOfAddress, isMultisig, walletDescriptorAt } from './wallet-descriptor';

export { SIGNER_ENV } from './program';
/** Long enough for a person to read the screen and press a button. */
export const BUTTON_TIMEOUT_MS = 5 * 60_000;
/** enumerate and getdescriptors press no button. */
export const QUICK_TIMEOUT_MS = 60_000;
/** The most stdout read from the program (a PSBT answer is at most a few MB; past this it is stopped). */
export const MAX_REPLY_BYTES = 8 << 20;

export interface SignerDeps {
  services: Pick<Services, 'activeConnection'>;
  send: SendService;
  log: Logger;
  /** The program the person chose (persisted), or null. */
  setting: { get(): string | null; set(file: string | null): void };
  env?: NodeJS.ProcessEnv;
  /**
   * The app's resources folder, where an installed app may carry HWI's binary (program.ts); default:
   * Electron's process.resourcesPath (absent in Node: the bridge and the tests pass their own or none).
   */
  resourcesDir?: string | null;
  /**
   * The OS's file dialog (Electron's dialog.showOpenDialog, given by index.ts): the file the person picked,
   * or null when they cancelled. Absent over the browser bridge, where the typed path is the way in.
   */
  pickProgram?: () => Promise<string | null>;
  timeouts?: { buttonMs?: number; quickMs?: number };
  maxReplyBytes?: number;
  /** The receive and change descriptors Spyglass stored for a profile's node wallet (none: []); asked when the node gives no parent_desc. */
  wallets?: { descriptors(profileId: string, nodeWallet: string): string[] };
}

const errorReply = z.object({ error: z.string(), code: z.number().int() }).passthrough();
const deviceRow = z
  .object({
    type: z.string().max(100).optional(),
    model: z.string().max(100).optional(),
    label: z.string().max(200).nullable().optional(),
    path: z.string().max(1000).optional(),
    fingerprint: z.string().optional(),
    needs_pin_sent: z.boolean().optional(),
    needs_passphrase_sent: z.boolean().optional(),
    error: z.string().max(2000).optional(),
    code: z.number().int().optional(),
  })
  .passthrough();
const descriptorsReply = z.object({ receive: z.array(z.string().max(4096)).max(16), internal: z.array(z.string().max(4096)).max(16) });
const xpubReply = z.object({ xpub: z.string().max(200) });
const displayReply = z.object({ address: z.string().max(200) });
const signReply = z.object({ psbt: z.string().min(1), signed: z.boolean().optional() });

const TYPE_OF: Array<[RegExp, string]> = [
  [/^pkh\(/, 'p2pkh'],
  [/^sh\(wpkh\(/, 'p2sh-p2wpkh'],
  [/^wpkh\(/, 'p2wpkh'],
  [/^tr\(/, 'p2tr'],
];

export class SignerService {
  readonly #ops = new Map<string, AbortController>();
  /** The fingerprint → "model (fingerprint)" names of the last listing, for messages. */
  readonly #names = new Map<string, string>();

  constructor(private readonly deps: SignerDeps) {}

  get #env(): NodeJS.ProcessEnv {
    return this.deps.env ?? process.env;
  }

  /** Which program runs: SPYGLASS_SIGNER, else the chosen file, else the bundled HWI, else `hwi` on PATH. */
  program(): SignerProgramView {
    const resourcesDir = this.deps.resourcesDir !== undefined ? this.deps.resourcesDir : ((process as { resourcesPath?: string }).resourcesPath ?? null);
    return { ...resolveProgram({ env: this.#env, chosen: this.deps.setting.get(), resourcesDir }), nativePicker: this.deps.pickProgram !== undefined };
  }

  /** The person's choice of program: a full path to an executable file, or null for the default (bundled HWI, else `hwi` on PATH). */
  setProgram(file: string | null): SignerProgramView {
    if (file !== null) {
      const problem = programProblem(file, 'You chose');
      if (problem) throw new SignerError('not-executable', problem);
    }
    this.deps.setting.set(file);
    return this.program();
  }

  /**
   * The OS's file dialog: the file picked is checked exactly as a typed path (setProgram) before it is
   * kept. Only the program's path comes from the dialog: the arguments are always args.ts's.
   */
  async pickProgram(): Promise<SignerPickView> {
    const pick = this.deps.pickProgram;
    if (!pick) throw new AppError('input.invalid', 'There is no file dialog in a browser: type the full path to the signer program (hwi) instead.');
    const file = await pick();
    if (file === null) return { picked: false, program: this.program() };
    if (typeof file !== 'string' || file.length === 0 || file.length > 4096) throw new SignerError('not-executable', 'The file dialog gave no usable path: type the full path to the signer program instead.');
    return { picked: true, program: this.setProgram(file) };
  }

  cancel(op: string): { canceled: boolean } {
    const c = this.#ops.get(op);
    if (!c) return { canceled: false };
    c.abort();
    return { canceled: true };
  }

  #deviceName(fp: string): string {
    return this.#names.get(fp) ?? `The device ${fp}`;
  }

  #chain(): HwiChain {
    const conn = this.deps.services.activeConnection();
    if (!conn) throw new AppError('credentials.missing', 'Connect to your node first: Spyglass asks the device for keys of the node’s chain.');
    return checkChain(conn.report.node.chain);
  }

  /** Runs one invocation and reads its JSON; every way it can fail becomes a SignerError. */
  async #run(inv: Invocation, opts: { timeoutMs: number; op?: string | undefined; device: string }): Promise<unknown> {
    const p = this.program();
    if (p.problem || !p.program) throw new SignerError(p.program ? 'not-executable' : 'missing-program', p.problem ?? INSTALL_HWI);
    const controller = new AbortController();
    if (opts.op) {
      if (this.#ops.has(opts.op)) throw new AppError('input.invalid', 'A device request with this id is already waiting.', { field: 'op' });
      this.#ops.set(opts.op, controller);
    }
    const started = Date.now();
    let o: RunOutcome;
    try {
      o = await runProgram({ program: p.program, args: inv.args, ...(inv.stdin !== undefined ? { stdin: inv.stdin } : {}), timeoutMs: opts.timeoutMs, maxBytes: this.deps.maxReplyBytes ?? MAX_REPLY_BYTES, signal: controller.signal, env: this.#env });
    } finally {
      if (opts.op) this.#ops.delete(opts.op);
    }
    // the command is logged, never a PSBT or a descriptor
    this.deps.log.info(`signer: ${inv.args.filter((a) => a.startsWith('--') || /^[a-z]+$/.test(a)).join(' ')} → ${o.kind}${o.kind === 'exited' ? ` ${o.code}` : ''} in ${Date.now() - started} ms`);
    switch (o.kind) {
      case 'missing':
        throw new SignerError('missing-program', `The signer program “${o.program}” was not found. ${INSTALL_HWI}`);
      case 'not-executable':
        throw new SignerError('not-executable', `The signer program “${o.program}” cannot be run (${o.reason}). ${INSTALL_HWI}`);
      case 'timeout':
        throw new SignerError('timeout', `${opts.device} did not answer within ${Math.round(o.ms / 1000)} seconds: nothing was kept. Check that it is connected and unlocked, then try again.`);
      case 'canceled':
        throw new SignerError('canceled', 'Cancelled: the signer program was stopped and nothing was kept.');
      case 'too-big':
        throw new SignerError('too-big', `The signer program wrote more than ${Math.round(o.maxBytes / 1048576)} MB: it was stopped and its answer refused.`);
      case 'exited':
        break;
    }
    let value: unknown;
    try {
      value = JSON.parse(o.stdout);
    } catch {
      if (o.code !== 0) {
        throw new SignerError('crashed', `The signer program stopped with exit code ${o.code ?? 'none'} and no answer${o.stderr.trim() ? `: “${o.stderr.trim().split('\n').slice(-1)[0]!.slice(0, 200)}”` : ''}. Nothing was kept.`, { exitCode: o.code });
      }
      throw new SignerError('garbage', `The signer program answered something that is not JSON (“${o.stdout.replace(/[^\x20-\x7e]/g, '?').slice(0, 60)}”): is it HWI? Nothing was kept.`);
    }
    const err = errorReply.safeParse(value);
    if (err.success) throw fromHwiError(err.data.code, err.data.error, opts.device);
    if (o.code !== 0) throw new SignerError('crashed', `The signer program stopped with exit code ${o.code ?? 'none'}. Nothing was kept.`, { exitCode: o.code });
    return value;
  }

  /** `enumerate`: the connected devices, each with what it needs before use. */
  async list(): Promise<SignerListView> {
    const program = this.program();
    if (program.problem) return { program, devices: [] };
    const value = await this.#run(enumerateArgs(), { timeoutMs: this.deps.timeouts?.quickMs ?? QUICK_TIMEOUT_MS, device: 'The signer program' });
    const rows = z.array(deviceRow).max(64).safeParse(value);
    if (!rows.success) throw new SignerError('garbage', 'The signer program’s device list is not the one HWI writes (a JSON array of devices).');
    const devices: SignerDeviceView[] = rows.data.map((d) => {
      const fingerprint = d.fingerprint && /^[0-9a-fA-F]{8}$/.test(d.fingerprint) ? d.fingerprint.toLowerCase() : null;
      const needsPin = d.needs_pin_sent === true || (d.code === HWI.DEVICE_NOT_READY && /lock|pin/i.test(d.error ?? ''));
      const needsPassphrase = d.needs_passphrase_sent === true || d.code === HWI.NO_PASSWORD;
      const needs = needsPin ? 'Enter its PIN on the device to unlock it, then list the devices again.' : needsPassphrase ? 'Enter its passphrase (on the device, or in its own app), then list the devices again.' : d.error ? d.error.slice(0, 300) : null;
      const model = d.model ?? d.type ?? 'device';
      if (fingerprint) this.#names.set(fingerprint, `${model} (${fingerprint})`);
      return { type: d.type ?? 'unknown', model, label: d.label ?? null, path: d.path ?? '', fingerprint, needsPin, needsPassphrase, needs, error: d.error ?? null };
    });
    return { program, devices };
  }

  /** When the program says "no device with that fingerprint": a locked one, a passphrase one, or another device. */
  async #explainMissing(e: SignerError, fp: string): Promise<SignerError> {
    if (e.failure !== 'no-device') return e;
    const listed = await this.list().catch(() => null);
    if (!listed) return e;
    const pin = listed.devices.find((d) => d.needsPin);
    if (pin) return new SignerError('needs-pin', `${pin.model} is locked: enter its PIN on the device, then try again.`, { fingerprint: fp });
    const pass = listed.devices.find((d) => d.needsPassphrase);
    if (pass) return new SignerError('needs-passphrase', `${pass.model} needs its passphrase before Spyglass can see which wallet it is: enter it, then try again.`, { fingerprint: fp });
    const others = listed.devices.filter((d) => d.fingerprint);
    if (others.length) {
      return new SignerError('wrong-fingerprint', `No connected device has the fingerprint ${fp}: connected ${others.length === 1 ? 'is' : 'are'} ${others.map((d) => `${d.model} (${d.fingerprint})`).join(', ')}. Connect the device this wallet’s key comes from (or open the wallet that belongs to it, if it uses a passphrase).`, { fingerprint: fp });
    }
    return new SignerError('no-device', `No device is connected (the device ${fp} is needed): connect and unlock it, then try again.`, { fingerprint: fp });
  }

  async #deviceRun(fp: string, inv: Invocation, timeoutMs: number, op?: string): Promise<unknown> {
    try {
      return await this.#run(inv, { timeoutMs, op, device: this.#deviceName(fp) });
    } catch (e) {
      if (e instanceof SignerError) throw await this.#explainMissing(e, fp);
      throw e;
    }
  }

  /** `getdescriptors --account N`: the single-sig receive/change pairs, each read by Spyglass's parser on the node's chain. */
  async descriptors(fingerprint: string, account: number, op?: string): Promise<SignerDescriptorsView> {
    const fp = checkFingerprint(fingerprint);
    const chain = this.#chain();
    const value = await this.#deviceRun(fp, getDescriptorsArgs(fp, chain, account), this.deps.timeouts?.quickMs ?? QUICK_TIMEOUT_MS, op);
    const r = descriptorsReply.safeParse(value);
    if (!r.success) throw new SignerError('garbage', 'The device’s descriptors are not what HWI writes ({"receive": […], "internal": […]}).');
    const net = NETWORKS[chain];
    const pairs: SignerDescriptorsView['pairs'] = [];
    for (const receive of r.data.receive) {
      const type = TYPE_OF.find(([re]) => re.test(receive))?.[1];
      if (!type) continue;
      const change = r.data.internal.find((c) => TYPE_OF.find(([re]) => re.test(c))?.[1] === type);
      if (!change) continue;
      for (const d of [receive, change]) {
        try {
          const p = parseDescriptor(d, net, { requireChecksum: true });
          if (!p.isRange()) throw new Error('it is not ranged (…/*)');
        } catch (e) {
          throw new SignerError('garbage', `The device gave a descriptor Spyglass cannot use (${(e as Error).message}): nothing was imported.`);
        }
        if (!d.includes(`[${fp}/`)) throw new SignerError('wrong-fingerprint', `The device gave descriptors of another key than its own fingerprint ${fp}: nothing was imported.`);
      }
      pairs.push({ scriptType: type, receive, change });
    }
    if (pairs.length === 0) throw new SignerError('unsupported', 'The device gave no single-sig descriptor Spyglass can import.');
    return { fingerprint: fp, account, pairs };
  }

  /**
   * `getxpub PATH`: the device's extended public key at `path` (a multisig cosigner's key, BIP48), in
   * the node's chain's version (tpub off mainnet, as HWI writes it); its depth and last step must be
   * the path's, or it is not the key asked for.
   */
  async xpub(fingerprint: string, path: string, op?: string): Promise<SignerXpubView> {
    const fp = checkFingerprint(fingerprint);
    const chain = this.#chain();
    const inv = getXpubArgs(fp, chain, path);
    const asked = inv.args[inv.args.length - 1]!;
    const value = await this.#deviceRun(fp, inv, this.deps.timeouts?.quickMs ?? QUICK_TIMEOUT_MS, op);
    const r = xpubReply.safeParse(value);
    if (!r.success) throw new SignerError('garbage', 'The device’s answer is not an extended public key ({"xpub": …}).');
    const ext = decodeExtKey(r.data.xpub);
    if (!ext || ext.private) throw new SignerError('garbage', 'The device’s answer is not an extended public key: nothing was kept.');
    if (ext.net !== netOf(NETWORKS[chain])) throw new SignerError('garbage', `The device gave a key of another network (${ext.prefix}…) than the node’s chain ${chain}: nothing was kept.`);
    const steps = parsePath(asked, 'path');
    if (ext.depth !== steps.length || (steps.length > 0 && ext.childNumber !== steps[steps.length - 1])) {
      throw new SignerError('wrong-key', `The device gave a key that is not the one at ${asked} (its depth or last step differ): nothing was kept.`);
    }
    return { fingerprint: fp, path: asked, xpub: ext.normalized };
  }

  /**
   * Shows `address` on the device: a single-key address by the node's own descriptor of it
   * (getaddressinfo, as Bitcoin Core's walletdisplayaddress does); a multisig one by the wallet's
   * descriptor at that address (wallet-descriptor.ts: xpubs with their origins, sortedmulti as the wallet
   * is, what a Ledger or BitBox02 needs), derived here first. The device's fingerprint comes from the key
   * origins unless one is given; the device must show the very same address.
   */
  async displayAddress(address: string, fingerprint: string | undefined, op?: string): Promise<SignerDisplayView> {
    const chain = this.#chain();
    const conn = this.deps.services.activeConnection()!;
    const info = await conn.rpc.call<{ ismine?: boolean; solvable?: boolean; desc?: string; parent_desc?: string }>('getaddressinfo', [address]);
    if (!info.desc || !info.solvable) throw new AppError('input.invalid', 'The node’s wallet does not know how this address is made (no descriptor with keys): it cannot be shown on a device.', { field: 'address' });
    const desc = checkAddressDescriptor(this.#walletDescriptor(info.desc, info.parent_desc, address, chain, conn) ?? info.desc, chain);
    const origins = [...new Set([...desc.matchAll(/\[([0-9a-fA-F]{8})/g)].map((m) => m[1]!.toLowerCase()))].sort();
    const fp = fingerprint ? checkFingerprint(fingerprint) : origins.length === 1 ? origins[0]! : null;
    if (!fp) throw new AppError('input.invalid', `This address has keys of several devices (${origins.join(', ')}): choose the device to show it on.`, { field: 'fingerprint' });
    if (!origins.includes(fp)) throw new SignerError('wrong-fingerprint', `The device ${fp} holds none of this address’s keys (they come from ${origins.join(', ')}).`);
    const value = await this.#deviceRun(fp, displayAddressArgs(fp, chain, desc), this.deps.timeouts?.buttonMs ?? BUTTON_TIMEOUT_MS, op);
    const r = displayReply.safeParse(value);
    if (!r.success) throw new SignerError('garbage', 'The device’s answer is not an address ({"address": …}).');
    if (r.data.address !== address) {
      throw new SignerError('wrong-key', `The device shows ${r.data.address.slice(0, 100)}, not ${address}: do not use this address until you know why (another wallet on the device, or a wrong descriptor).`);
    }
    return { address, descriptor: desc, matches: true };
  }

  /**
   * A multisig address's wallet descriptor at its index (wallet-descriptor.ts): from the node's
   * parent_desc (Core 24+), else from the descriptors stored here for the active wallet. Null for a
   * single-key address, or when neither is a ranged multisig: the node's descriptor is shown then.
   */
  #walletDescriptor(desc: string, parentDesc: string | undefined, address: string, chain: HwiChain, conn: ActiveConnection): string | null {
    if (!isMultisig(desc)) return null;
    const index = indexOfAddress(desc);
    if (index === null) return null;
    const wallet = conn.report.node.wallet;
    const candidates = parentDesc ? [parentDesc] : wallet ? (this.deps.wallets?.descriptors(conn.profile.id, wallet) ?? []) : [];
    return walletDescriptorAt(candidates, index, address, NETWORKS[chain]);
  }

  /**
   * `signtx`: the draft (with every signature imported so far, so cosigners sign one after another)
   * as PSBT version 0; the answer must be the same transaction, and each new signature must verify,
   * before it is merged through the draft's import (the same path as a signed PSBT file).
   */
  async sign(id: string, fingerprint: string, op?: string): Promise<SignerSignView> {
    const fp = checkFingerprint(fingerprint);
    const send = this.deps.send;
    const d = send.drafts.require(id);
    if (d.finalTx) throw new AppError('input.invalid', 'This draft is finalized already: nothing is left to sign.', { field: 'draft' });
    const before = await send.drafts.signing(d);
    const holders = new Set(before.inputs.flatMap((i) => i.keys.map((k) => k.fingerprint).filter((f): f is string => !!f)));
    if (!holders.has(fp)) {
      throw new SignerError('not-a-key', `${this.#deviceName(fp)} holds none of this draft’s keys: its inputs are signed by ${[...holders].join(', ') || 'keys without a fingerprint'}.`, { fingerprint: fp });
    }
    const facts = await send.core.facts();
    const chain = checkChain(facts.facts.chain);
    const exported = await send.drafts.export(id, 0, 'combined');
    const device = this.#deviceName(fp);
    const value = await this.#deviceRun(fp, signTxArgs(fp, chain, exported.base64), this.deps.timeouts?.buttonMs ?? BUTTON_TIMEOUT_MS, op);
    const r = signReply.safeParse(value);
    if (!r.success) throw new SignerError('garbage', `${device}'s answer is not what HWI writes ({"psbt": …, "signed": …}). Nothing was kept.`);
    const current = send.drafts.require(id);
    const answer = checkAnswer(readPsbt(current.psbt), r.data.psbt, device);
    // every signature verified before anything is kept (the draft's import keeps a PSBT whose bad signatures it drops)
    const imports = send.core.deps.drafts.imports(current.id).map((i) => i.psbt);
    const trial = await send.core.deps.runner.run('send-combine', { psbts: [current.psbt, ...imports, answer.base64] });
    const bad = trial.dropped.filter((x) => x.startsWith(`signed PSBT ${imports.length + 1}:`));
    if (bad.length) throw new SignerError('bad-signature', `Refused: ${bad.length === 1 ? 'a signature' : `${bad.length} signatures`} from ${device} ${bad.length === 1 ? 'does' : 'do'} not verify (${bad.map((x) => x.replace(/^signed PSBT \d+: /, '')).join('; ')}). Nothing was kept.`);
    const countOf = (s: typeof before) => s.inputs.reduce((a, i) => a + i.signed, 0);
    const added = countOf(trial.signing) - countOf(before);
    if (added <= 0) throw new SignerError('no-signature', `${device} added no signature: ${r.data.signed === false ? 'it says it signed nothing' : 'every signature it holds was there already'}. The draft is as it was.`);
    const imported = await send.sign.import([{ text: answer.base64, source: `Signed on ${this.#names.get(fp) ?? `device ${fp}`}` }], id);
    const result = imported.results[0]!;
    if (!result.ok) throw new SignerError('bad-signature', result.message);
    this.deps.log.info(`signer: draft ${id} signed on ${fp}: ${added} new signature${added === 1 ? '' : 's'}`);
    return { draft: imported.draft, message: `${device} signed: ${result.message}` };
  }
}
