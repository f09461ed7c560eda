// bitcoin: links handed to the app by the OS (macOS open-url, a second instance's command line on
// Windows and Linux, the first start's own) or by `npm run web -- bitcoin:…`. Main keeps the latest one
// until the window takes it (`uri:take`), and tells the window one is waiting (`uri:opened`): a link
// that arrives before the window has loaded is never lost. Parsing is the renderer's (shared/bip21).
import { isBip21, MAX_BIP21_LENGTH } from '../../shared/bip21';

/** The bitcoin: URI among command-line arguments (the OS passes the link as one), or null. */
export function bitcoinUriFromArgv(argv: readonly string[]): string | null {
  for (let i = argv.length - 1; i >= 0; i--) {
    const a = argv[i]!;
    if (isBip21(a) && a.length <= MAX_BIP21_LENGTH) return a.trim();
  }
  return null;
}

export class UriInbox {
  #pending: string | null = null;
  readonly #notify: () => void;

  constructor(notify: () => void) {
    this.#notify = notify;
  }

  /** Keeps `uri` for the window (a later one replaces it). False, and nothing kept, when it is not a bitcoin: URI. */
  put(uri: string): boolean {
    const u = uri.trim();
    if (!isBip21(u) || u.length > MAX_BIP21_LENGTH) return false;
    this.#pending = u;
    this.#notify();
    return true;
  }

  /** The waiting URI, once. */
  take(): { uri: string | null } {
    const uri = this.#pending;
    this.#pending = null;
    return { uri };
  }
}
