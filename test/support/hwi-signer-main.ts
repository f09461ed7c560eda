/**
 * The test HWI program's body (see hwi-signer.mjs): HWI 3.x's command line as hwilib/_cli.py parses it
 * and hwilib/commands.py answers — one JSON document on stdout, exit code 0 even for a device error
 * ({"error": …, "code": …} with hwilib/errors.py's codes), 2 with MISSING_ARGUMENTS for arguments
 * argparse refuses. Devices and their behaviour come from the file named by SPYGLASS_HWI_CONFIG
 * (hwi-devices.ts). Signing reuses the test signer of signer.ts (keys chosen by the PSBT's BIP32
 * derivations), as Core's own functional tests stand a mock in for HWI (test/functional/mocks/signer.py).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import * as btc from '@scure/btc-signer';
import { base64 } from '@scure/base';
import { deriveAddresses } from '../../shared/bitcoin/descriptor';
import { NETWORKS } from '../../shared/bitcoin/networks';
import { signPsbt } from './signer';
import { checkMultisigFor, MultisigRefusal, readMultisig } from './hwi-multisig';
import { descriptorsOf, fingerprintOf, HWI_CONFIG_ENV, masterOf, withChecksum, xpubAt, type HwiChain, type HwiConfig, type HwiDevice } from './hwi-devices';

// hwilib/errors.py
const NO_DEVICE_TYPE = -1;
const MISSING_ARGUMENTS = -2;
const DEVICE_CONN_ERROR = -3;
const INVALID_TX = -5;
const NO_PASSWORD = -6;
const BAD_ARGUMENT = -7;
const UNAVAILABLE_ACTION = -9;
const DEVICE_NOT_READY = -12;
const ACTION_CANCELED = -14;

class HwwError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

const out = (v: unknown): void => void process.stdout.write(JSON.stringify(v) + '\n');
const argError = (message: string): never => {
  process.stderr.write('usage: hwi [-h] [--device-path DEVICE_PATH] [--device-type DEVICE_TYPE] [--fingerprint FINGERPRINT] [--chain {main,test,regtest,signet,testnet4}] …\n');
  out({ error: `hwi: error: ${message}`, code: MISSING_ARGUMENTS });
  process.exit(2);
};

const CHAINS: readonly HwiChain[] = ['main', 'test', 'regtest', 'signet', 'testnet4'];
const GLOBAL_VALUE = new Map([['--device-path', 'devicePath'], ['-d', 'devicePath'], ['--device-type', 'deviceType'], ['-t', 'deviceType'], ['--password', 'password'], ['-p', 'password'], ['--chain', 'chain'], ['--fingerprint', 'fingerprint'], ['-f', 'fingerprint']]);
const GLOBAL_FLAG = new Set(['--stdinpass', '--debug', '--stdin', '--interactive', '-i', '--expert', '--emulators']);

interface Args {
  global: Record<string, string>;
  flags: Set<string>;
  command: string;
  options: Record<string, string>;
  positional: string[];
}

const COMMANDS: Record<string, { options: string[]; positional: string[] }> = {
  enumerate: { options: [], positional: [] },
  getdescriptors: { options: ['--account'], positional: [] },
  displayaddress: { options: ['--desc', '--path', '--addr-type', '--registration', '--index', '--multipath-index'], positional: [] },
  signtx: { options: [], positional: ['psbt'] },
  getxpub: { options: [], positional: ['path'] },
};

function parseArgs(argv: string[]): Args {
  const a: Args = { global: {}, flags: new Set(), command: '', options: {}, positional: [] };
  let i = 0;
  const split = (s: string): [string, string | undefined] => {
    const eq = s.indexOf('=');
    return s.startsWith('--') && eq > 0 ? [s.slice(0, eq), s.slice(eq + 1)] : [s, undefined];
  };
  for (; i < argv.length; i++) {
    const [name, inline] = split(argv[i]!);
    if (name === '--version') {
      process.stdout.write('hwi 3.1.0\n');
      process.exit(0);
    }
    if (GLOBAL_VALUE.has(name)) {
      const v = inline ?? argv[++i];
      if (v === undefined) argError(`argument ${name}: expected one argument`);
      a.global[GLOBAL_VALUE.get(name)!] = v!;
    } else if (GLOBAL_FLAG.has(name)) a.flags.add(name);
    else if (name.startsWith('-')) argError(`unrecognized arguments: ${argv[i]}`);
    else break;
  }
  const command = argv[i++];
  if (!command) argError('the following arguments are required: command');
  const spec = COMMANDS[command!];
  if (!spec) argError(`argument command: invalid choice: '${command}'`);
  a.command = command!;
  const wanted = [...spec!.positional];
  for (; i < argv.length; i++) {
    const [name, inline] = split(argv[i]!);
    if (spec!.options.includes(name)) {
      const v = inline ?? argv[++i];
      if (v === undefined) argError(`argument ${name}: expected one argument`);
      a.options[name] = v!;
    } else if (name.startsWith('-') && name.length > 1) argError(`unrecognized arguments: ${argv[i]}`);
    else if (wanted.length) {
      wanted.shift();
      a.positional.push(argv[i]!);
    } else argError(`unrecognized arguments: ${argv[i]}`);
  }
  if (wanted.length) argError(`the following arguments are required: ${wanted.join(', ')}`);
  const chain = a.global.chain ?? 'main';
  if (!CHAINS.includes(chain as HwiChain)) argError(`argument --chain: invalid choice: '${chain}' (choose from 'main', 'test', 'regtest', 'signet', 'testnet4')`);
  if (a.options['--account'] !== undefined && !/^-?\d+$/.test(a.options['--account'])) argError(`argument --account: invalid int value: '${a.options['--account']}'`);
  return a;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function enumerateDevices(config: HwiConfig): unknown[] {
  return config.devices.map((d, k) => {
    const base = { type: d.type, model: d.model, label: null, path: `webusb:00${k + 1}:1`, needs_pin_sent: false, needs_passphrase_sent: false };
    if (d.mode === 'locked') return { ...base, needs_pin_sent: true, error: `${d.model} is locked. Unlock by using 'promptpin' and then 'sendpin'.`, code: DEVICE_NOT_READY };
    if (d.mode === 'passphrase') return { ...base, needs_passphrase_sent: true, error: 'Passphrase needs to be specified before the fingerprint information can be retrieved', code: NO_PASSWORD };
    return { ...base, fingerprint: fingerprintOf(d.name) };
  });
}

/** hwilib/commands.py find_device: the first listed device with that fingerprint (a locked one has none). */
function findDevice(config: HwiConfig, fingerprint: string): HwiDevice {
  const d = config.devices.find((x) => x.mode !== 'locked' && x.mode !== 'passphrase' && fingerprintOf(x.name) === fingerprint.toLowerCase());
  if (!d) throw new HwwError('Could not find device with specified fingerprint or type', DEVICE_CONN_ERROR);
  return d;
}

