/**
 * Faithful ports of Bitcoin Core v30's address code:
 * - key_io.cpp: EncodeDestination, DecodeDestination with every error string
 * - addresstype.cpp: ExtractDestination, GetScriptForDestination
 * on top of base58.ts (base58.cpp), bech32.ts (bech32.cpp) and segwit-address.ts (the segwit
 * address writer), whose functions are re-exported here for the many modules that import them
 * from this file.
 */
import type { Network } from './networks';
import { decodeBase58, decodeBase58Check, encodeBase58Check } from './base58';
import { bech32Decode, bech32LocateErrors, convertBits, lowerAscii } from './bech32';
import { segwitEncode } from './segwit-address';
import {
  OP_0,
  OP_CHECKSIG,
  OP_DUP,
  OP_EQUAL,
  OP_EQUALVERIFY,
  OP_HASH160,
  encodeOpN,
  isPayToAnchorProgram,
  solver,
  type TxoutType,
} from './script';

export type Destination =
  | { type: 'pkhash'; hash: Uint8Array }
  | { type: 'scripthash'; hash: Uint8Array }
  | { type: 'witness_v0_keyhash'; program: Uint8Array }
  | { type: 'witness_v0_scripthash'; program: Uint8Array }
  | { type: 'witness_v1_taproot'; program: Uint8Array }
  | { type: 'anchor' }
  | { type: 'witness_unknown'; version: number; program: Uint8Array }
  | { type: 'pubkey'; pubkey: Uint8Array };

export { decodeBase58, decodeBase58Check, encodeBase58, encodeBase58Check } from './base58';
export {
  BECH32_CONST,
  BECH32M_CONST,
  CHARSET,
  bech32Decode,
  bech32Encode,
  bech32LocateErrors,
  convertBits,
  polyModStep,
  type Bech32Decoded,
  type Bech32Encoding,
} from './bech32';
export { writeSegwitAddress } from './segwit-address';

// ---------------------------------------------------------------------------------------------
// key_io.cpp
// ---------------------------------------------------------------------------------------------

const ANCHOR_PROGRAM = Uint8Array.of(0x4e, 0x73);

function prefixed(prefix: number, hash: Uint8Array): Uint8Array {
  const b = new Uint8Array(1 + hash.length);
  b[0] = prefix;
  b.set(hash, 1);
  return b;
}

/** Core EncodeDestination; '' for destinations without an address (pubkey) like Core. */
export function encodeDestination(dest: Destination, net: Network): string {
  switch (dest.type) {
    case 'pkhash':
      return encodeBase58Check(prefixed(net.pubKeyHash, dest.hash));
    case 'scripthash':
      return encodeBase58Check(prefixed(net.scriptHash, dest.hash));
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
      return segwitEncode('bech32', net.bech32, 0, dest.program);
    case 'witness_v1_taproot':
      return segwitEncode('bech32m', net.bech32, 1, dest.program);
    case 'anchor':
      return segwitEncode('bech32m', net.bech32, 1, ANCHOR_PROGRAM);
    case 'witness_unknown':
      if (dest.version < 1 || dest.version > 16 || dest.program.length < 2 || dest.program.length > 40) return '';
      return segwitEncode('bech32m', net.bech32, dest.version, dest.program);
    case 'pubkey':
      return '';
  }
}

export type DecodeResult =
  | { ok: true; dest: Destination; script: Uint8Array }
  | { ok: false; error: string; errorLocations?: number[] };

const BECH32_WITNESS_PROG_MAX_LEN = 40;

function fail(error: string, errorLocations?: number[]): DecodeResult {
  return errorLocations && errorLocations.length > 0 ? { ok: false, error, errorLocations } : { ok: false, error };
}

function success(dest: Destination): DecodeResult {
  return { ok: true, dest, script: scriptForDestination(dest) };
}

/**
 * Core v30 DecodeDestination(str, params, error_str, error_locations). On failure `error` is
 * Core's error_str (possibly '', in which case RPCs print 'Invalid address'), and
 * `errorLocations` the Bech32 error positions when Core reports some.
 */
