// Where RPC passwords live: the OS keychain (through keytar) when the person asks to remember them,
// otherwise this process's memory for the session. Never a file of ours, never a log line, never an
// error message. A node's `.cookie` file is read when connecting and never copied anywhere.
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { AppError } from '../../shared/errors';
import type { KeychainStatus, PasswordStorage, Remember } from '../../shared/ipc/contract';

/** A place that keeps secrets across restarts (the OS keychain in the app). */
export interface SecretBackend {
  readonly name: string;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

/** What the person knows the OS keychain as on this platform. */
export function keychainName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service (libsecret)';
}

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

const KEYTAR_FUNCTIONS = ['getPassword', 'setPassword', 'deletePassword'] as const;

/**
 * keytar's functions from what `import('keytar')` gave. keytar is CommonJS: Node's own ESM loader
 * (the built app, `npm run web`) puts its whole module.exports on `default` and names only the
 * exports its static analysis found (getPassword, not setPassword or deletePassword); vitest's loader
 * names them all. So `default` comes first, and every function the backend calls must be there.
 */
export function keytarFromModule(m: unknown): Keytar {
  const mod = (m ?? {}) as Partial<Keytar> & { default?: Partial<Keytar> };
  const has = (o: Partial<Keytar> | undefined): o is Keytar => o != null && KEYTAR_FUNCTIONS.every((f) => typeof o[f] === 'function');
  if (has(mod.default)) return mod.default;
  if (has(mod)) return mod;
  const missing = KEYTAR_FUNCTIONS.filter((f) => typeof mod.default?.[f] !== 'function' && typeof mod[f] !== 'function');
  throw new Error(`the keytar module has no ${missing.join(', ')}`);
}

/**
 * The OS keychain through keytar. keytar is loaded on first use (a dynamic import) so that a missing
 * or broken native module shows up as an unavailable keychain in `CredentialStore.status()`, not as a
 * crash at startup.
 */
export function keytarBackend(service = 'Spyglass'): SecretBackend {
  let loading: Promise<Keytar> | null = null;
  const load = (): Promise<Keytar> =>
    (loading ??= import('keytar').then(keytarFromModule, (e: unknown) => {
      throw new Error(`the keytar native module could not be loaded: ${describeError(e)}`);
    }));
  return {
    name: keychainName(),
    async get(account) {
      return (await load()).getPassword(service, account);
    },
    async set(account, secret) {
      await (await load()).setPassword(service, account, secret);
    },
    async delete(account) {
      return (await load()).deletePassword(service, account);
    },
  };
}

/** The account `status()` reads to see whether the keychain answers at all. Nothing is stored under it. */
export const PROBE_ACCOUNT = 'spyglass-keychain-probe';

export interface CredentialStoreOptions {
  /** How long the status probe waits (a locked or absent Secret Service can hang). Default 3 s. */
  probeTimeoutMs?: number;
  /** How long a save, read or delete waits (the OS may be showing an unlock prompt). Default 60 s. */
  operationTimeoutMs?: number;
}

const SESSION_ONLY = 'Passwords can be kept for this session only.';

export class CredentialStore {
  readonly #backend: SecretBackend | null;
  readonly #session = new Map<string, string>();
  readonly #probeTimeoutMs: number;
  readonly #operationTimeoutMs: number;
  #status: Promise<KeychainStatus> | null = null;

  constructor(backend: SecretBackend | null, options: CredentialStoreOptions = {}) {
    this.#backend = backend;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? 3_000;
    this.#operationTimeoutMs = options.operationTimeoutMs ?? 60_000;
  }

