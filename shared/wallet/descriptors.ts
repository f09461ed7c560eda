/**
 * A wallet from output descriptors: one multipath descriptor (<0;1>), a receive/change pair, a
 * single receive descriptor (change derived /0/* → /1/*, Specter's convention), or any mix of
 * these that describes one wallet (Sparrow's export has all three). Checksums are verified with
 * Core's words; SLIP-132 keys inside descriptors are accepted and normalized.
 */
import { sizeProblem } from '../limits';
import { parseDescriptor } from '../bitcoin/descriptor';
import { descriptorChecksum } from '../bitcoin/descriptor-checksum';
import type { Network } from '../bitcoin/networks';
import { checkKeyNetwork, decodeExtKey, formatPath, refuseSecrets, type ExtKey } from './keys';
import { shapeOf, type DescriptorShape, type KeyShape, type PolicyShape } from './shape';
import { finishPolicyWallet } from './policy-wallet';
import { finishWallet, type DraftKey } from './wallet';
import { chainOf, isStandardAccountPath } from './formats/account';
import { WalletImportError, type Birthday, type ImportFormat, type WalletDescription } from './types';

export interface DescriptorInput {
  text: string;
  /** Where it came from ('descriptor', 'descriptors[1]', 'line 4'…). */
  field: string;
  /** Known role (Core's listdescriptors says); otherwise found from the branch step. */
  internal?: boolean;
}

export interface DescriptorImportOptions {
  name?: string;
  format?: ImportFormat;
  birthday?: Birthday;
  /** Derive change from a lone receive descriptor without a warning (Specter documents it). */
  quietChange?: boolean;
}

const B58_RUN = /[1-9A-HJ-NP-Za-km-z]{100,115}/g;

/**
 * Verifies the checksum (Core's messages), refuses private keys and keys of another network,
 * rewrites SLIP-132 keys as xpub/tpub; returns the body to parse.
 */
function preparedBody(input: DescriptorInput, network: Network): string {
  const text = input.text.trim();
  refuseSecrets(text, input.field);
  const parts = text.split('#');
  if (parts.length > 2) throw new WalletImportError('checksum', input.field, "Multiple '#' symbols");
  let body = parts[0]!;
  if (parts.length === 2) {
    const given = parts[1]!;
    if (given.length !== 8) throw new WalletImportError('checksum', input.field, `Expected 8 character checksum, not ${given.length} characters`);
    const computed = descriptorChecksum(body);
    if (computed === '') throw new WalletImportError('invalid', input.field, 'Invalid characters in payload');
    if (computed !== given) {
      throw new WalletImportError('checksum', input.field, `Provided checksum '${given}' does not match computed checksum '${computed}'`);
    }
  }
  body = body.replace(B58_RUN, (run) => {
    const k = decodeExtKey(run);
    if (!k) return run;
    checkKeyNetwork(k, network, input.field);
    return k.normalized;
  });
  return body;
}

interface Parsed {
  field: string;
  internal?: boolean;
  /** Normalized single-branch descriptors with their shapes (two for a multipath descriptor). */
  branches: { text: string; shape: DescriptorShape }[];
}

function parseOne(input: DescriptorInput, network: Network): Parsed {
  const tooLarge = sizeProblem('descriptor', input.text.length, 'This descriptor');
  if (tooLarge) throw new WalletImportError('too-large', input.field, tooLarge);
  const body = preparedBody(input, network);
  let d;
  try {
    d = parseDescriptor(body, network);
  } catch (e) {
    const message = (e as Error).message || 'Not a valid descriptor';
    // Core's multisig size errors: threshold 0 or above n, too many keys, P2SH script too large
    const reason = /threshold|keys in multisig|script is too large/.test(message) ? 'threshold' : 'invalid';
    throw new WalletImportError(reason, input.field, message);
  }
  if (!d.isRange()) {
    throw new WalletImportError(
      'not-ranged',
      input.field,
      'This descriptor has no /* wildcard: it describes a single address, not a wallet. Add it under "Add addresses" instead, or use the descriptor of the whole account (…/0/*).',
    );
  }
  const parts = d.expandMultipath();
  if (parts.length > 2) {
    throw new WalletImportError('derivation', input.field, `This multipath descriptor has ${parts.length} branches; a wallet has two (receive and change).`);
  }
  const branches = parts.map((p) => {
    const text = p.toString();
    return { text, shape: shapeOf(text, input.field) };
  });
  const out: Parsed = { field: input.field, branches };
  if (input.internal !== undefined) out.internal = input.internal;
  return out;
}