export function decodeDestination(addr: string, net: Network): DecodeResult {
  const hrp = net.bech32;
  // Note this will be false if it is a valid Bech32 address for a different network
  const isBech32 = lowerAscii(addr.slice(0, hrp.length)) === hrp;

  if (!isBech32) {
    const data = decodeBase58Check(addr, 21);
    if (data) {
      if (data.length === 21 && data[0] === net.pubKeyHash) return success({ type: 'pkhash', hash: data.slice(1) });
      if (data.length === 21 && data[0] === net.scriptHash) return success({ type: 'scripthash', hash: data.slice(1) });
      if ((data.length >= 1 && data[0] === net.scriptHash) || (data.length >= 1 && data[0] === net.pubKeyHash)) {
        return fail('Invalid length for Base58 address (P2PKH or P2SH)');
      }
      return fail('Invalid or unsupported Base58-encoded address.');
    }
    if (!decodeBase58(addr, 100)) return fail('Invalid or unsupported Segwit (Bech32) or Base58 encoding.');
    return fail('Invalid checksum or length of Base58 address (P2PKH or P2SH)');
  }

  const dec = bech32Decode(addr);
  if (dec) {
    if (dec.data.length === 0) return fail('Empty Bech32 data section');
    if (dec.hrp !== hrp) {
      return fail(`Invalid or unsupported prefix for Segwit (Bech32) address (expected ${hrp}, got ${dec.hrp}).`);
    }
    const version = dec.data[0]!;
    if (version === 0 && dec.encoding !== 'bech32') return fail('Version 0 witness address must use Bech32 checksum');
    if (version !== 0 && dec.encoding !== 'bech32m') return fail('Version 1+ witness address must use Bech32m checksum');
    const bytes = convertBits(dec.data.subarray(1), 5, 8, false);
    if (!bytes) return fail('Invalid padding in Bech32 data section');
    const data = Uint8Array.from(bytes);
    const byteStr = data.length === 1 ? 'byte' : 'bytes';
    if (version === 0) {
      if (data.length === 20) return success({ type: 'witness_v0_keyhash', program: data });
      if (data.length === 32) return success({ type: 'witness_v0_scripthash', program: data });
      return fail(`Invalid Bech32 v0 address program size (${data.length} ${byteStr}), per BIP141`);
    }
    if (version === 1 && data.length === 32) return success({ type: 'witness_v1_taproot', program: data });
    if (isPayToAnchorProgram(version, data)) return success({ type: 'anchor' });
    if (version > 16) return fail('Invalid Bech32 address witness version');
    if (data.length < 2 || data.length > BECH32_WITNESS_PROG_MAX_LEN) {
      return fail(`Invalid Bech32 address program size (${data.length} ${byteStr})`);
    }
    return success({ type: 'witness_unknown', version, program: data });
  }

  const res = bech32LocateErrors(addr);
  return fail(res.error, res.locations);
}

/** Core IsValidDestinationString. */
export function isValidDestinationString(addr: string, net: Network): boolean {
  return decodeDestination(addr, net).ok;
}

// ---------------------------------------------------------------------------------------------
// addresstype.cpp
// ---------------------------------------------------------------------------------------------

function witnessScript(version: number, program: Uint8Array): Uint8Array {
  const s = new Uint8Array(2 + program.length);
  s[0] = encodeOpN(version);
  s[1] = program.length;
  s.set(program, 2);
  return s;
}

/** Core GetScriptForDestination. */
export function scriptForDestination(dest: Destination): Uint8Array {
  switch (dest.type) {
    case 'pkhash': {
      const s = new Uint8Array(25);
      s[0] = OP_DUP;
      s[1] = OP_HASH160;
      s[2] = 20;
      s.set(dest.hash.subarray(0, 20), 3);
      s[23] = OP_EQUALVERIFY;
      s[24] = OP_CHECKSIG;
      return s;
    }
    case 'scripthash': {
      const s = new Uint8Array(23);
      s[0] = OP_HASH160;
      s[1] = 20;
      s.set(dest.hash.subarray(0, 20), 2);
      s[22] = OP_EQUAL;
      return s;
    }
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
      return witnessScript(OP_0, dest.program);
    case 'witness_v1_taproot':
      return witnessScript(1, dest.program);
    case 'anchor':
      return witnessScript(1, ANCHOR_PROGRAM);
    case 'witness_unknown':
      return witnessScript(dest.version, dest.program);
    case 'pubkey': {
      // CScript() << pubkey << OP_CHECKSIG (keys are 33 or 65 bytes: direct push)
      const s = new Uint8Array(dest.pubkey.length + 2);
      s[0] = dest.pubkey.length;
      s.set(dest.pubkey, 1);
      s[s.length - 1] = OP_CHECKSIG;
      return s;
    }
  }
}

/**
 * Core v30 ExtractDestination, returning the destination where Core returns true and null where
 * it returns false. Like v30 (since v26), bare P2PK gives false (null): use
 * {@link extractDestinationWithPubkey} to get the PubKeyDestination Core also fills in then.
 */
export function extractDestination(script: Uint8Array): Destination | null {
  return extractDestinationFromSolved(solver(script));
}

/** ExtractDestination on an already computed Solver result. */
export function extractDestinationFromSolved(solved: { type: TxoutType; solutions: Uint8Array[] }): Destination | null {
  const { type, solutions } = solved;
  const s0 = solutions[0];
  switch (type) {
    case 'pubkeyhash':
      return { type: 'pkhash', hash: s0!.slice() };
    case 'scripthash':
      return { type: 'scripthash', hash: s0!.slice() };
    case 'witness_v0_keyhash':
      return { type: 'witness_v0_keyhash', program: s0!.slice() };
    case 'witness_v0_scripthash':
      return { type: 'witness_v0_scripthash', program: s0!.slice() };
    case 'witness_v1_taproot':
      return { type: 'witness_v1_taproot', program: s0!.slice() };
    case 'anchor':
      return { type: 'anchor' };
    case 'witness_unknown':
      return { type: 'witness_unknown', version: s0![0]!, program: solutions[1]!.slice() };
    default:
      return null;
  }
}

/** ExtractDestination's out-parameter even when it returns false: P2PK gives a pubkey destination. */
export function extractDestinationWithPubkey(script: Uint8Array): Destination | null {
  const d = extractDestination(script);
  if (d) return d;
  const { type, solutions } = solver(script);
  if (type === 'pubkey') return { type: 'pubkey', pubkey: solutions[0]!.slice() };
  return null;
}
