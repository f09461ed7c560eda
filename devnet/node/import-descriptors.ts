/**
 * importdescriptors (wallet/rpc/backup.cpp): every request's timestamp is read first (a missing or
 * malformed one fails the whole call), then each request is imported on its own, with Core's checks
 * in Core's order; a failed request reports its error in its own result.
 */
import type { UValue } from '../../shared/json';
import { UTYPE_NAME } from '../../shared/json';
import { parseDescriptor } from '../../shared/bitcoin/descriptor';
import { RpcError } from '../rpc/types';
import { getIntBig } from '../rpc/args';
import type { AddressType, Wallet } from '../wallet/wallet';
import type { DevnetNode } from './node';
import { boolArg, strArg } from './rpc-util';

const field = (req: UValue, k: string): UValue | undefined => {
  if (req.t !== 'obj') return undefined;
  const i = req.k.indexOf(k);
  return i < 0 ? undefined : req.v[i];
};

/** GetImportTimestamp: a number, or "now" (the tip's median time past). */
function importTimestamp(req: UValue, now: number): number {
  const ts = field(req, 'timestamp');
  if (ts === undefined) throw new RpcError(-3, 'Missing required timestamp field for key');
  if (ts.t === 'num') return Number(getIntBig(ts, 'int64'));
  if (ts.t === 'str' && ts.v === 'now') return now;
  throw new RpcError(-3, `Expected number or "now" timestamp value for key. got type ${UTYPE_NAME[ts.t]}`);
}

/** ParseDescriptorRange: an end, or [begin, end]; inclusive. */
function descriptorRange(v: UValue): [number, number] {
  let low: bigint;
  let high: bigint;
  if (v.t === 'num') {
    low = 0n;
    high = getIntBig(v, 'int64');
  } else if (v.t === 'arr' && v.v.length === 2 && v.v[0]!.t === 'num' && v.v[1]!.t === 'num') {
    low = getIntBig(v.v[0], 'int64');
    high = getIntBig(v.v[1], 'int64');
    if (low > high) throw new RpcError(-8, 'Range specified as [begin,end] must not have begin after end');
  } else {
    throw new RpcError(-8, 'Range must be specified as end or as [begin,end]');
  }
  if (low < 0n) throw new RpcError(-8, 'Range should be greater or equal than 0');
  if (high >> 31n !== 0n) throw new RpcError(-8, 'End of range is too high');
  if (high >= low + 1_000_000n) throw new RpcError(-8, 'Range is too large');
  return [Number(low), Number(high)];
}

/** Descriptor::GetOutputType: the address type an active descriptor hands out (first match). */
const ACTIVE_TYPES: Array<[string, AddressType]> = [
  ['pkh(', 'legacy'],
  ['sh(wpkh(', 'p2sh-segwit'],
  ['sh(wsh(', 'p2sh-segwit'],
  ['sh(', 'legacy'],
  ['wpkh(', 'bech32'],
  ['wsh(', 'bech32'],
  ['tr(', 'bech32m'],
];

function importOne(node: DevnetNode, w: Wallet, req: UValue, timestamp: number): { success: true; warnings?: string[] } {
  if (req.t !== 'obj') throw new RpcError(-3, `JSON value of type ${UTYPE_NAME[req.t]} is not of expected type object`);
  const descText = field(req, 'desc');
  if (descText === undefined) throw new RpcError(-8, 'Descriptor not found.');
  const active = boolArg(field(req, 'active'), false);
  const internal = boolArg(field(req, 'internal'), false);
  const labelV = field(req, 'label');
  const label = labelV === undefined ? undefined : strArg(labelV, '');
  if (label === '*') throw new RpcError(-11, 'Invalid label name');
  let desc;
  try {
    desc = parseDescriptor(strArg(descText, ''), node.network, { requireChecksum: true });
  } catch (e) {
    throw new RpcError(-5, (e as Error).message);
  }
  const warnings: string[] = [];
  const rangeV = field(req, 'range');
  let range: [number, number] = [0, w.keypool - 1];
  if (!desc.isRange() && rangeV !== undefined) throw new RpcError(-8, 'Range should not be specified for an un-ranged descriptor');
  if (desc.isRange()) {
    if (rangeV !== undefined) range = descriptorRange(rangeV);
    else warnings.push('Range not given, using default keypool range');
  }
  if (active && !desc.isRange()) throw new RpcError(-8, 'Active descriptors must be ranged');
  if (desc.isRange() && labelV !== undefined) throw new RpcError(-8, 'Ranged descriptors should not have a label');
  if (internal && labelV !== undefined) throw new RpcError(-8, 'Internal addresses should not have a label');
  if (!w.hasKeys() && desc.hasPrivateKeys) throw new RpcError(-4, 'Cannot import private keys to a wallet with private keys disabled');
  if (w.hasKeys() && !desc.hasPrivateKeys) throw new RpcError(-4, 'Cannot import descriptor without private keys to a wallet with private keys enabled');
  const text = desc.toString();
  const addressType = active ? (ACTIVE_TYPES.find(([p]) => text.startsWith(p))?.[1] ?? null) : null;
  // Rescans the blocks from the timestamp on, and the mempool (as Core's wallet then knows it).
  // A private descriptor keeps its text (listdescriptors true; the keys walletprocesspsbt signs with).
  const privateText = desc.hasPrivateKeys ? strArg(descText, '') : undefined;
  w.addDescriptor(desc, { active, internal, addressType, range, timestamp, label, rescan: false, privateText });
  const wd = desc.isRange() ? w.descriptors.find((d) => d.desc.toString() === text) : undefined;
  if (wd && active) wd.nextIndex = Math.max(wd.nextIndex, range[0]);
  // AddWalletDescriptor tops the keypool up: the range reaches next_index + keypool − 1.
  if (wd) w.topUp(wd);
  return warnings.length ? { success: true, warnings } : { success: true };
}

/**
 * importdescriptors: the wallet must not be rescanning; every request is imported, then one rescan
 * runs from the lowest timestamp (the tip's time at most) when at least one import succeeded — over
 * the event loop when the node delays rescans, so that it can be watched and aborted.
 */
export async function importDescriptors(node: DevnetNode, w: Wallet, requests: UValue): Promise<unknown[]> {
  if (requests.t !== 'arr') throw new RpcError(-3, `JSON value of type ${UTYPE_NAME[requests.t]} is not of expected type array`);
  if (w.scanner.isScanning()) throw new RpcError(-4, 'Wallet is currently rescanning. Abort existing rescan or wait.');
  const now = node.chain.medianTimePast();
  // Timestamps first: one missing or malformed fails the whole call. Never before 1.
  const timestamps = requests.v.map((r) => Math.max(importTimestamp(r, now), 1));
  let lowest = node.chain.tip().time;
  let rescan = false;
  const results = requests.v.map((req, i) => {
    lowest = Math.min(lowest, timestamps[i]!);
    try {
      const r = importOne(node, w, req, timestamps[i]!);
      rescan = true;
      return r;
    } catch (e) {
      if (!(e instanceof RpcError)) throw e;
      return { success: false, error: { code: e.code, message: e.message } };
    }
  });
  if (rescan) {
    const start = w.scanner.startForTime(lowest);
    const outcome = await w.scanner.scan(start ?? node.chain.tipHeight() + 1, node.chain.tipHeight(), node.rescanDelayMs);
    if (outcome === 'aborted') throw new RpcError(-1, 'Rescan aborted by user.');
  }
  return results;
}
