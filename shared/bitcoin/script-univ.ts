/**
 * Port of Bitcoin Core v30 core_write.cpp ScriptToUniv(script, out, include_hex, include_address,
 * provider). Key order: asm, desc (include_address), hex (include_hex), address (include_address
 * and ExtractDestination succeeded and type != pubkey), type.
 */
import { encodeDestination, extractDestinationFromSolved } from './address';
import { toHex } from './hex';
import { inferDescriptorSolved, type SigningProviderLike } from './infer';
import type { Network } from './networks';
import { scriptToAsm, solver } from './script';

export interface ScriptToUnivOptions {
  includeHex: boolean;
  includeAddress: boolean;
  network: Network;
  provider?: SigningProviderLike;
}

export function scriptToUniv(script: Uint8Array, opts: ScriptToUnivOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const solved = solver(script);
  out.asm = scriptToAsm(script);
  let address: string | null = null;
  if (opts.includeAddress) {
    // ExtractDestination is false for P2PK (v30), so `address` is null there too.
    const dest = extractDestinationFromSolved(solved);
    if (dest) address = encodeDestination(dest, opts.network);
    out.desc = inferDescriptorSolved(script, opts.network, opts.provider, solved, address);
  }
  if (opts.includeHex) out.hex = toHex(script);
  if (opts.includeAddress && address !== null && solved.type !== 'pubkey') out.address = address;
  out.type = solved.type;
  return out;
}
