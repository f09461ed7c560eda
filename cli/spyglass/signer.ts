// `spyglass signer list|sign|verify-address`: hardware wallets over USB (#30) from the command line, on
// the app's own signer service (electron/main/signer/service.ts, the signer:* channels): the same
// program (SPYGLASS_SIGNER, else the one chosen in the app, else `hwi` on PATH), the same checks of the
// device's answer (the same transaction, every new signature verified) and the same merge into the
// draft. `sign` prints the draft's review first and sends it to the device only with --yes (as
// `drafts broadcast` sends only with --yes); without it nothing reaches the device and the exit code is 1.
import { randomBytes } from 'node:crypto';
import type { DraftView } from '../../shared/ipc/send';
import type { SignerDeviceView, SignerListView } from '../../shared/ipc/signer';
import { positionals, Refused, UsageError } from './args';
import { table, type Command } from './command';
import type { Ctx } from './context';
import { describeDraft, findDraft } from './drafts';

/** A fingerprint option: 8 hex digits, lowercase as HWI prints them. */
export function fingerprintOption(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (!/^[0-9a-fA-F]{8}$/.test(v.trim())) throw new UsageError(`--fingerprint is a device's 8 hex digits (as \`spyglass signer list\` shows), not "${v}"`);
  return v.trim().toLowerCase();
}

/** The devices, or refused with why the program cannot run (none found, not executable). */
async function listDevices(ctx: Ctx): Promise<SignerListView> {
  const l = await ctx.call('signer:list', {});
  if (l.program.problem) throw new Refused(l.program.problem);
  return l;
}

const deviceName = (d: SignerDeviceView): string => `${d.model} (${d.fingerprint ?? d.path})`;

/**
 * The device to sign `draft` on when no --fingerprint is given: the one connected device whose key
 * still has inputs to sign. Refused, saying why, when there is none (nothing connected, locked, a
 * passphrase to enter, only other devices); bad usage when several could (which one is the person's call).
 */
export function chooseDevice(draft: Pick<DraftView, 'signing'>, devices: readonly SignerDeviceView[]): string {
  const needed = draft.signing.cosigners.filter((c) => c.signed < c.inputs).map((c) => c.fingerprint.toLowerCase());
  if (needed.length === 0) throw new Refused('no key of this draft with a device fingerprint is left to sign: give --fingerprint, or import the signatures as a file (spyglass drafts import)');
  const ready = devices.filter((d) => d.fingerprint !== null && needed.includes(d.fingerprint));
  if (ready.length === 1) return ready[0]!.fingerprint!;
  if (ready.length > 1) throw new UsageError(`several connected devices can sign this draft (${ready.map(deviceName).join(', ')}): give --fingerprint`);
  const locked = devices.find((d) => d.needsPin);
  if (locked) throw new Refused(`${locked.model} is locked: enter its PIN on the device, then try again (this draft needs ${needed.join(' or ')})`);
  const passphrase = devices.find((d) => d.needsPassphrase);
  if (passphrase) throw new Refused(`${passphrase.model} needs its passphrase before Spyglass can see which wallet it is: enter it, then try again (this draft needs ${needed.join(' or ')})`);
  const others = devices.filter((d) => d.fingerprint !== null);
  if (others.length > 0) throw new Refused(`no connected device holds a key this draft still needs (${needed.join(', ')}): connected ${others.length === 1 ? 'is' : 'are'} ${others.map(deviceName).join(', ')}`);
  throw new Refused(`no device is connected: connect and unlock the device ${needed.join(' or ')}, then try again`);
}

const list: Command = {
  name: 'signer list',
  summary: 'the signer program (HWI) and the hardware wallets it sees',
  help: `usage: spyglass signer list

The signer program (SPYGLASS_SIGNER, else the one chosen in the app, else the HWI bundled with the
installed app, else \`hwi\` on PATH) and each connected device: model, fingerprint, and what it needs
first (its PIN, its passphrase). Exit 1 when no signer program can run (the reason says how to install HWI).`,
  options: {},
  async run(ctx, p) {
    positionals(p, [], list.help);
    const l = await listDevices(ctx);
    ctx.print(
      () =>
        [
          `signer program ${l.program.program} (${l.program.source === 'env' ? 'from SPYGLASS_SIGNER' : l.program.source === 'setting' ? 'chosen in the app' : l.program.source === 'bundled' ? 'bundled with the app' : 'on PATH'})`,
          l.devices.length === 0 ? 'no device connected' : table([['FINGERPRINT', 'MODEL', 'TYPE', 'LABEL', 'STATE'], ...l.devices.map((d) => [d.fingerprint ?? '-', d.model, d.type, d.label ?? '', d.needs ?? d.error ?? 'ready'])]),
        ].join('\n'),
      l,
    );
  },
};

