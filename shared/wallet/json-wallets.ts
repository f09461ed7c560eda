/**
 * Descriptor wallets in JSON:
 * - Specter Desktop's export ({ label, blockheight, descriptor, devices }; older files have
 *   recv_descriptor/change_descriptor and name): the change descriptor is the receive one with
 *   /1/* for /0/* unless given; the block height is the suggested rescan start. A descriptor
 *   written at account level (keys without /0/*, as Specter's and Sparrow's account maps are)
 *   means /0/* (cryptoadvance/specter-desktop src/cryptoadvance/specter/util/wallet_importer.py,
 *   WalletImporter.check_descriptor: "if all keys have None as allowed derivation - set allowed
 *   derivation to [0, None]"); a multisig written with multi() and no checksum is Specter's
 *   old format for sortedmulti() (specter-desktop commit 3a106578a, wallet.py: "Restore
 *   sortedmulti old format migrate" rewrites such files' multi to sortedmulti).
 * - Bitcoin Core's listdescriptors result ({ wallet_name, descriptors: [{ desc, timestamp, active,
 *   internal, range }] }) or an importdescriptors request list: the active descriptors of one
 *   script type; the earliest timestamp is the suggested rescan start.
 */
import type { Network } from '../bitcoin/networks';
import { descriptorChecksum } from '../bitcoin/descriptor-checksum';
import { importDescriptors, type DescriptorInput } from './descriptors';
import { jsonObject, optionalString, tryJson, type JsonObject } from './json-input';
import { shapeOf } from './shape';
import { SCRIPT_TYPE_NAMES, WalletImportError, type Birthday, type ScriptType, type WalletDescription } from './types';

export function looksLikeSpecter(o: unknown): boolean {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return false;
  const r = o as JsonObject;
  return typeof r['descriptor'] === 'string' || typeof r['recv_descriptor'] === 'string';
}

export function looksLikeCore(o: unknown): boolean {
  const list = Array.isArray(o) ? o : typeof o === 'object' && o !== null ? (o as JsonObject)['descriptors'] : undefined;
  return Array.isArray(list) && list.length > 0 && list.every((d) => typeof d === 'object' && d !== null && typeof (d as JsonObject)['desc'] === 'string');
}

function deviceLabels(o: JsonObject): string[] | undefined {
  const devices = o['devices'];
  if (!Array.isArray(devices)) return undefined;
  return devices.map((d, i) => {
    if (typeof d === 'string') return d;
    if (typeof d === 'object' && d !== null && typeof (d as JsonObject)['label'] === 'string') return (d as JsonObject)['label'] as string;
    return `Key ${i + 1}`;
  });
}

const EXT_KEY_AT_ACCOUNT = /([xtyzuvYZUV]pub[1-9A-HJ-NP-Za-km-z]{100,112})(?=[,)])/g;

