/**
 * A wallet's descriptors back out: Core's receive and change descriptors (with checksums), the
 * combined multipath form (<0;1>, BIP389), a text file like Sparrow's export, and a BSMS 1.0
 * descriptor record (BIP129: template with /**, path restrictions, first address).
 */
import { parseDescriptor } from '../bitcoin/descriptor';
import { NETWORKS } from '../bitcoin/networks';
import { WalletAddresses } from './derive';
import { keyText, renderShape, shapeOf, type KeyShape } from './shape';
import type { WalletDescription } from './types';

export interface DescriptorExport {
  external: string;
  internal: string | null;
  /** receive and change in one descriptor (…/<0;1>/*), when the two differ only in that step. */
  multipath: string | null;
  /** A text file: comments and the three descriptors, one per paragraph (Sparrow's layout). */
  text: string;
}

function sameButLast(a: KeyShape, b: KeyShape): boolean {
  return a.suffix.length === b.suffix.length && a.suffix.length > 0 && a.suffix.slice(0, -1).join('/') === b.suffix.slice(0, -1).join('/');
}

function stepText(s: number): string {
  return s >= 0x80000000 ? `${s - 0x80000000}h` : String(s);
}

export function exportDescriptors(w: WalletDescription): DescriptorExport {
  let multipath: string | null = null;
  if (w.internal) {
    const a = shapeOf(w.external, 'external');
    const b = shapeOf(w.internal, 'internal');
    if (a.keys.every((k, i) => sameButLast(k, b.keys[i]!))) {
      const text = renderShape(a, (k, i) => {
        const steps = k.suffix.slice(0, -1).map((s) => '/' + stepText(s)).join('');
        const multi = `/<${stepText(k.suffix[k.suffix.length - 1]!)};${stepText(b.keys[i]!.suffix[k.suffix.length - 1]!)}>`;
        return keyText({ ...k, suffix: [], wildcard: 'none' }) + steps + multi + '/*';
      });
      multipath = parseDescriptor(text, NETWORKS[w.network]).toString();
    }
  }
  const parts = [
    ...(multipath ? ['# Receive and change descriptor (BIP389):', multipath, ''] : []),
    '# Receive descriptor (Bitcoin Core):',
    w.external,
    ...(w.internal ? ['', '# Change descriptor (Bitcoin Core):', w.internal] : []),
  ];
  return { external: w.external, internal: w.internal, multipath, text: parts.join('\n') + '\n' };
}

/**
 * BSMS 1.0 descriptor record: the receive descriptor as a template (each key's branch replaced
 * by /**), the restrictions /0/*,/1/* (the wallet's own branches), and receive address 0.
 */
export function exportBsms(w: WalletDescription): string {
  const a = shapeOf(w.external, 'external');
  const b = w.internal ? shapeOf(w.internal, 'internal') : null;
  const branch = (k: KeyShape): string => k.suffix.map((s) => '/' + stepText(s)).join('') + '/*';
  const template = renderShape(a, (k) => keyText({ ...k, suffix: [], wildcard: 'none' }) + '/**');
  const restrictions = [branch(a.keys[0]!), ...(b ? [branch(b.keys[0]!)] : [])].join(',');
  const first = WalletAddresses.of(w).address('receive', 0);
  return ['BSMS 1.0', template, restrictions, first].join('\n') + '\n';
}
