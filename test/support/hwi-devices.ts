/**
 * The test hardware wallets (no hardware exists on a test machine): known master keys from fixed
 * seeds, what each device is called, and the configuration file the test HWI program
 * (hwi-signer.mjs → hwi-signer-main.ts) reads from the environment variable SPYGLASS_HWI_CONFIG.
 * The keys are test keys in test/support only: the app never holds one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { descriptorChecksum } from '../../shared/bitcoin/descriptor-checksum';
import { NETWORKS } from '../../shared/bitcoin/networks';

/** The program to run as `hwi` (executable, with a shebang). */
export const HWI_SIGNER = fileURLToPath(new URL('./hwi-signer.mjs', import.meta.url));
/** The environment variable naming the configuration file. */
export const HWI_CONFIG_ENV = 'SPYGLASS_HWI_CONFIG';

/**
 * How the device behaves (the switches of issue #30): `ok` works; `locked` needs its PIN (HWI lists it
 * with needs_pin_sent and no fingerprint); `passphrase` needs its passphrase; `decline` refuses on its
 * screen (ACTION_CANCELED); `slow` waits `slowMs` before answering a button press; `garbage` prints
 * text that is no JSON; `exit` dies with a non-zero exit code and nothing on stdout; `tamper` signs a
 * transaction with one output amount changed; `flood` prints far more than any reply may be.
 */
export type HwiMode = 'ok' | 'locked' | 'passphrase' | 'decline' | 'slow' | 'garbage' | 'exit' | 'tamper' | 'flood';

export interface HwiDevice {
  /** A name whose seed gives the master key (sha256 of 'spyglass test device ' + name). */
  name: string;
  type: string;
  model: string;
  mode?: HwiMode;
  /** False: the device signs no taproot (getdescriptors leaves tr out, a tr spend is UNAVAILABLE_ACTION). */
  taproot?: boolean;
  /**
   * The multisig wallets the person registered on the device (their ranged descriptors): a `ledger`
   * shows a multisig address only for one of these policies (hwi-multisig.ts). Absent: any policy HWI
   * accepts (it registers it as it shows the address, the person approving on the device).
   */
  registered?: string[];
}

export interface HwiConfig {
  devices: HwiDevice[];
  /** How long `slow` waits (ms); default 3000. */
  slowMs?: number;
  /** A file each run appends one JSON line to: its argv (after the program) and whether stdin was read. */
  log?: string;
}

export function masterOf(name: string): HDKey {
  return HDKey.fromMasterSeed(createHash('sha256').update(`spyglass test device ${name}`).digest());
}

/** The master key fingerprint as HWI prints it (8 lowercase hex). */
export function fingerprintOf(name: string): string {
  return (masterOf(name).fingerprint >>> 0).toString(16).padStart(8, '0');
}

export type HwiChain = 'main' | 'test' | 'regtest' | 'signet' | 'testnet4';

const H = 0x80000000;
export const parsePath = (path: string): number[] =>
  path
    .replace(/^m\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((s) => (/['h]$/.test(s) ? Number.parseInt(s, 10) + H : Number.parseInt(s, 10)));

/** The extended public key at `path` (m/…, h or ' for hardened), in the chain's version bytes. */
export function xpubAt(name: string, path: string, chain: HwiChain): string {
  const child = masterOf(name).derive(path.replace(/h/g, "'"));
  const net = NETWORKS[chain];
  return new HDKey({ versions: net.bip32, depth: child.depth, index: child.index, parentFingerprint: child.parentFingerprint, chainCode: child.chainCode!, publicKey: child.publicKey! }).publicExtendedKey;
}

export const withChecksum = (d: string): string => `${d}#${descriptorChecksum(d)}`;

/** HWI's getdescriptors for one device: pkh, sh(wpkh), wpkh and (when it signs taproot) tr, receive and change. */
export function descriptorsOf(device: Pick<HwiDevice, 'name' | 'taproot'>, chain: HwiChain, account: number): { receive: string[]; internal: string[] } {
  const coin = chain === 'main' ? 0 : 1;
  const fp = fingerprintOf(device.name);
  const types: Array<[number, (k: string) => string]> = [
    [44, (k) => `pkh(${k})`],
    [49, (k) => `sh(wpkh(${k}))`],
    [84, (k) => `wpkh(${k})`],
  ];
  if (device.taproot !== false) types.push([86, (k) => `tr(${k})`]);
  const at = (internal: boolean) =>
    types.map(([purpose, wrap]) => {
      const origin = `${purpose}h/${coin}h/${account}h`;
      return withChecksum(wrap(`[${fp}/${origin}]${xpubAt(device.name, `m/${origin}`, chain)}/${internal ? 1 : 0}/*`));
    });
  return { receive: at(false), internal: at(true) };
}

/** A device's BIP48 (p2wsh) cosigner key expression, `[fp/48h/1h/0h/2h]tpub…`, as `getxpub` gives its xpub. */
export function cosignerKeyOf(name: string, chain: HwiChain): string {
  const coin = chain === 'main' ? 0 : 1;
  const origin = `48h/${coin}h/0h/2h`;
  return `[${fingerprintOf(name)}/${origin}]${xpubAt(name, `m/${origin}`, chain)}`;
}


/** Writes `config` to `dir`/hwi-config.json and returns the environment that points the program at it. */
export function writeHwiConfig(dir: string, config: HwiConfig): { file: string; env: Record<string, string> } {
  const file = join(dir, 'hwi-config.json');
  writeFileSync(file, JSON.stringify(config));
  return { file, env: { [HWI_CONFIG_ENV]: file } };
}