/**
 * displayaddress --desc: the device checks the fingerprint and key it holds and, for a multisig, what its
 * type asks of the descriptor (hwi-multisig.ts), then shows the address derived from the descriptor.
 */
function displayAddress(d: HwiDevice, chain: HwiChain, desc: string): { address: string } {
  const fp = fingerprintOf(d.name);
  const keys = [...desc.matchAll(/\[([0-9a-fA-F]{8})((?:\/\d+['h]?)*)\]([0-9a-zA-Z]+)((?:\/\d+)*)/g)];
  if (keys.length === 0) throw new HwwError(`Descriptor missing origin info: ${desc}`, BAD_ARGUMENT);
  if (/[*<;]/.test(desc)) throw new HwwError(`Descriptor is ranged: give the address's own path: ${desc}`, BAD_ARGUMENT);
  const mine = keys.filter((k) => k[1]!.toLowerCase() === fp);
  if (mine.length === 0) throw new HwwError(`Descriptor fingerprint does not match device: ${desc}`, BAD_ARGUMENT);
  if (/^(sh\()?tr\(/.test(desc) && d.taproot === false) throw new HwwError('Device does not support Taproot', UNAVAILABLE_ACTION);
  const ms = readMultisig(desc);
  if (ms) {
    try {
      checkMultisigFor(d.type, ms, d.registered);
    } catch (e) {
      if (e instanceof MultisigRefusal) throw new HwwError(e.message, e.code);
      throw e;
    }
  }
  for (const k of mine) {
    const origin = `m${k[2]}`;
    const xpub = xpubAt(d.name, origin, chain);
    const child = masterOf(d.name).derive(origin.replace(/h/g, "'"));
    const pub = Buffer.from(child.publicKey!).toString('hex');
    if (k[3] !== xpub && k[3] !== pub && k[3] !== pub.slice(2)) throw new HwwError(`Key in descriptor does not match device: ${desc}`, BAD_ARGUMENT);
  }
  const text = desc.includes('#') ? desc : withChecksum(desc);
  const [address] = deriveAddresses(text, NETWORKS[chain]) as string[];
  return { address: address! };
}

function inputsUseTaproot(psbt: Uint8Array, fp: string): boolean {
  const tx = btc.Transaction.fromPSBT(psbt, { allowUnknownInputs: true, allowUnknownOutputs: true, allowLegacyWitnessUtxo: true });
  for (let i = 0; i < tx.inputsLength; i++) {
    const der = (tx.getInput(i).tapBip32Derivation ?? []) as Array<[Uint8Array, { der: { fingerprint: number } }]>;
    if (der.some(([, v]) => (v.der.fingerprint >>> 0).toString(16).padStart(8, '0') === fp)) return true;
  }
  return false;
}

/** signtx: what the device signs, HWI's answer {"psbt", "signed"} (signed: the PSBT changed). */
function signTx(d: HwiDevice, psbtText: string): { psbt: string; signed: boolean } {
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(psbtText);
    btc.Transaction.fromPSBT(bytes, { allowUnknownInputs: true, allowUnknownOutputs: true, allowLegacyWitnessUtxo: true });
  } catch (e) {
    throw new HwwError(`Unable to parse PSBT: ${(e as Error).message}`, INVALID_TX);
  }
  if (d.taproot === false && inputsUseTaproot(bytes, fingerprintOf(d.name))) throw new HwwError('Device does not support Taproot', UNAVAILABLE_ACTION);
  if (d.mode === 'tamper') {
    // a device (or the program between) that signs another transaction: the first output pays 1,000 sats less
    const tx = btc.Transaction.fromPSBT(bytes, { allowUnknownInputs: true, allowUnknownOutputs: true, allowLegacyWitnessUtxo: true });
    tx.updateOutput(0, { amount: tx.getOutput(0).amount! - 1000n }, true);
    bytes = tx.toPSBT(0);
  }
  const r = signPsbt(bytes, [masterOf(d.name)]);
  const result = base64.encode(r.psbt);
  return { psbt: result, signed: result !== psbtText };
}

async function readStdinArgs(): Promise<string[]> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  const args: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') break;
    args.push(...line.trim().split(/\s+/));
  }
  return args;
}

async function main(): Promise<void> {
  const file = process.env[HWI_CONFIG_ENV];
  const config: HwiConfig = file ? (JSON.parse(readFileSync(file, 'utf8')) as HwiConfig) : { devices: [] };
  let argv = process.argv.slice(2);
  const usesStdin = argv.includes('--stdin');
  if (usesStdin) argv = [...argv, ...(await readStdinArgs())];
  if (config.log) appendFileSync(config.log, JSON.stringify({ argv: process.argv.slice(2), stdin: usesStdin }) + '\n');
  const args = parseArgs(argv);
  const chain = (args.global.chain ?? 'main') as HwiChain;

  if (args.command === 'enumerate') {
    const devices = config.devices;
    if (devices.some((d) => d.mode === 'garbage')) return void process.stdout.write('Traceback (most recent call last):\n  File "hwi.py", line 5\n\u0000\u0001 not JSON');
    if (devices.some((d) => d.mode === 'exit')) {
      process.stderr.write('libusb: error [udev_hotplug_event] ignoring udev action\nSegmentation fault\n');
      process.exit(139);
    }
    return out(enumerateDevices(config));
  }
  if (!args.global.fingerprint && !args.global.deviceType) return out({ error: 'You must specify a device type or fingerprint for all commands except enumerate', code: NO_DEVICE_TYPE });
  let device: HwiDevice;
  try {
    device = findDevice(config, args.global.fingerprint ?? '');
  } catch (e) {
    return out({ error: (e as HwwError).message, code: (e as HwwError).code });
  }
  const mode = device.mode ?? 'ok';
  const pressesButton = args.command === 'signtx' || args.command === 'displayaddress';
  if (mode === 'garbage') return void process.stdout.write('<html>\u0000\u0001{"psbt": not json');
  if (mode === 'exit') {
    process.stderr.write('hid: device disconnected\n');
    process.exit(1);
  }
  if (mode === 'flood') {
    const line = 'x'.repeat(1 << 16);
    for (let k = 0; k < 512; k++) if (!process.stdout.write(line)) await new Promise((r) => process.stdout.once('drain', r));
    return;
  }
  if (mode === 'slow' && pressesButton) await sleep(config.slowMs ?? 3000);
  if (mode === 'decline' && pressesButton) return out({ error: 'Action canceled by user', code: ACTION_CANCELED });
  try {
    switch (args.command) {
      case 'getdescriptors':
        return out(descriptorsOf(device, chain, Number.parseInt(args.options['--account'] ?? '0', 10)));
      case 'getxpub': {
        const path = args.positional[0]!;
        if (!/^m(\/\d+['h]?)*$/.test(path)) throw new HwwError('Invalid BIP 32 path', BAD_ARGUMENT);
        return out({ xpub: xpubAt(device.name, path, chain) });
      }
      case 'displayaddress': {
        const desc = args.options['--desc'];
        if (desc === undefined) throw new HwwError('Missing both path and descriptor', BAD_ARGUMENT);
        return out(displayAddress(device, chain, desc));
      }
      case 'signtx':
        return out(signTx(device, args.positional[0]!));
    }
  } catch (e) {
    if (e instanceof HwwError) return out({ error: e.message, code: e.code });
    return out({ error: (e as Error).message, code: -13 });
  }
}



await main();
