/**
 * Pure building blocks of Bitcoin Core v30's getaddressinfo for a descriptor wallet
 * (src/wallet/rpc/addresses.cpp getaddressinfo + DescribeWalletAddress, rpc/util.cpp
 * DescribeAddress, DescriptorScriptPubKeyMan::GetMetadata, receive.cpp ScriptIsChange).
 *
 * Key order and presence rules: docs in shared spec node-rpc.md section 4.
 */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { decodeDestination, encodeDestination, extractDestination, type Destination } from './address';
import type { Descriptor, ExpansionWithProvider, KeyOriginInfo } from './descriptor';
import { writeHDKeypath } from './descriptor';
import { toHex } from './hex';
import { inferDescriptor, type SigningProviderLike } from './infer';
import type { Network } from './networks';
import { solver, txnOutputTypeName } from './script';

export interface AddressInfoWallet {
  /** The wallet descriptor whose expansion produced the address. */
  descriptor: Descriptor;
  /** Derivation index for ranged descriptors (null/ignored for un-ranged ones). */
  index: number | null;
  /** Descriptor creation time (Core's WalletDescriptor creation_time); null = unknown (omitted). */
  timestamp: number | null;
  /** Address-book label; null = not in the address book (then ischange is true). */
  label: string | null;
}

export interface AddressInfoInput {
  address: string;
  network: Network;
  /** Present when the address's script belongs to one of the wallet's descriptors. */
  wallet?: AddressInfoWallet;
  /** Address-book label for an address the wallet does not own (setlabel on a foreign address). */
  label?: string | null;
}

/** Thrown for an invalid address: Core answers RPC error -5 with this message. */
export class AddressInfoError extends Error {
  readonly code = -5;
  constructor(message: string) {
    super(message);
    this.name = 'AddressInfoError';
  }
}

const HDSEEDID_ZERO = '0000000000000000000000000000000000000000';

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function hash160(b: Uint8Array): Uint8Array {
  return ripemd160(sha256(b));
}

/** rpc/util.cpp DescribeAddress. */
export function describeAddress(dest: Destination): Record<string, unknown> {
  switch (dest.type) {
    case 'pkhash':
      return { isscript: false, iswitness: false };
    case 'scripthash':
      return { isscript: true, iswitness: false };
    case 'witness_v0_keyhash':
      return { isscript: false, iswitness: true, witness_version: 0, witness_program: toHex(dest.program) };
    case 'witness_v0_scripthash':
      return { isscript: true, iswitness: true, witness_version: 0, witness_program: toHex(dest.program) };
    case 'witness_v1_taproot':
      return { isscript: true, iswitness: true, witness_version: 1, witness_program: toHex(dest.program) };
    case 'anchor':
      return { isscript: true, iswitness: true };
    case 'witness_unknown':
      return { iswitness: true, witness_version: dest.version, witness_program: toHex(dest.program) };
    case 'pubkey':
      return {};
  }
}

/** DescribeWalletAddressVisitor::ProcessSubScript. */
function processSubScript(subscript: Uint8Array, obj: Record<string, unknown>, provider: SigningProviderLike, net: Network): void {
  const { type, solutions } = solver(subscript);
  obj.script = txnOutputTypeName(type);
  obj.hex = toHex(subscript);
  const embedded = extractDestination(subscript);
  if (embedded) {
    const sub: Record<string, unknown> = { ...describeAddress(embedded), ...walletDetail(embedded, provider, net) };
    sub.address = encodeDestination(embedded, net);
    sub.scriptPubKey = toHex(subscript);
    if ('pubkey' in sub) obj.pubkey = sub.pubkey;
    obj.embedded = sub;
  } else if (type === 'multisig') {
    obj.sigsrequired = solutions[0]![0]!;
    obj.pubkeys = solutions.slice(1, -1).map((k) => toHex(k));
  }
}

/** DescribeWalletAddressVisitor (the wallet detail for a destination the wallet can solve). */
function walletDetail(dest: Destination, provider: SigningProviderLike, net: Network): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  switch (dest.type) {
    case 'pkhash': {
      const pk = provider.getPubKeyByHash160?.(dest.hash);
      if (pk) {
        obj.pubkey = toHex(pk);
        obj.iscompressed = pk.length === 33;
      }
      break;
    }
    case 'witness_v0_keyhash': {
      const pk = provider.getPubKeyByHash160?.(dest.program);
      if (pk) obj.pubkey = toHex(pk);
      break;
    }
    case 'scripthash': {
      const sub = provider.getScript?.(dest.hash);
      if (sub) processSubScript(sub, obj, provider, net);
      break;
    }
    case 'witness_v0_scripthash': {
      const sub = provider.getScript?.(ripemd160(dest.program));
      if (sub) processSubScript(sub, obj, provider, net);
      break;
    }
    default:
      break;
  }
  return obj;
}

