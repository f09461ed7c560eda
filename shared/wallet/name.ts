/**
 * The name a new watch-only wallet gets on the node. Bitcoin Core keeps each wallet in a folder of
 * that name inside its wallets directory, so a name must be a safe folder name on every system a
 * node runs on: letters, digits, space, dot, dash and underscore (what the IPC contract's
 * `wallet:import` accepts), none of Windows' device names, no leading or trailing dot or space, not
 * too long, and not one the node or the profile already has — the folders of "Vault" and "vault" are
 * one folder on macOS and Windows, so names are compared ignoring case.
 *
 *   walletNameProblem(name, taken)  → why a name cannot be used, or null
 *   suggestWalletName(given, taken) → the default: the name the file carries, else "Wallet N"
 */

/** Longest wallet name accepted (Core has no limit of its own; a folder name of 64 characters is safe everywhere). */
export const WALLET_NAME_MAX = 64;

const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
/** The characters a wallet name may hold (shared/ipc/contract.ts `walletName` says the same). */
const ALLOWED = /^[A-Za-z0-9._ -]+$/;

const key = (name: string): string => name.trim().toLowerCase();

/** Why `name` cannot name a new wallet on the node (a sentence to show), or null when it can. */
export function walletNameProblem(name: string, taken: Iterable<string> = []): string | null {
  if (name.trim() === '') return 'Give the wallet a name: it is its name on the node.';
  if (name !== name.trim()) return 'A wallet name cannot start or end with a space.';
  if (name.length > WALLET_NAME_MAX) return `A wallet name has at most ${WALLET_NAME_MAX} characters (this one has ${name.length}).`;
  if (!ALLOWED.test(name)) {
    const bad = [...new Set(name.replace(/[A-Za-z0-9._ -]/g, ''))].slice(0, 3).map((c) => `“${c}”`).join(' ');
    return `A wallet name holds letters, digits, spaces, dots, dashes and underscores only (not ${bad}): the node keeps the wallet in a folder of that name.`;
  }
  if (name.startsWith('.') || name.endsWith('.')) return 'A wallet name cannot start or end with a dot.';
  if (RESERVED.test(name)) return `“${name}” is a reserved file name on Windows: choose another wallet name.`;
  const k = key(name);
  for (const t of taken) if (key(t) === k) return `The node or this profile already has a wallet named “${t}”: choose another name.`;
  return null;
}

/**
 * A name the file gave the wallet made safe as a wallet name: accents dropped ("Família" →
 * "Familia"), apostrophes and quotes left out, every other character a name cannot hold a space, runs
 * of spaces one, no leading or trailing dots or spaces, at most WALLET_NAME_MAX characters. '' when
 * nothing usable is left.
 */
export function cleanWalletName(given: string): string {
  let s = given
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/['’‘"“”`´]/g, '')
    .replace(/[^A-Za-z0-9._ -]+/g, ' ')
    .replace(/ +/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  if (s.length > WALLET_NAME_MAX) s = s.slice(0, WALLET_NAME_MAX).replace(/[\s.]+$/, '');
  if (RESERVED.test(s)) s = `${s} wallet`;
  return s;
}

/** `base`, or `base 2`, `base 3`… : the first one not taken (kept within WALLET_NAME_MAX). */
function firstFree(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(key(base))) return base;
  for (let n = 2; ; n++) {
    const suffix = ` ${n}`;
    const name = `${base.slice(0, WALLET_NAME_MAX - suffix.length).replace(/[\s.]+$/, '')}${suffix}`;
    if (!taken.has(key(name))) return name;
  }
}

/**
 * The default name of a wallet being imported: the name the input carries (a Caravan or Coldcard
 * file's name, a Specter file's label, Core's wallet_name, a file's own name), made safe; else
 * "Wallet N", N the smallest number ≥ 1 no wallet of the node or the profile uses. Never a name in
 * `taken`: a file's name already in use gets " 2", " 3"…
 */
export function suggestWalletName(given: string | null | undefined, taken: Iterable<string>): string {
  const used = new Set([...taken].map(key));
  const clean = cleanWalletName(given ?? '');
  if (clean !== '') return firstFree(clean, used);
  for (let n = 1; ; n++) if (!used.has(key(`Wallet ${n}`))) return `Wallet ${n}`;
}

/** A file's name without its folder and extension ("My Vault.txt" → "My Vault"): the name Sparrow and Electrum give a wallet's export. */
export function fileBaseName(fileName: string): string {
  const base = fileName.split(/[/\\]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}
