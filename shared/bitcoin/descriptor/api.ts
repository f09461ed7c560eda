/**
 * The Descriptor class, Parse (with checksums) and the RPC helpers getdescriptorinfo and
 * deriveaddresses (src/rpc/output_script.cpp).
 */
import { addChecksum, descriptorChecksum } from '../descriptor-checksum';
import { encodeDestination, extractDestination } from '../address';
import { inferDescriptor, type SigningProviderLike } from '../infer';
import type { Network } from '../networks';
import { CORE_LATEST, type CoreVersionOption } from '../psbt/generation';
import { build, nodeString, providerFor, type StrMode } from './build';
import { keyIsRange, type ParseState } from './keys';
import { checkBranches, nodeKeys, parseScript, selectBranch, type Node } from './parse';
import { DescriptorRpcError, type Expansion } from './types';
import { ParseError, Span } from './helpers';

// Public API
// ---------------------------------------------------------------------------------------------

export interface ExpansionWithProvider extends Expansion {
  /** What Core's FlatSigningProvider of this expansion knows (for InferDescriptor etc.). */
  provider: SigningProviderLike;
}

export class Descriptor {
  /** @internal */
  constructor(
    private readonly node: Node,
    readonly network: Network,
    /** Whether the input contained at least one private key (xprv or WIF). */
    readonly hasPrivateKeys: boolean,
    /** Number of multipath alternatives (1 normally). */
    readonly branches: number,
  ) {}

  /** Core Descriptor::IsRange. */
  isRange(): boolean {
    return nodeKeys(this.node).some(keyIsRange);
  }

  /** Core Descriptor::IsSolvable (false for addr() and raw()). */
  isSolvable(): boolean {
    return this.node.t !== 'addr' && this.node.t !== 'raw';
  }

  /** True for a tr() with a script tree (leaves besides the key path). */
  hasScriptTree(): boolean {
    return this.node.t === 'tr' && this.node.leaves.length > 0;
  }

  /** @internal The parsed tree, read-only (shared/bitcoin/miniscript/policy.ts walks it). */
  tree(): Node {
    return this.node;
  }

  /** True for addr()/raw(). */
  isAddrOrRaw(): boolean {
    return this.node.t === 'addr' || this.node.t === 'raw';
  }

  /** One element per multipath alternative (one normally). Throws 'Cannot derive script without private keys'. */
  expand(index: number): Expansion[] {
    return this.expandWithProvider(index).map(({ provider: _p, ...e }) => e);
  }

  /** Expansions already derived, by index (derivation costs about a millisecond per key). */
  private readonly expansions = new Map<number, ExpansionWithProvider[]>();

  expandWithProvider(index: number): ExpansionWithProvider[] {
    if (!Number.isInteger(index) || index < 0 || index > 0x7fffffff) throw new Error(`Invalid derivation index ${index}`);
    const cached = this.expansions.get(index);
    if (cached) return cached;
    const out: ExpansionWithProvider[] = [];
    for (let b = 0; b < this.branches; b++) {
      const built = build(this.node, b, index, this.network);
      const e: ExpansionWithProvider = { script: built.script, pubkeys: built.pubkeys, provider: providerFor(built) };
      if (built.redeemScript) e.redeemScript = built.redeemScript;
      if (built.witnessScript) e.witnessScript = built.witnessScript;
      if (built.internalKey) e.internalKey = built.internalKey;
      if (built.tapTree) e.tapLeaves = built.tapTree.leaves.map((l) => ({ script: l.script, depth: l.depth }));
      out.push(e);
    }
    this.expansions.set(index, out);
    return out;
  }

  /** The single-branch descriptors of a multipath descriptor (just [this] otherwise). */
  expandMultipath(): Descriptor[] {
    if (this.branches === 1) return [this];
    const out: Descriptor[] = [];
    for (let b = 0; b < this.branches; b++) out.push(new Descriptor(selectBranch(this.node, b), this.network, this.hasPrivateKeys, 1));
    return out;
  }

  private str(mode: StrMode): string {
    let out = this.#strings.get(mode);
    if (out === undefined) {
      out = addChecksum(nodeString(this.node, mode, this.branches === 1 ? 0 : null, this.network));
      this.#strings.set(mode, out);
    }
    return out;
  }

  /** The node tree never changes after parsing, so each string form is computed once. */
  readonly #strings = new Map<StrMode, string>();

  /**
   * Core ToNormalizedString with checksum (what listdescriptors / getaddressinfo parent_desc
   * print): origins with 'h', xprvs replaced by the xpub at the last hardened step.
   */
  toString(): string {
    return this.str('normalized');
  }

  /** Core Descriptor::ToString() (getdescriptorinfo 'descriptor'): public keys, the input's hardened marker. */
  toPublicString(): string {
    return this.str('public');
  }

  /**
   * InferDescriptor(script, provider)->ToString() for the expansion at `index` (branch 0 or
   * `branch`): the descriptor getaddressinfo shows as `desc`.
   */
  expandedString(index: number, branch = 0): string {
    const key = `${index}/${branch}`;
    const memo = this.#expandedStrings.get(key);
    if (memo !== undefined) return memo;
    const e = this.expandWithProvider(index)[branch];
    if (!e) throw new Error(`No multipath branch ${branch}`);
    const out = inferDescriptor(e.script, this.network, e.provider);
    this.#expandedStrings.set(key, out);
    return out;
  }

  /** inferDescriptor per (index, branch): wallets ask for the same ones on every listunspent. */
  readonly #expandedStrings = new Map<string, string>();
}

