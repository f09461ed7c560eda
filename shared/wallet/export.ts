/**
 * A wallet's descriptors back out: Core's receive and change descriptors (with checksums), the
 * combined multipath form (<0;1>, BIP389), a text file like Sparrow's export, and a BSMS 1.0
 * descriptor record (BIP129: template with /**, path restrictions, first address).
 *
 * Whatever imports also exports. Core lets keys without a multipath step sit beside keys with one
 * (each is used as it is in every branch): `wsh(sortedmulti(2,A/<0;1>/*,B/0/*,C/0/*))` is a wallet
 * whose change differs from its receive descriptor in A's branch only. Its multipath form writes
 * `<0;1>` where a key's two branches differ and the plain step where they are the same (`<0;0>`
 * is refused: a multipath step's values must differ), and its BSMS record, whose one template
 * cannot give the keys different branches, is that multipath descriptor with "No path restrictions".
 */
import { parseDescriptor } from '../bitcoin/descriptor';
import { NETWORKS } from '../bitcoin/networks';
import { WalletAddresses } from './derive';
import { keyText, renderShape, shapeOf, type KeyShape } from './shape';
import { WalletImportError, type WalletDescription } from './types';

export interface DescriptorExport {
  external: string;
  internal: string | null;
  /** receive and change in one descriptor (…/<0;1>/*), when the two differ only in that step. */
  multipath: string | null;
  /** A text file: comments and the three descriptors, one per paragraph (Sparrow's layout). */
  text: string;
}

function sameButLast(a: KeyShape, b: KeyShape): boolean {
  return (
    a.key === b.key &&
    a.wildcard === b.wildcard &&
    a.suffix.length === b.suffix.length &&
    a.suffix.length > 0 &&
    a.suffix.slice(0, -1).join('/') === b.suffix.slice(0, -1).join('/')
  );
}

function stepText(s: number): string {
  return s >= 0x80000000 ? `${s - 0x80000000}h` : String(s);
}

function lastStep(k: KeyShape): number {
  return k.suffix[k.suffix.length - 1]!;
}

/** The receive and change descriptors as one BIP389 multipath descriptor (with checksum); null when they differ elsewhere too. */
function multipathOf(w: WalletDescription): string | null {
  if (!w.internal) return null;
  const a = shapeOf(w.external, 'external');
  const b = shapeOf(w.internal, 'internal');
  if (a.kind !== b.kind || (a.kind === 'policy' && b.kind === 'policy' && a.template !== b.template)) return null;
  if (a.keys.length !== b.keys.length || !a.keys.every((k, i) => sameButLast(k, b.keys[i]!))) return null;
  if (a.keys.every((k, i) => lastStep(k) === lastStep(b.keys[i]!))) return null;
  const text = renderShape(a, (k, i) => {
    const steps = k.suffix.slice(0, -1).map((s) => '/' + stepText(s)).join('');
    const r = lastStep(k);
    const c = lastStep(b.keys[i]!);
    const branch = r === c ? `/${stepText(r)}` : `/<${stepText(r)};${stepText(c)}>`;
    return keyText({ ...k, suffix: [], wildcard: 'none' }) + steps + branch + (k.wildcard === 'hardened' ? '/*h' : '/*');
  });
  return parseDescriptor(text, NETWORKS[w.network]).toString();
}

export function exportDescriptors(w: WalletDescription): DescriptorExport {
  const multipath = multipathOf(w);
  const parts = [
    ...(multipath ? ['# Receive and change descriptor (BIP389):', multipath, ''] : []),
    '# Receive descriptor (Bitcoin Core):',
    w.external,
    ...(w.internal ? ['', '# Change descriptor (Bitcoin Core):', w.internal] : []),
  ];
  return { external: w.external, internal: w.internal, multipath, text: parts.join('\n') + '\n' };
}

/** Every key's steps after it, as a path restriction (/0/*); null when the keys' steps differ. */
function sharedBranch(keys: readonly KeyShape[]): string | null {
  const branch = (k: KeyShape): string => k.suffix.map((s) => '/' + stepText(s)).join('') + (k.wildcard === 'hardened' ? '/*h' : '/*');
  const first = branch(keys[0]!);
  return keys.every((k) => branch(k) === first && k.wildcard === 'unhardened') ? first : null;
}

/**
 * BSMS 1.0 descriptor record: the receive descriptor as a template (each key's branch replaced
 * by /**), the restrictions /0/*,/1/* (the wallet's own branches), and receive address 0. When
 * the keys do not share their branches, the descriptor itself (the multipath one when there is
 * change) with "No path restrictions", as BIP129 allows.
 */
export function exportBsms(w: WalletDescription): string {
  const a = shapeOf(w.external, 'external');
  if (a.kind === 'policy') {
    throw new WalletImportError(
      'script-type',
      'wallet',
      'A BSMS 1.0 record (BIP129) sets up a multisig wallet: multi()/sortedmulti() keys behind one template. This wallet is a miniscript or taproot script-tree policy, which BSMS 1.0 cannot express. Export the descriptors instead.',
    );
  }
  const b = w.internal ? shapeOf(w.internal, 'internal') : null;
  const receive = sharedBranch(a.keys);
  const change = b ? sharedBranch(b.keys) : null;
  const first = WalletAddresses.of(w).address('receive', 0);
  if (receive !== null && (b === null || change !== null)) {
    const template = renderShape(a, (k) => keyText({ ...k, suffix: [], wildcard: 'none' }) + '/**');
    const restrictions = [receive, ...(change !== null ? [change] : [])].join(',');
    return ['BSMS 1.0', template, restrictions, first].join('\n') + '\n';
  }
  const descriptor = b ? multipathOf(w) : w.external;
  if (descriptor === null) {
    throw new WalletImportError(
      'derivation',
      'wallet',
      "A BSMS 1.0 record cannot describe this wallet: its change descriptor differs from its receive descriptor in more than each key's last step. Export the descriptors instead.",
    );
  }
  return ['BSMS 1.0', descriptor, 'No path restrictions', first].join('\n') + '\n';
}