/** Specter's account-level descriptor and old multi() as Specter means them (see the header). */
function specterDescriptor(text: string, field: string, notes: string[]): string {
  const [body = '', given] = text.trim().split('#');
  const accountLevel = !body.includes('*') && new RegExp(EXT_KEY_AT_ACCOUNT.source).test(body);
  const oldMulti = given === undefined && /(^|[(,])multi\(/.test(body);
  if (!accountLevel && !oldMulti) return text;
  if (given !== undefined && descriptorChecksum(body) !== given) {
    throw new WalletImportError('checksum', field, `Provided checksum '${given}' does not match computed checksum '${descriptorChecksum(body)}'`);
  }
  let out = body;
  if (accountLevel) out = out.replace(EXT_KEY_AT_ACCOUNT, '$1/0/*');
  if (oldMulti) {
    out = out.replace(/(^|[(,])multi\(/g, '$1sortedmulti(');
    notes.push("Specter's multi() without a checksum is its old way of writing sortedmulti(): the keys are sorted in every address (BIP67), as Specter does.");
  }
  return out;
}

export function importSpecter(text: string, network: Network): WalletDescription {
  const o = jsonObject(text, 'Specter wallet file');
  const recvKey = typeof o['descriptor'] === 'string' ? 'descriptor' : 'recv_descriptor';
  const recv = optionalString(o, recvKey, recvKey);
  if (recv === undefined) throw new WalletImportError('invalid', 'descriptor', 'The Specter file has no descriptor.');
  const notes: string[] = [];
  const inputs: DescriptorInput[] = [{ text: specterDescriptor(recv, recvKey, notes), field: recvKey, internal: false }];
  const change = optionalString(o, 'change_descriptor', 'change_descriptor');
  if (change !== undefined) inputs.push({ text: change, field: 'change_descriptor', internal: true });
  const height = o['blockheight'];
  let birthday: Birthday | undefined;
  if (height !== undefined && height !== null) {
    if (typeof height !== 'number' || !Number.isInteger(height) || height < 0) {
      throw new WalletImportError('invalid', 'blockheight', 'blockheight must be a block height (a whole number ≥ 0).');
    }
    if (height > 0) birthday = { kind: 'height', height };
  }
  const name = optionalString(o, 'label', 'label') ?? optionalString(o, 'name', 'name') ?? '';
  const wallet = importDescriptors(inputs, network, { name: name.trim(), format: 'specter', quietChange: true, ...(birthday ? { birthday } : {}) });
  wallet.warnings.push(...notes);
  const labels = deviceLabels(o);
  if (labels && labels.length === wallet.keys.length) wallet.keys = wallet.keys.map((k, i) => ({ ...k, label: labels[i]! }));
  return wallet;
}

interface CoreEntry {
  desc: string;
  field: string;
  internal?: boolean;
  active: boolean;
  timestamp?: number;
}

export function importCore(text: string, network: Network, opts: { scriptType?: ScriptType; name?: string } = {}): WalletDescription {
  const v = tryJson(text);
  const root = Array.isArray(v) ? undefined : jsonObject(text, 'listdescriptors result');
  const list = (Array.isArray(v) ? v : root?.['descriptors']) as unknown;
  if (!Array.isArray(list)) throw new WalletImportError('invalid', 'descriptors', 'descriptors must be a list.');
  const entries: CoreEntry[] = list.map((d, i) => {
    const field = `descriptors[${i}]`;
    if (typeof d !== 'object' || d === null) throw new WalletImportError('invalid', field, `${field} must be an object.`);
    const e = d as JsonObject;
    const desc = optionalString(e, 'desc', `${field}.desc`);
    if (desc === undefined) throw new WalletImportError('invalid', `${field}.desc`, `${field}.desc is missing.`);
    const out: CoreEntry = { desc, field: `${field}.desc`, active: e['active'] === true };
    if (typeof e['internal'] === 'boolean') out.internal = e['internal'];
    if (typeof e['timestamp'] === 'number') out.timestamp = e['timestamp'];
    return out;
  });
  let chosen = entries.some((e) => e.active) ? entries.filter((e) => e.active) : entries;
  const types = new Map<ScriptType, CoreEntry[]>();
  for (const e of chosen) {
    const body = e.desc.split('#')[0]!;
    let t: ScriptType;
    try {
      t = shapeOf(body.replace(/'/g, 'h'), e.field).scriptType;
    } catch {
      continue; // importDescriptors below reports it if it is chosen
    }
    types.set(t, [...(types.get(t) ?? []), e]);
  }
  if (opts.scriptType) {
    chosen = types.get(opts.scriptType) ?? [];
    if (chosen.length === 0) throw new WalletImportError('script-type', 'scriptType', `This Core wallet has no ${SCRIPT_TYPE_NAMES[opts.scriptType]} descriptor.`);
  } else if (types.size > 1) {
    throw new WalletImportError(
      'script-type',
      'scriptType',
      `This Core wallet has ${types.size} kinds of addresses (${[...types.keys()].map((t) => SCRIPT_TYPE_NAMES[t]).join(', ')}): choose the script type to watch.`,
    );
  }
  const times = chosen.map((e) => e.timestamp).filter((t): t is number => t !== undefined);
  const birthday: Birthday | undefined = times.length ? { kind: 'time', time: Math.min(...times) } : undefined;
  const walletName = root ? optionalString(root, 'wallet_name', 'wallet_name') : undefined;
  return importDescriptors(
    chosen.map((e) => ({ text: e.desc, field: e.field, ...(e.internal !== undefined ? { internal: e.internal } : {}) })),
    network,
    { name: opts.name ?? walletName ?? '', format: 'core', ...(birthday ? { birthday } : {}) },
  );
}
