// What importing a wallet file will create — parsed and its first receive addresses derived — as a
// function of the text and the chain alone, so that it runs in the import worker (a 1 MB descriptor
// file takes seconds to parse and must not block the main process) or inline.
import type { WalletPreview } from '../../../shared/ipc/wallet';
import { FORMAT_NAMES, SCRIPT_TYPE_NAMES, WalletAddresses, importWallet, type ImportOptions, type WalletDescription } from '../../../shared/wallet/index';
import { walletPolicyView } from '../../../shared/wallet/policy-view';
import { networkNamed } from '../watch/import-jobs';

export type WalletParseRequest = ImportOptions & { text: string; chain: string };

/** The wallet the text describes for the chain (importWallet's typed errors when it describes none). */
export function walletParseJob(req: WalletParseRequest): WalletDescription {
  const { chain, text, ...opts } = req;
  return importWallet(text, networkNamed(chain), opts);
}

export function walletPreviewJob(req: WalletParseRequest): WalletPreview {
  const w = walletParseJob(req);
  const derive = WalletAddresses.of(w);
  const firstAddresses = [0, 1, 2].map((i) => {
    const d = derive.details('receive', i);
    return { index: i, address: d.address, path: d.keys[0]?.path ?? null };
  });
  const change = w.internal ? derive.details('change', 0) : null;
  return {
    format: w.format,
    formatName: FORMAT_NAMES[w.format],
    name: w.name,
    givenName: w.givenName ?? null,
    scriptType: w.scriptType,
    scriptTypeName: w.policy ? (w.scriptType === 'p2tr' ? 'Taproot script tree (P2TR)' : `Miniscript policy (${w.scriptType === 'p2wsh' ? 'P2WSH' : 'P2SH-P2WSH'})`) : SCRIPT_TYPE_NAMES[w.scriptType],
    threshold: w.threshold,
    policyWallet: w.policy === true,
    keys: w.keys.map((k) => ({ xpub: k.xpub, fingerprint: k.fingerprint, path: k.path, label: k.label ?? null })),
    external: w.external,
    internal: w.internal,
    warnings: w.warnings,
    birthdayTime: w.birthday?.kind === 'time' ? w.birthday.time : null,
    firstAddresses,
    firstChangeAddress: change ? { address: change.address, path: change.keys[0]?.path ?? null } : null,
    policy: walletPolicyView(w.external, networkNamed(req.chain)),
  };
}
