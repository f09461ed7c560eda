/**
 * A wallet's spending policy for the pages that show a wallet (the import preview, Receive): the
 * policy in words and each key's fingerprint and origin (shared/bitcoin/miniscript/policy.ts), from
 * the wallet's receive descriptor.
 */
import { parseDescriptor } from '../bitcoin/descriptor';
import { describePolicy, PolicyError, type Policy } from '../bitcoin/miniscript/policy';
import type { Network } from '../bitcoin/networks';
import type { WalletPolicyView } from '../ipc/wallet';

/** The policy of a descriptor (checksum optional); null when it has none to show (addr(), raw(), too many paths). */
export function walletPolicyView(descriptor: string, network: Network): WalletPolicyView | null {
  let policy: Policy;
  try {
    policy = describePolicy(parseDescriptor(descriptor, network));
  } catch (e) {
    if (e instanceof PolicyError) return null;
    throw e;
  }
  return {
    words: policy.words,
    keyPath: policy.keyPath,
    keys: policy.keys.map((k) => ({ name: k.name, fingerprint: k.fingerprint, originPath: k.originPath })),
    paths: policy.paths.map((p) => ({
      id: p.id,
      kind: p.kind,
      words: p.words,
      older: p.older ?? null,
      after: p.after ?? null,
    })),
  };
}
