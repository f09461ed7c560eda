/**
 * Port of Bitcoin Core v30 core_write.cpp ScriptToUniv(script, out, include_hex, include_address,
 * provider). Key order: asm, desc (include_address), hex (include_hex), address (include_address
 * and ExtractDestination succeeded and type != pubkey), type.
 */
import { encodeDestination, extractDestination } from './address';
import { toHex } from './hex';
import { inferDescriptor, type SigningProviderLike } from './infer';
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
  out.asm = scriptToAsm(script);
  if (opts.includeAddress) out.desc = inferDescriptor(script, opts.network, opts.provider);
  if (opts.includeHex) out.hex = toHex(script);
  const { type } = solver(script);
  if (opts.includeAddress && type !== 'pubkey') {
    const dest = extractDestination(script);
    if (dest) out.address = encodeDestination(dest, opts.network);
  }
  out.type = type;
  return out;
}
