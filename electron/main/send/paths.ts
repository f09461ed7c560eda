// The wallet's spending paths for Send (issue #32): the policy of its active receive descriptor when
// that has more than one way to spend (wsh/sh-wsh miniscript, tr() with leaves), each coin's input
// kind along the chosen path (sized by path-size.ts; its own listunspent descriptor, parsed here),
// and the kind of a change output of such a descriptor (its largest path: what spending it later costs
// at most). A wallet of single-path descriptors has no policy here and Send works as before.
import { parseDescriptor, type Descriptor } from '../../../shared/bitcoin/descriptor';
import type { Policy } from '../../../shared/bitcoin/miniscript/policy';
import type { Network } from '../../../shared/bitcoin/networks';
import { toHex } from '../../../shared/bitcoin/hex';
import type { WalletDescriptor } from '../../../shared/bitcoin/psbt';
import { inputKindFromDescriptor } from '../../../shared/bitcoin/spend/kind';
import { hasPathChoice, pathInputKind, pathInputSizes } from '../../../shared/bitcoin/spend/path-size';
import type { InputKind } from '../../../shared/bitcoin/spend/size';
import type { PathPreviewView, PolicyPathsView } from '../../../shared/ipc/send';
import type { ComposedPath, ComposePath } from '../../../shared/send/compose';
import { coinReadiness, pathLocks, type ChainNow } from '../../../shared/send/spend-path';

export interface WalletPolicy {
  desc: string;
  policy: Policy;
}

function parsed(desc: string, net: Network): Descriptor | null {
  try {
    const d = parseDescriptor(desc, net);
    return d.branches > 1 ? d.expandMultipath()[0]! : d;
  } catch {
    return null;
  }
}

/** The policy of the wallet's active receive descriptor with more than one spending path, or null. */
export function walletPolicy(descriptors: readonly WalletDescriptor[], net: Network): WalletPolicy | null {
  for (const w of descriptors.filter((x) => x.active && !x.internal)) {
    const d = parsed(w.desc, net);
    if (d && hasPathChoice(d)) {
      try {
        return { desc: w.desc, policy: pathInputSizes(d).policy };
      } catch {
        continue; // a policy that cannot be sized: its coins stay unusable, with the reason
      }
    }
  }
  return null;
}

/** A coin's kind along path `pathId` when its descriptor has paths; null for a single-path descriptor. */
export function pathKindOf(desc: string, net: Network, pathId: string): InputKind | null {
  const d = parsed(desc, net);
  if (!d || !hasPathChoice(d)) return null;
  return pathInputKind(d, pathId);
}

/**
 * A coin's kind along `pathId` from the wallet's own multi-path descriptors, for a coin whose
 * listunspent descriptor does not say (an addr() one): the index `locate` finds its script at, each
 * such descriptor expanded there and compared. Null when the script is none of theirs.
 */
export function pathResolver(descriptors: readonly WalletDescriptor[], net: Network, pathId: string, locate: (script: Uint8Array) => [number, number] | null): (script: Uint8Array) => InputKind | null {
  const ds = descriptors
    .filter((w) => w.active)
    .flatMap((w) => {
      try {
        return parseDescriptor(w.desc, net).expandMultipath();
      } catch {
        return [];
      }
    })
    .filter(hasPathChoice);
  return (script) => {
    if (ds.length === 0) return null;
    const at = locate(script);
    if (!at) return null;
    const hex = toHex(script);
    for (const d of ds) {
      if (d.expand(at[1]).some((e) => toHex(e.script) === hex)) return pathInputKind(d, pathId);
    }
    return null;
  };
}

/** The kind of an output of `desc` for the cost of spending it later: its largest path, or size.ts's kind. */
export function descriptorKind(desc: string, net: Network): InputKind {
  const d = parsed(desc, net);
  if (d && hasPathChoice(d)) {
    const { sizes } = pathInputSizes(d);
    const largest = [...sizes.values()].reduce((a, s) => (s.weight > a.weight ? s : a));
    return pathInputKind(d, largest.pathId);
  }
  return inputKindFromDescriptor(desc);
}

/** A composed path as the preview and the draft show it. */
export function pathView(p: ComposedPath): PathPreviewView {
  const nb = p.notBefore;
  return {
    id: p.id,
    words: p.words,
    sequence: p.sequence,
    minLocktime: p.minLocktime,
    notBefore: nb ? { height: nb.height, blocksLeft: nb.blocksLeft, estimate: nb.estimate, words: `Cannot be broadcast yet: ${nb.words}` } : null,
  };
}

/** The paths for the Send page, and each coin's readiness along each ('' when it can take it now). */
export function policyPathsView(p: WalletPolicy, coins: ReadonlyArray<{ outpoint: string; confirmations: number }>, now: ChainNow): PolicyPathsView {
  const readiness: Record<string, Record<string, string>> = {};
  for (const c of coins) {
    readiness[c.outpoint] = Object.fromEntries(p.policy.paths.map((x) => [x.id, coinReadiness(x, c.confirmations, now).words]));
  }
  return {
    words: p.policy.words,
    paths: p.policy.paths.map((x) => {
      const l = pathLocks(x);
      return { id: x.id, words: x.words, sequence: l.sequence, minLocktime: l.minLocktime };
    }),
    readiness,
  };
}

/** The chain's now for the paths' locks: the tip, its median time past and the MTPs time-based older() counts from (facts.ts), and the clock. */
export function chainNow(facts: { tipHeight: number; tipMtp?: number; mtpAt?: Record<number, number> }, nowSeconds = Math.floor(Date.now() / 1000)): ChainNow {
  return { tipHeight: facts.tipHeight, nowSeconds, ...(facts.tipMtp !== undefined ? { tipMtp: facts.tipMtp } : {}), ...(facts.mtpAt ? { mtpAt: facts.mtpAt } : {}) };
}

/** The form's spending path (null: the policy's first) as compose takes it, or why it cannot be; {} for a single-path wallet. */
export function chosenPath(
  policy: WalletPolicy | null,
  form: { path: { id: string; signNow: boolean } | null; locktime: number | null },
  now: ChainNow,
): { path: ComposePath } | { error: string } | Record<string, never> {
  if (!policy) return form.path ? { error: 'This wallet has one way to spend (no spending path to choose): leave the path out.' } : {};
  const id = form.path?.id ?? policy.policy.paths[0]!.id;
  const sp = policy.policy.paths.find((x) => x.id === id);
  if (!sp) return { error: `This wallet's policy has no spending path "${id}": ${policy.policy.words}` };
  return {
    path: {
      id,
      words: sp.words,
      ...(sp.older ? { older: sp.older } : {}),
      ...(sp.after ? { after: sp.after } : {}),
      now,
      signNow: form.path?.signNow ?? false,
      locktimeExplicit: form.locktime !== null,
    },
  };
}