/** Runs a device request with an operation id that Ctrl-C cancels (the program is stopped, nothing kept). */
async function withCancel<T>(ctx: Ctx, request: (op: string) => Promise<T>): Promise<T> {
  const op = `cli-${randomBytes(6).toString('hex')}`;
  const onInt = (): void => {
    ctx.progress('cancelling: the signer program is stopped');
    void ctx.call('signer:cancel', { op }).catch(() => undefined);
  };
  process.once('SIGINT', onInt);
  try {
    return await request(op);
  } finally {
    process.removeListener('SIGINT', onInt);
  }
}

const sign: Command = {
  name: 'signer sign',
  summary: 'sign a draft on a hardware wallet (only with --yes, after printing the review)',
  help: `usage: spyglass signer sign <draft> [--fingerprint F] [--yes]

Prints the draft's review (inputs, outputs, fee, signatures) and the device it goes to. Without --yes
nothing is sent to the device and the exit code is 1; with --yes the draft (with every signature
imported so far, as PSBT version 0) goes to the device: confirm it on the device's screen. Its answer
must be the same transaction and every new signature must verify before it is merged into the draft;
otherwise (declined, locked, another device, a bad answer) the draft stays as it was, exit 1.
Ctrl-C while the device waits stops the signer program.
  --fingerprint F   the device (8 hex digits, see spyglass signer list); default: the one connected
                    device whose key still has to sign
  --yes             send it to the device`,
  options: { '--fingerprint': { kind: 'value' }, '--yes': { kind: 'flag' } },
  async run(ctx, p) {
    const [ref] = positionals(p, ['<draft>'], sign.help);
    const given = fingerprintOption(p.values.get('--fingerprint'));
    await ctx.connect(true);
    const d = await ctx.call('drafts:get', { id: (await findDraft(ctx, ref!)).id });
    if (d.finalTx || d.status === 'sent' || d.status === 'confirmed' || d.status === 'replaced') throw new Refused(`draft ${d.id} is ${d.status === 'final' ? 'finalized' : d.status} already: nothing is left to sign`);
    if (d.signing.complete) throw new Refused(`every input of draft ${d.id} is signed already: nothing is left to sign (spyglass drafts finalize ${d.id})`);
    let fingerprint = given;
    let device: string;
    if (fingerprint === undefined) {
      const l = await listDevices(ctx);
      fingerprint = chooseDevice(d, l.devices);
      device = deviceName(l.devices.find((x) => x.fingerprint === fingerprint)!);
    } else device = `the device ${fingerprint}`;
    const what = `${describeDraft(d)}\nto be signed on ${device}: check the amounts and addresses on its screen before you confirm`;
    if (!p.flags.has('--yes')) {
      ctx.print(what, { draft: d, fingerprint, sent: false });
      throw new Refused(`not sent to the device: add --yes to sign it on ${device}`);
    }
    process.stderr.write(`${what}\n`);
    ctx.progress(`waiting for ${device}: confirm on the device (Ctrl-C stops it)`);
    const r = await withCancel(ctx, (op) => ctx.call('signer:sign', { id: d.id, fingerprint: fingerprint!, op }));
    ctx.print(() => `${r.message}\n${describeDraft(r.draft)}`, r);
  },
};

const verifyAddress: Command = {
  name: 'signer verify-address',
  summary: 'show a wallet address on the hardware wallet and check it shows the same',
  help: `usage: spyglass signer verify-address <address> [--fingerprint F]

Sends the node's own descriptor of the address (getaddressinfo) to the device, which shows the address
on its screen; Spyglass checks the device shows the very same one (exit 1 when it does not: do not use
that address until you know why).
  --fingerprint F   the device (default: the one the address's keys come from)`,
  options: { '--fingerprint': { kind: 'value' } },
  async run(ctx, p) {
    const [address] = positionals(p, ['<address>'], verifyAddress.help);
    const fingerprint = fingerprintOption(p.values.get('--fingerprint'));
    await ctx.connect(true);
    ctx.progress('waiting for the device: compare the address on its screen (Ctrl-C stops it)');
    const r = await withCancel(ctx, (op) => ctx.call('signer:display-address', { address: address!, ...(fingerprint ? { fingerprint } : {}), op }));
    ctx.print(`the device shows ${r.address}: it matches (descriptor ${r.descriptor})`, r);
  },
};

export const SIGNER_COMMANDS: readonly Command[] = [list, sign, verifyAddress];
