// Address type names for the balances table (p2wpkh, p2tr, …: the PSBT review's names), fast enough
// for 10,000+ rows per overview. The common segwit addresses (lowercase bech32/bech32m v0 and v1 with
// a 20- or 32-byte program, the network's own prefix) are classified here with one allocation-free
// checksum pass: ~0.3 µs instead of a full decode (~5 µs, and up to five of them when no network is
// known offline). Everything else — base58, other versions and lengths, uppercase, anything invalid —
// goes through the full Core-faithful decode, so the answer is always the one decodeDestination gives.
import { BECH32_CONST, BECH32M_CONST, CHARSET, decodeDestination, polyModStep as polymodStep } from '../../../shared/bitcoin/address';
import { typeName } from '../../../shared/bitcoin/psbt-review';
import { INDEX_ADDRESS_KINDS } from '../../../shared/index-address-kinds';
import { solver } from '../../../shared/bitcoin/script';
import { NETWORKS, type Network } from '../../../shared/bitcoin/networks';

const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < CHARSET.length; i++) VALUE[CHARSET.charCodeAt(i)] = i;

/** The checksum state after the expanded human-readable part (BIP173), per prefix. */
const hrpState = new Map<string, number>();
for (const net of Object.values(NETWORKS)) {
  const hrp = net.bech32;
  let chk = 1;
  for (let i = 0; i < hrp.length; i++) chk = polymodStep(chk, hrp.charCodeAt(i) >> 5);
  chk = polymodStep(chk, 0);
  for (let i = 0; i < hrp.length; i++) chk = polymodStep(chk, hrp.charCodeAt(i) & 31);
  hrpState.set(hrp, chk);
}

/**
 * The type of a valid lowercase p2wpkh / p2wsh / p2tr address of `network` (any known network when
 * null), or null when the fast path cannot tell (the full decode decides then).
 */
export function segwitTypeFast(address: string, network: Network | null): string | null {
  const len = address.length;
  if (len < 14 || len > 90) return null;
  const sep = address.lastIndexOf('1');
  if (sep < 1 || len - sep - 1 < 7) return null;
  const hrp = address.slice(0, sep);
  if (network !== null ? hrp !== network.bech32 : !hrpState.has(hrp)) return null;
  let chk = hrpState.get(hrp);
  if (chk === undefined) return null;
  let version = -1;
  let last = 0;
  for (let i = sep + 1; i < len; i++) {
    const c = address.charCodeAt(i);
    const v = c < 128 ? VALUE[c]! : -1;
    if (v < 0) return null; // not in the charset, or uppercase: the full decode decides
    if (version < 0) version = v;
    if (i === len - 7) last = v; // the last 5 bits of the program, before the 6-character checksum
    chk = polymodStep(chk, v);
  }
  const groups = len - sep - 1 - 7; // 5-bit groups of the program
  const bits = groups * 5;
  const bytes = bits >> 3;
  const pad = bits & 7;
  if (pad >= 5 || (last & ((1 << pad) - 1)) !== 0) return null;
  if (version === 0 && chk === BECH32_CONST) {
    if (bytes === 20) return 'p2wpkh';
    if (bytes === 32) return 'p2wsh';
  } else if (version === 1 && chk === BECH32M_CONST && bytes === 32) {
    return 'p2tr';
  }
  return null;
}

/** The full decode: the address's script type against `network`, or against every network when null. */
function decodedType(address: string, network: Network | null): string {
  for (const net of network ? [network] : Object.values(NETWORKS)) {
    const d = decodeDestination(address, net);
    if (d.ok) return typeName(solver(d.script).type);
  }
  return 'unknown';
}

/** Address type names as the balances table shows them (the same names as the PSBT review); 'unknown' when invalid for the network. */
export function addressType(address: string, network: Network | null): string {
  return segwitTypeFast(address, network) ?? decodedType(address, network);
}

/** The address kinds a bitaps-style index looks up, as addressType names them. */
export const INDEX_SERVED_TYPES: ReadonlySet<string> = new Set(INDEX_ADDRESS_KINDS);
