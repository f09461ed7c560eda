/**
 * Wallet files: what `wallet:preview` runs on a pasted text or an opened file — detectImport (also
 * on every keystroke of "Add addresses"), importWallet, the first receive addresses — and then
 * the invariant of issue #27: what imports also exports (the descriptor text, its multipath line
 * and the BSMS record each import back as the same wallet).
 */
import { REGTEST } from '../../../shared/bitcoin/networks';
import { LIMITS } from '../../../shared/limits';
import { WalletAddresses, WalletImportError, detectImport, exportBsms, exportDescriptors, importWallet, type WalletDescription } from '../../../shared/wallet/index';
import { COSIGNERS, FILES, KEY_INPUTS, NODE } from '../../wallet/vectors';
import { mutateText } from '../text-mutate';
import { InvariantError, type FuzzTarget } from '../target';
import { recordedDescriptors } from '../corpus';

const K = COSIGNERS.map((c) => `[${c.fingerprint}/48h/1h/0h/2h]${c.p2wsh}`);

let seedCache: string[] | null = null;

function seeds(): string[] {
  if (seedCache) return seedCache;
  const out: string[] = [...Object.values(FILES)];
  for (const n of Object.values(NODE)) out.push(n.external, `${n.external}\n${n.internal}`, `# Receive\n${n.external}\n\n# Change\n${n.internal}\n`);
  for (const k of Object.values(KEY_INPUTS)) out.push(k.xpub, `${k.xpub} my phone`);
  out.push(`wsh(sortedmulti(2,${K[0]}/<0;1>/*,${K[1]}/0/*,${K[2]}/0/*))`, `wsh(sortedmulti(2,${K[0]}/<0;1>/*,${K[1]}/<0;1>/*,${K[2]}/<0;1>/*))`);
  out.push(['BSMS 1.0', `wsh(sortedmulti(2,${K.map((k) => `${k}/**`).join(',')}))`, '/0/*,/1/*', 'bcrt1qzzcec5jur9zvlldpgxz9nly2zaz5lleu0kzw3y3pclnejvha8g7q6yqc29'].join('\n'));
  out.push(JSON.stringify(recordedDescriptors().slice(0, 8).map((desc, i) => ({ desc, timestamp: 1296688602, active: true, internal: i % 2 === 1, range: [0, 999], next: 0 }))));
  out.push('# my cold storage', '', '{"a":1}', 'BSMS 1.0\n00\n[a74008ce/48h/1h/0h/2h]tpub\nSigner');
  seedCache = out;
  return out;
}

const DICTIONARY = [
  'wsh(', 'sh(', 'wpkh(', 'pkh(', 'tr(', 'multi(', 'sortedmulti(', 'multi_a(', ')', '(', ',', '/', '/*', "/*'", '/*h', '/<0;1>/*', '/<0;1;2>/*', '/<0;0>/*', '/**', '<', ';', '>', '[', ']',
  "48'", '48h', '#', '#abcdefgh', 'h', "'", '0', '1', '2', '20', '21', 'a74008ce', ...K, COSIGNERS[0].p2wsh, 'xpub', 'tpub', 'Vpub', 'zpub',
  '{', '}', '"', ':', '[]', '{}', 'null', 'true', '"xpub"', '"xfp"', '"bip32Path"', '"quorum"', '"requiredSigners"', '"totalSigners"', '"descriptor"', '"desc"', '"addressType"', '"network"', '"extendedPublicKeys"', '"label"', '"blockheight"',
  'BSMS 1.0', '\nNo path restrictions\n', '/0/*,/1/*', 'Policy: ', 'Derivation: ', 'Format: ', 'Name: ', ' of ', 'P2WSH', 'P2SH-P2WSH', 'P2SH', '\n',
];

function sameWallet(a: WalletDescription, b: WalletDescription, how: string): void {
  if (a.external !== b.external || a.internal !== b.internal || a.threshold !== b.threshold || a.sorted !== b.sorted || a.scriptType !== b.scriptType) {
    throw new InvariantError(`${how} does not import back as the same wallet: ${a.external} / ${a.internal} → ${b.external} / ${b.internal}`);
  }
}

function reimport(text: string, how: string): WalletDescription {
  try {
    return importWallet(text, REGTEST);
  } catch (e) {
    throw new InvariantError(`${how} is refused on import: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const checked = new Set<string>();

const target: FuzzTarget = {
  name: 'wallet-file',
  capBytes: LIMITS.walletFile.chars,
  seeds,
  mutate: (input, rng) => mutateText(input, rng, { dictionary: DICTIONARY, seeds: seeds(), capBytes: LIMITS.walletFile.chars }),
  run(input) {
    if (input.length <= LIMITS.walletFile.chars) detectImport(input);
    const w = importWallet(input, REGTEST);
    // The preview's first addresses and the export round trip depend on the wallet alone, and most
    // accepted inputs are the same few wallets written differently: each is checked once a run.
    const key = `${w.external}|${w.internal}`;
    if (checked.has(key)) return;
    checked.add(key);
    const derive = WalletAddresses.of(w);
    for (let i = 0; i < 3; i++) derive.details('receive', i);
    // Imported: from here on any refusal breaks "what imports also exports".
    let d: ReturnType<typeof exportDescriptors>;
    let bsms: string;
    try {
      d = exportDescriptors(w);
      bsms = exportBsms(w);
    } catch (e) {
      throw new InvariantError(`An imported wallet does not export: ${e instanceof Error ? e.message : String(e)}`);
    }
    sameWallet(w, reimport(d.text, 'The descriptor export'), 'The descriptor export');
    if (d.multipath) sameWallet(w, reimport(d.multipath, 'The multipath descriptor'), 'The multipath descriptor');
    sameWallet(w, reimport(bsms, 'The BSMS export'), 'The BSMS export');
  },
  typed: (e) => e instanceof WalletImportError,
};

export default target;