function sameWalletKeys(a: KeyShape, b: KeyShape): boolean {
  return (
    a.key === b.key &&
    a.fingerprint === b.fingerprint &&
    String(a.originPath) === String(b.originPath) &&
    a.wildcard === b.wildcard &&
    a.suffix.length === b.suffix.length &&
    a.suffix.slice(0, -1).join('/') === b.suffix.slice(0, -1).join('/')
  );
}

/** Whether two single-branch shapes are the receive and change halves of one wallet. */
function pairs(a: DescriptorShape, b: DescriptorShape): boolean {
  if (a.kind === 'policy' || b.kind === 'policy') {
    // the branch steps may also follow a musig() aggregate in the template itself: musig(…)/0/* and /1/*
    const branchless = (t: string): string => t.replace(/\/[0-9]+\/\*/g, '/#/*');
    if (a.kind !== 'policy' || b.kind !== 'policy' || branchless(a.template) !== branchless(b.template) || a.keys.length !== b.keys.length) return false;
    return a.keys.every((k, i) => sameWalletKeys(k, b.keys[i]!) && (k.wildcard === 'none' ? k.suffix.join('/') === b.keys[i]!.suffix.join('/') : k.suffix.length > 0));
  }
  if (a.scriptType !== b.scriptType || a.threshold !== b.threshold || a.sorted !== b.sorted || a.keys.length !== b.keys.length) return false;
  return a.keys.every((k, i) => sameWalletKeys(k, b.keys[i]!) && k.suffix.length > 0);
}

function last(s: readonly number[]): number {
  return s[s.length - 1]!;
}

function keyOf(k: KeyShape, field: string, i: number): ExtKey {
  const ext = decodeExtKey(k.key);
  if (!ext || k.wildcard === 'none') {
    throw new WalletImportError('not-ranged', field, `Key ${i + 1} is a fixed public key: every key of a wallet must be an extended public key ending in /*.`);
  }
  if (k.wildcard === 'hardened' || k.suffix.some((s) => s >= 0x80000000)) {
    throw new WalletImportError(
      'derivation',
      field,
      `Key ${i + 1} has a hardened step after the extended public key (…h or …'): only the private key can derive it. Use the xpub of the account itself.`,
    );
  }
  return ext;
}