  /** Whether the OS keychain answers. Probed once, then cached (see `recheck`). */
  status(): Promise<KeychainStatus> {
    return (this.#status ??= this.#probe());
  }

  /** Forgets the cached status and probes again (after the person unlocked or installed a keychain). */
  recheck(): Promise<KeychainStatus> {
    this.#status = null;
    return this.status();
  }

  /**
   * Keeps a secret. 'keychain' writes it to the OS keychain (and drops any session copy); it throws
   * 'keychain.unavailable' when the keychain cannot take it, and never falls back to a file.
   * 'session' keeps it in memory only and removes a copy a previous save left in the keychain.
   */
  async save(account: string, secret: string, remember: Remember): Promise<PasswordStorage> {
    checkAccount(account);
    if (typeof secret !== 'string' || secret === '') throw new AppError('input.invalid', 'The password is empty', { field: 'password' });
    if (remember === 'session') {
      this.#session.set(account, secret);
      await this.#deleteQuietly(account);
      return 'session';
    }
    if (remember !== 'keychain') throw new AppError('input.invalid', 'Choose whether to remember the password in the keychain or for this session only', { field: 'remember' });
    const backend = await this.#available();
    try {
      await withTimeout(() => backend.set(account, secret), this.#operationTimeoutMs);
    } catch (e) {
      throw new AppError(
        'keychain.unavailable',
        isLocked(e)
          ? `The password could not be saved: ${backend.name} is locked. Unlock your keychain and try again, or keep the password for this session only.`
          : `The password could not be saved in ${backend.name} (${describeError(e, secret)}). Try again, or keep it for this session only.`,
        { backend: backend.name, ...(isLocked(e) ? { locked: true } : {}) },
      );
    }
    this.#session.delete(account);
    return 'keychain';
  }

  /** The secret from this session's memory, else from the keychain; null when neither has it. */
  async get(account: string): Promise<string | null> {
    checkAccount(account);
    const inSession = this.#session.get(account);
    if (inSession !== undefined) return inSession;
    const { available } = await this.status();
    const backend = this.#backend;
    if (!available || backend === null) return null;
    try {
      return await withTimeout(() => backend.get(account), this.#operationTimeoutMs);
    } catch (e) {
      throw new AppError(
        'keychain.unavailable',
        isLocked(e)
          ? `The saved password could not be read: ${backend.name} is locked. Unlock your keychain and try again, or enter the password for this session.`
          : `The saved password could not be read from ${backend.name} (${describeError(e)}). Unlock the keychain and try again, or enter the password for this session.`,
        { backend: backend.name, ...(isLocked(e) ? { locked: true } : {}) },
      );
    }
  }

  /** Removes the secret from memory and from the keychain. */
  async forget(account: string): Promise<void> {
    checkAccount(account);
    this.#session.delete(account);
    const { available } = await this.status();
    const backend = this.#backend;
    if (!available || backend === null) return;
    try {
      await withTimeout(() => backend.delete(account), this.#operationTimeoutMs);
    } catch (e) {
      throw new AppError(
        'keychain.unavailable',
        `The saved password could not be removed from ${backend.name} (${describeError(e)}). Try again once the keychain is unlocked.`,
        { backend: backend.name },
      );
    }
  }

  async #probe(): Promise<KeychainStatus> {
    const backend = this.#backend;
    if (backend === null) return { available: false, reason: `No OS keychain is available to Spyglass here. ${SESSION_ONLY}`, backend: 'none' };
    try {
      await withTimeout(() => backend.get(PROBE_ACCOUNT), this.#probeTimeoutMs, `no answer within ${seconds(this.#probeTimeoutMs)}; it may be locked or not running`);
      return { available: true, reason: null, backend: backend.name };
    } catch (e) {
      return { available: false, reason: `The OS keychain could not be reached (${backend.name}: ${describeError(e)}). ${SESSION_ONLY}`, backend: backend.name };
    }
  }

  async #available(): Promise<SecretBackend> {
    const status = await this.status();
    if (!status.available || this.#backend === null) {
      throw new AppError('keychain.unavailable', status.reason ?? `The OS keychain is not available. ${SESSION_ONLY}`, { backend: status.backend });
    }
    return this.#backend;
  }

  /** A session save must not leave an older keychain copy behind; a keychain that cannot answer has none we could reach. */
  async #deleteQuietly(account: string): Promise<void> {
    const { available } = await this.status();
    const backend = this.#backend;
    if (!available || backend === null) return;
    try {
      await withTimeout(() => backend.delete(account), this.#operationTimeoutMs);
    } catch {
      // Nothing more to do: the keychain refused or stopped answering since the probe.
    }
  }
}

function checkAccount(account: string): void {
  if (typeof account !== 'string' || account === '') throw new AppError('input.invalid', 'No credential account was named', { field: 'account' });
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Runs `fn` (a synchronous throw becomes a rejection) and rejects if it has not settled after `ms`. */
function withTimeout<T>(fn: () => Promise<T>, ms: number, message = `no answer within ${seconds(ms)}`): Promise<T> {
  let p: Promise<T>;
  try {
    p = fn();
  } catch (e) {
    p = Promise.reject(e);
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Whether the keychain refused because it is locked: libsecret's "Cannot create an item in a locked
 * collection", macOS's errSecInteractionNotAllowed ("User interaction is not allowed") when it cannot
 * ask to unlock, Windows' credential store never locks.
 */
function isLocked(e: unknown): boolean {
  const text = e instanceof Error ? e.message : String(e);
  return /\blocked collection\b|\bis locked\b|User interaction is not allowed/i.test(text);
}

/** One line of an error's message, with any of `secrets` cut out, for a person to read. */
function describeError(e: unknown, ...secrets: string[]): string {
  let text = e instanceof Error ? e.message : String(e);
  for (const s of secrets) if (s !== '') text = text.split(s).join('…');
  text = text.split(/\r?\n/)[0]?.trim() ?? '';
  if (text.length > 200) text = `${text.slice(0, 200)}…`;
  return text === '' ? 'no reason given' : text.replace(/\.$/, '');
}

/** A cookie file is one short line; anything much larger is the wrong file. */
export const MAX_COOKIE_BYTES = 4096;

type CookieProblem = 'missing' | 'denied' | 'not_file' | 'too_large' | 'empty' | 'malformed' | 'other';

/**
 * Reads Bitcoin Core's `.cookie` file (`__cookie__:<hex>`, rewritten at every node start). Called at
 * connect time; the content is returned to the caller and kept nowhere.
 */
export async function readCookie(path: string): Promise<{ user: string; password: string }> {
  const fail = (problem: CookieProblem, reason: string, hint: string): AppError =>
    new AppError('cookie.unreadable', `Cannot read the node's cookie file ${path}: ${reason}. ${hint}`, { field: 'cookiePath', problem });
  const checkPath = 'Check the cookie path in the profile.';
  if (path.trim() === '') throw new AppError('cookie.unreadable', "No path was given for the node's cookie file. Enter the path of its .cookie file.", { field: 'cookiePath', problem: 'missing' });

  let text: string;
  let fh: FileHandle | undefined;
  try {
    // stat before open: opening a FIFO or device by mistake could block.
    const st = await stat(path);
    if (st.isDirectory()) throw fail('not_file', 'it is a folder, not a file', 'Point to the .cookie file inside the node\'s data folder.');
    if (!st.isFile()) throw fail('not_file', 'it is not a regular file', checkPath);
    if (st.size > MAX_COOKIE_BYTES) throw fail('too_large', `it is ${st.size} bytes, far too large for a cookie file`, checkPath);
    fh = await open(path, 'r');
    const buf = Buffer.alloc(MAX_COOKIE_BYTES + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    text = buf.toString('utf8', 0, bytesRead);
    buf.fill(0);
  } catch (e) {
    if (e instanceof AppError) throw e;
    const code = (e as NodeJS.ErrnoException | null)?.code;
    if (code === 'ENOENT') {
      throw fail(
        'missing',
        'the file does not exist',
        'Bitcoin Core writes it when it starts and deletes it when it stops: check that the node is running and that the path points into its data folder (for a test network, the chain\'s subfolder, e.g. regtest/.cookie).',
      );
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw fail(
        'denied',
        'permission denied',
        'Spyglass runs as a user who may not read it: give this user read access (e.g. start the node with -rpccookieperms=group and add this user to its group), or use a user name and password instead.',
      );
    }
    if (code === 'EISDIR') throw fail('not_file', 'it is a folder, not a file', 'Point to the .cookie file inside the node\'s data folder.');
    if (code === 'ENOTDIR') throw fail('missing', 'a part of the path is not a folder', checkPath);
    throw fail('other', describeError(e), checkPath);
  } finally {
    await fh?.close();
  }

  const line = text.replace(/^\uFEFF/, '').trim();
  if (line === '') throw fail('empty', 'the file is empty', 'The node may still be starting; try again in a moment.');
  const colon = line.indexOf(':');
  const user = line.slice(0, Math.max(colon, 0));
  const password = line.slice(colon + 1);
  if (colon <= 0 || password === '' || /[\s:]/.test(user) || /\s/.test(password)) {
    throw fail('malformed', 'its content is not the single user:password line Bitcoin Core writes (__cookie__:<hex>)', checkPath);
  }
  return { user, password };
}
