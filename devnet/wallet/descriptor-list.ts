/** A wallet's descriptors as listdescriptors writes them, and in the plain form the scenarios copy. */
import type { WalletDescriptor } from './wallet';

export interface PublicDescriptor {
  desc: string;
  active: boolean;
  internal: boolean;
  range?: [number, number];
  next_index?: number;
  timestamp: number;
}

/** Public descriptors, normalized, with checksums, in the wallet's order. */
export function publicDescriptors(list: readonly WalletDescriptor[]): PublicDescriptor[] {
  return list.map((d) => ({
    desc: d.desc.toString(),
    timestamp: d.timestamp,
    active: d.active,
    internal: d.internal,
    ...(d.desc.isRange() ? { range: [d.rangeStart, d.rangeEnd] as [number, number], next_index: d.nextIndex } : {}),
  }));
}

/**
 * listdescriptors: sorted by their text (public, or with private keys), `internal` only for active
 * ones, `range`, `next` and `next_index` for ranged ones.
 */
export function listDescriptors(list: readonly WalletDescriptor[], withPrivateKeys: boolean): Array<Record<string, unknown>> {
  return list
    .map((d) => ({
      desc: withPrivateKeys ? (d.privateText ?? d.desc.toString()) : d.desc.toString(),
      timestamp: d.timestamp,
      active: d.active,
      ...(d.active ? { internal: d.internal } : {}),
      ...(d.desc.isRange() ? { range: [d.rangeStart, d.rangeEnd], next: d.nextIndex, next_index: d.nextIndex } : {}),
    }))
    .sort((a, b) => (a.desc < b.desc ? -1 : a.desc > b.desc ? 1 : 0));
}