/** A WalletDescription from one or more descriptors that together describe one wallet. */
export function importDescriptors(inputs: DescriptorInput[], network: Network, opts: DescriptorImportOptions = {}): WalletDescription {
  if (inputs.length === 0) throw new WalletImportError('invalid', 'descriptor', 'No descriptor was given.');
  const parsed = inputs.map((i) => parseOne(i, network));
  // distinct single-branch descriptors, with a role where known
  const distinct: { text: string; shape: DescriptorShape; field: string; role?: 'receive' | 'change' }[] = [];
  for (const p of parsed) {
    p.branches.forEach((b, bi) => {
      const role = p.branches.length === 2 ? (bi === 0 ? 'receive' : 'change') : p.internal === undefined ? undefined : p.internal ? 'change' : 'receive';
      const have = distinct.find((x) => x.text === b.text);
      if (have) {
        if (role && have.role && role !== have.role) {
          throw new WalletImportError('derivation', p.field, 'The same descriptor is given as both receive and change.');
        }
        have.role ??= role;
      } else {
        distinct.push({ ...b, field: p.field, ...(role ? { role } : {}) });
      }
    });
  }
  if (distinct.length > 2) {
    throw new WalletImportError(
      'derivation',
      distinct[2]!.field,
      `These descriptors describe more than one wallet (${distinct.length} different ones); give one wallet's receive and change descriptors.`,
    );
  }
  let receive = distinct[0]!;
  let change = distinct[1];
  if (change) {
    if (!pairs(receive.shape, change.shape)) {
      throw new WalletImportError(
        'derivation',
        change.field,
        'These descriptors are not the receive and change halves of one wallet: they differ in more than the branch step before /*.',
      );
    }
    const byRole = receive.role === 'change' || change.role === 'receive';
    const byStep = !receive.role && !change.role && last(receive.shape.keys[0]!.suffix) > last(change.shape.keys[0]!.suffix);
    if (byRole || byStep) [receive, change] = [change, receive];
  }
  const warnings: string[] = [];
  const shape = receive.shape;
  if (shape.kind === 'policy') {
    return finishPolicyWallet({
      name: opts.name ?? '',
      format: opts.format ?? 'descriptor',
      network,
      field: receive.field,
      receive: shape,
      change: change ? (change.shape as PolicyShape) : null,
      warnings,
      ...(opts.quietChange ? { quietChange: true } : {}),
      ...(opts.birthday ? { birthday: opts.birthday } : {}),
    });
  }
  // A lone descriptor of a standard account (every key at m/84'/0'/0'-like paths, on chain /0 or
  // /1) means the account: receive /0/*, change /1/* (formats/account.ts).
  const chain = chainOf(shape.keys[0]!.suffix);
  const account = !change && chain !== null && shape.keys.every((k) => isStandardAccountPath(k.originPath) && chainOf(k.suffix) === chain);
  if (account && chain === 'change') {
    warnings.push(
      `The file names the account's change chain (…/1/*). The key is at the standard account path ${formatPath(shape.keys[0]!.originPath!)}, so Spyglass watches the account as its maker means: receive addresses on /0/*, change on /1/*.`,
    );
  }
  const keys: DraftKey[] = shape.keys.map((k, i) => {
    const ext = keyOf(k, receive.field, i);
    const draft: DraftKey = { ext, fingerprint: k.fingerprint, path: k.originPath, field: receive.field, receive: account ? [0] : k.suffix };
    if (account) draft.change = [1];
    else if (change) draft.change = change.shape.keys[i]!.suffix;
    else if (k.suffix.length > 0 && last(k.suffix) === 0) draft.change = [...k.suffix.slice(0, -1), 1];
    else draft.change = null;
    return draft;
  });
  if (change) shape.keys.forEach((_, i) => keyOf(change.shape.keys[i]!, change.field, i));
  const suffixes = new Set(keys.map((k) => k.receive!.join('/')));
  if (suffixes.size > 1) {
    throw new WalletImportError('derivation', receive.field, `The keys use different branches (${[...suffixes].map((s) => '/' + s + '/*').join(', ')}); a wallet's keys share one.`);
  }
  if (!change && !account) {
    const odd = shape.keys.find((k) => k.originPath !== null && !isStandardAccountPath(k.originPath));
    if (odd && chainOf(odd.suffix) === 'change') {
      warnings.push(
        `The key's path ${formatPath(odd.originPath!)} is not a standard account path (BIP44/49/84/86 or BIP48), so the descriptor is watched as written: its …/1/* chain is the receive chain here.`,
      );
    }
  }
  const namedChange = account && chain === 'change';
  if (!change && !namedChange) {
    if (keys[0]!.change) {
      if (!opts.quietChange) warnings.push('No change descriptor was given: change addresses are derived with /1/* in place of /0/*, as most wallets do.');
    } else {
      warnings.push('This descriptor has no receive/change branch (…/0/*): change will go to receive addresses.');
    }
  }
  return finishWallet({
    name: opts.name ?? '',
    format: opts.format ?? 'descriptor',
    network,
    scriptType: shape.scriptType,
    threshold: shape.threshold,
    sorted: shape.sorted,
    keys,
    warnings,
    ...(opts.birthday ? { birthday: opts.birthday } : {}),
  });
}
