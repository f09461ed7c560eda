// The balances table's fast address typing must give exactly the full decode's answer
// (decodeDestination → solver → typeName) for every address, valid or not, on every network.
import { describe, expect, it } from 'vitest';
import { bech32Encode, convertBits, decodeDestination, encodeDestination, type Destination } from '../../shared/bitcoin/address';
import { NETWORKS, type Network } from '../../shared/bitcoin/networks';
import { typeName } from '../../shared/bitcoin/psbt-review';
import { solver } from '../../shared/bitcoin/script';
import { addressType, segwitTypeFast } from '../../electron/main/watch/address-type';

/** The reference: the full decode, against `network` or every network. */
function reference(address: string, network: Network | null): string {
  for (const net of network ? [network] : Object.values(NETWORKS)) {
    const d = decodeDestination(address, net);
    if (d.ok) return typeName(solver(d.script).type);
  }
  return 'unknown';
}

let seed = 12345;
function rand(n: number): number {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return (seed >>> 8) % n;
}
const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => rand(256));

function segwit(encoding: 'bech32' | 'bech32m', hrp: string, version: number, program: Uint8Array): string {
  return bech32Encode(encoding, hrp, [version, ...(convertBits(program, 8, 5, true) ?? [])]);
}

/** Valid addresses of every kind on every network, plus near misses. */
function corpus(): string[] {
  const out: string[] = [];
  const nets = Object.values(NETWORKS);
  for (const net of nets) {
    for (let i = 0; i < 20; i++) {
      const dests: Destination[] = [
        { type: 'pkhash', hash: bytes(20) },
        { type: 'scripthash', hash: bytes(20) },
        { type: 'witness_v0_keyhash', program: bytes(20) },
        { type: 'witness_v0_scripthash', program: bytes(32) },
        { type: 'witness_v1_taproot', program: bytes(32) },
        { type: 'anchor' },
        { type: 'witness_unknown', version: 2 + rand(15), program: bytes(2 + rand(39)) },
      ];
      for (const d of dests) out.push(encodeDestination(d, net));
      // Wrong checksum kind, wrong lengths, versions out of range.
      out.push(segwit('bech32m', net.bech32, 0, bytes(20)));
      out.push(segwit('bech32', net.bech32, 1, bytes(32)));
      out.push(segwit('bech32', net.bech32, 0, bytes(1 + rand(40))));
      out.push(segwit('bech32m', net.bech32, 1, bytes(1 + rand(40))));
      out.push(segwit('bech32m', net.bech32, 17, bytes(32)));
      // Nonzero padding bits: a 32-byte program's last 5-bit group carries 4 padding bits.
      const p = [0, ...(convertBits(bytes(32), 8, 5, true) ?? [])];
      p[p.length - 1] = (p[p.length - 1]! | 1) & 31;
      out.push(bech32Encode('bech32', net.bech32, p));
      out.push(bech32Encode('bech32m', net.bech32, [1, ...p.slice(1)]));
    }
  }
  const mutated: string[] = [];
  for (const a of out) {
    mutated.push(a.toUpperCase());
    mutated.push(a.slice(0, -1));
    mutated.push(a + 'q');
    const i = rand(a.length);
    const c = a[i] === 'q' ? 'p' : 'q';
    mutated.push(a.slice(0, i) + c + a.slice(i + 1));
    mutated.push(a.slice(0, 3) + a[3]!.toUpperCase() + a.slice(4));
  }
  return [...out, ...mutated, '', 'bc1', 'bcrt1qqqqqqqqq', 'x'.repeat(100), `bc1${'q'.repeat(95)}`];
}

describe('addressType', () => {
  const addresses = corpus();

  it('equals the full decode for every address and network, and offline (no network)', () => {
    let fast = 0;
    for (const a of addresses) {
      for (const net of [...Object.values(NETWORKS), null]) {
        expect(addressType(a, net), `${a} on ${net?.chain ?? 'any network'}`).toBe(reference(a, net));
        if (segwitTypeFast(a, net) !== null) fast++;
      }
    }
    expect(fast).toBeGreaterThan(500); // the fast path is actually taken
  });

  it('takes the fast path only for p2wpkh, p2wsh and p2tr of the right network', () => {
    const net = NETWORKS.regtest;
    expect(segwitTypeFast(encodeDestination({ type: 'witness_v0_keyhash', program: bytes(20) }, net), net)).toBe('p2wpkh');
    expect(segwitTypeFast(encodeDestination({ type: 'witness_v0_scripthash', program: bytes(32) }, net), net)).toBe('p2wsh');
    expect(segwitTypeFast(encodeDestination({ type: 'witness_v1_taproot', program: bytes(32) }, net), null)).toBe('p2tr');
    expect(segwitTypeFast(encodeDestination({ type: 'witness_v1_taproot', program: bytes(32) }, net), NETWORKS.main)).toBeNull();
    expect(segwitTypeFast(encodeDestination({ type: 'pkhash', hash: bytes(20) }, net), net)).toBeNull();
    expect(addressType(encodeDestination({ type: 'pkhash', hash: bytes(20) }, net), net)).toBe('p2pkh');
    expect(addressType(encodeDestination({ type: 'witness_v1_taproot', program: bytes(32) }, net), NETWORKS.main)).toBe('unknown');
  });
});
