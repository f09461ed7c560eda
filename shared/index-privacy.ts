// Whose index is it? (#17 item 5) An index on this computer or the home network is the user's own; any
// other host is someone else's server, which learns every address the app looks up — on mainnet, the
// user's whole wallet. The app says so once per profile and index URL (the acknowledgement is kept in
// the profile's settings). Pure: the URL alone decides, no DNS lookup.

export type IndexHostKind = 'this-computer' | 'local-network' | 'third-party';

function ipv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function ipv4Kind([a, b]: number[]): IndexHostKind {
  if (a === 127) return 'this-computer';
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b! >= 64 && b! <= 127)) return 'local-network';
  return 'third-party';
}

/** Where the index at `url` runs, judged from its host name or address. */
export function indexHostKind(url: string): IndexHostKind {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return 'third-party';
  }
  host = host.replace(/\.$/, '');
  if (host.startsWith('[') && host.endsWith(']')) {
    const v6 = host.slice(1, -1);
    if (v6 === '::1') return 'this-computer';
    // An IPv4-mapped address (the URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1).
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
    if (mapped) {
      const hi = parseInt(mapped[1]!, 16);
      const lo = parseInt(mapped[2]!, 16);
      return ipv4Kind([hi >> 8, hi & 255, lo >> 8, lo & 255]);
    }
    // Unique local (fc00::/7) and link-local (fe80::/10) addresses.
    if (/^f[cd][0-9a-f]{0,2}:/.test(v6) || /^fe[89ab][0-9a-f]?:/.test(v6)) return 'local-network';
    return 'third-party';
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return 'this-computer';
  const p = ipv4(host);
  if (p) return ipv4Kind(p);
  // Names that only the home network resolves (RFC 6762 .local, RFC 8375 home.arpa, common router suffixes); a dotless name too.
  if (!host.includes('.') || /\.(local|lan|home|home\.arpa|internal|intranet)$/.test(host)) return 'local-network';
  return 'third-party';
}

/**
 * The once-per-index notice is due: connected on mainnet through an index URL (not the node wallet
 * alone) on someone else's server, and this URL was not acknowledged for the profile yet.
 */
export function indexNoticeDue(o: { network: string; indexUrl: string; acknowledgedUrl: string }): boolean {
  const url = o.indexUrl.trim();
  return o.network === 'mainnet' && url !== '' && indexHostKind(url) === 'third-party' && o.acknowledgedUrl !== url;
}