/** Core CheckChecksum; returns the part before '#'. */
export function checkChecksum(text: string, requireChecksum: boolean): string {
  const parts = text.split('#');
  if (parts.length > 2) throw new Error("Multiple '#' symbols");
  if (parts.length === 1 && requireChecksum) throw new Error('Missing checksum');
  if (parts.length === 2 && parts[1]!.length !== 8) {
    throw new Error(`Expected 8 character checksum, not ${parts[1]!.length} characters`);
  }
  const checksum = descriptorChecksum(parts[0]!);
  if (checksum === '') throw new Error('Invalid characters in payload');
  if (parts.length === 2 && parts[1] !== checksum) {
    throw new Error(`Provided checksum '${parts[1]}' does not match computed checksum '${checksum}'`);
  }
  return parts[0]!;
}

/** Core Parse(descriptor, provider, error, require_checksum). Throws Error(Core's message). */
export function parseDescriptor(text: string, net: Network, opts: { requireChecksum?: boolean } & CoreVersionOption = {}): Descriptor {
  const body = checkChecksum(text, opts.requireChecksum ?? false);
  const st: ParseState = { net, hasPrivateKeys: false, coreVersion: opts.coreVersion ?? CORE_LATEST };
  const sp = new Span(body);
  let node: Node;
  try {
    node = parseScript(st, sp, 'top');
  } catch (e) {
    if (e instanceof ParseError) throw new Error(e.message);
    throw e;
  }
  if (sp.size) throw new Error('');
  const branches = checkBranches(node);
  return new Descriptor(node, net, st.hasPrivateKeys, branches);
}

/** Core GetDescriptorChecksum: checksum of the part before '#', '' if the input is invalid there. */
export function getDescriptorChecksum(text: string): string {
  try {
    return descriptorChecksum(checkChecksum(text, false));
  } catch {
    return '';
  }
}

export interface DescriptorInfo {
  descriptor: string;
  multipath_expansion?: string[];
  checksum: string;
  isrange: boolean;
  issolvable: boolean;
  hasprivatekeys: boolean;
}

/** Core getdescriptorinfo result (key order as Core). Throws DescriptorRpcError(-5, parse error). */
export function getDescriptorInfo(text: string, net: Network, opts: CoreVersionOption = {}): DescriptorInfo {
  let d: Descriptor;
  try {
    d = parseDescriptor(text, net, opts);
  } catch (e) {
    throw new DescriptorRpcError(-5, (e as Error).message);
  }
  const parts = d.expandMultipath();
  const result: DescriptorInfo = { descriptor: parts[0]!.toPublicString() } as DescriptorInfo;
  if (parts.length > 1) result.multipath_expansion = parts.map((p) => p.toPublicString());
  result.checksum = getDescriptorChecksum(text);
  result.isrange = d.isRange();
  result.issolvable = d.isSolvable();
  result.hasprivatekeys = d.hasPrivateKeys;
  return result;
}

/** Core ParseDescriptorRange (rpc/util.cpp). Throws DescriptorRpcError(-8). */
export function parseDescriptorRange(value: unknown): [number, number] {
  let low: number;
  let high: number;
  if (typeof value === 'number') {
    low = 0;
    high = value;
  } else if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number') {
    low = value[0];
    high = value[1];
    if (low > high) throw new DescriptorRpcError(-8, 'Range specified as [begin,end] must not have begin after end');
  } else {
    throw new DescriptorRpcError(-8, 'Range must be specified as end or as [begin,end]');
  }
  if (!Number.isInteger(low) || !Number.isInteger(high)) throw new DescriptorRpcError(-1, 'JSON integer out of range');
  if (low < 0) throw new DescriptorRpcError(-8, 'Range should be greater or equal than 0');
  if (Math.floor(high / 2 ** 31) !== 0) throw new DescriptorRpcError(-8, 'End of range is too high');
  if (high >= low + 1000000) throw new DescriptorRpcError(-8, 'Range is too large');
  return [low, high];
}

export function deriveRange(d: Descriptor, begin: number, end: number, net: Network): string[] {
  const out: string[] = [];
  for (let i = begin; i <= end; i++) {
    let e: Expansion;
    try {
      e = d.expand(i)[0]!;
    } catch {
      throw new DescriptorRpcError(-5, 'Cannot derive script without private keys');
    }
    const dest = extractDestination(e.script);
    if (!dest) throw new DescriptorRpcError(-5, 'Descriptor does not have a corresponding address');
    out.push(encodeDestination(dest, net));
  }
  if (out.length === 0) throw new DescriptorRpcError(-1, 'Unexpected empty result');
  return out;
}

/**
 * Core deriveaddresses(descriptor, range?). `range` undefined = not given (Core checks the
 * argument count, so pass undefined rather than null to omit it). Returns string[] or, for a
 * multipath descriptor, one string[] per alternative.
 */
export function deriveAddresses(text: string, net: Network, range?: unknown, opts: CoreVersionOption = {}): string[] | string[][] {
  let begin = 0;
  let end = 0;
  if (range !== undefined && range !== null) [begin, end] = parseDescriptorRange(range);
  let d: Descriptor;
  try {
    d = parseDescriptor(text, net, { requireChecksum: true, ...opts });
  } catch (e) {
    throw new DescriptorRpcError(-5, (e as Error).message);
  }
  if (!d.isRange() && range !== undefined) {
    throw new DescriptorRpcError(-8, 'Range should not be specified for an un-ranged descriptor');
  }
  if (d.isRange() && range === undefined) {
    throw new DescriptorRpcError(-8, 'Range must be specified for a ranged descriptor');
  }
  const parts = d.expandMultipath();
  if (parts.length === 1) return deriveRange(parts[0]!, begin, end, net);
  return parts.map((p) => deriveRange(p, begin, end, net));
}
