// Verify on device for a multisig address: the wallet's own descriptor at that address, not the node's
// descriptor of the address alone. getaddressinfo's `desc` of a sortedmulti wallet's address is
// `wsh(multi(2,[fp/…/0/5]02…,…))` — derived public keys, in script order, `multi` — and HWI 3.2.0 hands
// the parsed multisig to each device's display_multisig_address (hwilib/commands.py 461-477), where:
// - Ledger (hwilib/devices/ledger.py 451-480) needs every key as `[origin]xpub/<0|1>/<index>` (the same
//   suffix on each key, an origin of at most 4 steps) and builds a wallet policy from the xpubs and
//   `sortedmulti` vs `multi`: with the derived keys it refuses ("requires derivation paths ending with
//   /0/* or /1/*"), and with `multi` the policy is not the sortedmulti one the person registered;
// - BitBox02 (bitbox02.py 526-541) and Coldcard (coldcard.py 284-285) take sortedmulti only, the BitBox02
//   with xpubs and origins and one suffix; Jade (jade.py 419-424) xpubs with origins and a suffix;
// - Trezor (trezor.py 706-718) takes xpubs or plain keys.
// So the device gets the wallet's descriptor (Core's parent_desc, else the descriptors Spyglass stored
// for the wallet), keys as written — xpubs with their origins, sortedmulti or multi as the wallet is —
// with its multipath `<0;1>` step resolved to the address's branch and `*` to its index. It is derived
// here first and must give the very address, or nothing is sent.
import { deriveAddresses, getDescriptorChecksum, parseDescriptor, type Descriptor } from '../../../shared/bitcoin/descriptor';
import type { Network } from '../../../shared/bitcoin/networks';
import { SignerError } from './errors';

/** A multisig a device can show: multi or sortedmulti in wsh() or sh(wsh()) (and bare sh(), which HWI reads too). */
const MULTISIG = /^(sh\()?(wsh\()?(sorted)?multi\(/;

export const isMultisig = (descriptor: string): boolean => MULTISIG.test(descriptor.trim());

/**
 * The address index the node's descriptor of one address names: the last step of its keys' origins
 * (`[fp/48h/1h/0h/2h/0/5]02…` → 5). Every key must end on the same unhardened step; null otherwise.
 */
export function indexOfAddress(desc: string): number | null {
  const last = [...desc.matchAll(/\[[0-9a-fA-F]{8}((?:\/\d+[hH']?)*)\]/g)].map((m) => m[1]!.split('/').pop() ?? '');
  if (last.length === 0 || last.some((s) => s !== last[0]) || !/^\d+$/.test(last[0]!)) return null;
  const n = Number(last[0]);
  return n <= 0x7fffffff ? n : null;
}

/** One branch of a ranged descriptor at `index`: its key expressions as written, every `/*` replaced by `/index`; with its checksum. */
function atIndex(branch: Descriptor, index: number): string | null {
  const text = branch.toPublicString().replace(/#.*$/, '');
  // a hardened wildcard (`*h`) is derived from a private key only: no device builds it from an xpub
  if (/\*['hH]/.test(text)) return null;
  const body = text.replace(/\/\*/g, `/${index}`);
  return `${body}#${getDescriptorChecksum(body)}`;
}

/**
 * The wallet's descriptor at `address`: among `candidates` (the wallet's ranged descriptors: receive,
 * change, or one `<0;1>` pair), the branch whose descriptor at `index`, derived here, is that address.
 * Null when no candidate is a ranged multisig (a non-ranged or foreign wallet: the caller keeps the node's
 * descriptor). A ranged candidate that gives another address on every branch is refused: the device is
 * never shown a descriptor that is not this address's.
 */
export function walletDescriptorAt(candidates: readonly string[], index: number, address: string, net: Network): string | null {
  const tried: string[] = [];
  for (const text of candidates) {
    if (!isMultisig(text)) continue;
    let d: Descriptor;
    try {
      d = parseDescriptor(text, net);
    } catch {
      continue;
    }
    if (!d.isRange()) continue;
    for (const branch of d.expandMultipath()) {
      const resolved = atIndex(branch, index);
      if (resolved === null) continue;
      const [derived] = deriveAddresses(resolved, net) as string[];
      if (derived === address) return resolved;
      tried.push(derived ?? '?');
    }
  }
  if (tried.length === 0) return null;
  throw new SignerError(
    'wrong-descriptor',
    `The wallet’s descriptor does not give ${address} at index ${index} (it gives ${[...new Set(tried)].join(', ')}): nothing was sent to the device. The node’s wallet and the address disagree — do not use this address until you know why.`,
  );
}