/** Core GetKeyForDestination: the single key of P2PKH, P2WPKH, P2SH-P2WPKH, key-path-only P2TR. */
function keyForDestination(dest: Destination, provider: SigningProviderLike): Uint8Array | null {
  if (dest.type === 'pkhash') return dest.hash;
  if (dest.type === 'witness_v0_keyhash') return dest.program;
  if (dest.type === 'scripthash') {
    const sub = provider.getScript?.(dest.hash);
    const inner = sub ? extractDestination(sub) : null;
    if (inner?.type === 'witness_v0_keyhash') return inner.program;
  }
  if (dest.type === 'witness_v1_taproot') {
    const internal = provider.getTaprootInternalKey?.(dest.program);
    if (internal) {
      for (const prefix of [2, 3]) {
        const full = new Uint8Array(33);
        full[0] = prefix;
        full.set(internal, 1);
        const id = hash160(full);
        const pk = provider.getPubKeyByHash160?.(id);
        if (pk) return id;
      }
    }
  }
  return null;
}

/** The expansion of `wallet.descriptor` whose script is `script`, if any. */
function findExpansion(wallet: AddressInfoWallet, script: Uint8Array): ExpansionWithProvider | null {
  const index = wallet.descriptor.isRange() ? (wallet.index ?? 0) : 0;
  for (const e of wallet.descriptor.expandWithProvider(index)) {
    if (bytesEqual(e.script, script)) return e;
  }
  return null;
}

/** The single-branch descriptor (of a multipath one) that produced `script`. */
function parentDescriptor(wallet: AddressInfoWallet, script: Uint8Array): Descriptor {
  const parts = wallet.descriptor.expandMultipath();
  if (parts.length === 1) return parts[0]!;
  const index = wallet.descriptor.isRange() ? (wallet.index ?? 0) : 0;
  for (const p of parts) {
    if (bytesEqual(p.expand(index)[0]!.script, script)) return p;
  }
  return parts[0]!;
}

function originOf(provider: SigningProviderLike, keyId: Uint8Array): KeyOriginInfo | undefined {
  const pk = provider.getPubKeyByHash160?.(keyId);
  return pk ? provider.getKeyOrigin?.(pk) : undefined;
}

/**
 * Core getaddressinfo result for a descriptor wallet. Throws AddressInfoError(-5, decoder
 * message or 'Invalid address') for an invalid address.
 */
export function addressInfo(input: AddressInfoInput): Record<string, unknown> {
  const { network: net } = input;
  const dec = decodeDestination(input.address, net);
  if (!dec.ok) throw new AddressInfoError(dec.error || 'Invalid address');
  const dest = dec.dest;
  const script = dec.script;

  const ret: Record<string, unknown> = {};
  ret.address = encodeDestination(dest, net);
  ret.scriptPubKey = toHex(script);

  const wallet = input.wallet;
  const expansion = wallet ? findExpansion(wallet, script) : null;
  const mine = expansion !== null;
  const provider = expansion?.provider;

  ret.ismine = mine;
  if (provider) {
    const desc = inferDescriptor(script, net, provider);
    const solvable = !desc.startsWith('addr(') && !desc.startsWith('raw(');
    ret.solvable = solvable;
    if (solvable) ret.desc = desc;
  } else {
    ret.solvable = false;
  }
  if (mine && wallet) ret.parent_desc = parentDescriptor(wallet, script).toString();
  ret.iswatchonly = false;

  Object.assign(ret, describeAddress(dest));
  if (provider) Object.assign(ret, walletDetail(dest, provider, net));

  const label = mine ? wallet!.label : (input.label ?? null);
  ret.ischange = mine && label === null;

  if (provider) {
    const keyId = keyForDestination(dest, provider);
    const origin = keyId ? originOf(provider, keyId) : undefined;
    if (origin) {
      if (wallet!.timestamp !== null) ret.timestamp = wallet!.timestamp;
      ret.hdkeypath = writeHDKeypath(origin.path);
      ret.hdseedid = HDSEEDID_ZERO;
      ret.hdmasterfingerprint = toHex(origin.fingerprint);
    }
  }

  ret.labels = label === null ? [] : [label];
  return ret;
}
