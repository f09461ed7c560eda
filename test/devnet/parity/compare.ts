/**
 * Field-by-field comparison of a real Core reply with the devnet's reply to the same request:
 * HTTP status, Content-Type, WWW-Authenticate, then the body — JSON parsed with its exact number
 * tokens, key order, types, strings, error code and message — and finally the raw text itself
 * (layout, escapes, trailing newline).
 *
 * What is normalised, and why (nothing else is):
 * - key-derived tokens, in non-strict steps only: Core's wallets draw random seeds, so every key,
 *   address, script, descriptor checksum and key fingerprint differs, and so do the txids of
 *   transactions that pay to or sign with them and the hashes of blocks holding those. Such tokens
 *   (64-hex and other hex runs of 40+ digits, regtest addresses, tpub/tprv keys, descriptor checksums
 *   after `#`, key-origin fingerprints after `[`, and `hdmasterfingerprint`/`master_fingerprint`
 *   values) are not ignored but matched one to one: the first time a Core token meets a devnet token
 *   they are bound, and every later occurrence must respect the binding in both directions (so a txid
 *   listed in the wrong order, or an address of the wrong wallet, is a difference). A hex token must
 *   keep its length (the same size of script, key or transaction). `chainwork` and `target` are
 *   never normalised.
 * - the datadir path in messages (`<datadir>`): Core names its wallet files by their full path.
 * Strict steps (the chain both nodes build from the same fixed key and clock) normalise nothing.
 */
import { parseJson, type UValue } from '../../../shared/json';

export interface Reply {
  status: number;
  contentType: string;
  text: string;
  wwwAuthenticate: string | null;
}

export interface Difference {
  step: string;
  method: string;
  /** Where: `status`, `body`, `body.result.vin[0].txid`, `layout`… */
  path: string;
  core: string;
  devnet: string;
}

/** One-to-one binding of Core tokens to devnet tokens. */
export class Correspondence {
  private readonly c2d = new Map<string, string>();
  private readonly d2c = new Map<string, string>();

  /** Binds c ↔ d; the conflict as text when either is already bound to something else. */
  bind(c: string, d: string): string | null {
    const hasC = this.c2d.get(c);
    const hasD = this.d2c.get(d);
    if (hasC === undefined && hasD === undefined) {
      if (/^[0-9a-f]+$/.test(c) && /^[0-9a-f]+$/.test(d) && c.length !== d.length) return `hex of ${c.length / 2} bytes vs ${d.length / 2} bytes`;
      this.c2d.set(c, d);
      this.d2c.set(d, c);
      return null;
    }
    if (hasC === d) return null;
    if (hasC !== undefined) return `Core's ${short(c)} stands for the devnet's ${short(hasC)} elsewhere, here for ${short(d)}`;
    return `the devnet's ${short(d)} stands for Core's ${short(hasD!)} elsewhere, here for ${short(c)}`;
  }

  /** The Core token bound to a devnet token. */
  coreOf(d: string): string | undefined {
    return this.d2c.get(d);
  }
}

const short = (s: string): string => (s.length > 24 ? `${s.slice(0, 10)}…${s.slice(-8)}` : s);
const show = (s: string): string => (s.length > 300 ? `${s.slice(0, 300)}…` : s);

const TOKEN = new RegExp(
  [
    '[tx]p(?:ub|rv)[1-9A-HJ-NP-Za-km-z]{100,112}', // extended keys
    'bcrt1[02-9ac-hj-np-z]{8,87}', // bech32/bech32m addresses
    '\\b[mn2][1-9A-HJ-NP-Za-km-z]{25,34}\\b', // base58 regtest addresses
    '(?<=\\[)[0-9a-f]{8}(?=[/\\]])', // key-origin fingerprints
    '(?<=#)[0-9a-z]{8}\\b', // descriptor checksums
    '[0-9a-f]{40,}', // hashes, keys, scripts, transactions, blocks
  ].join('|'),
  'g',
);
const WHOLE_TOKEN_KEYS = new Set(['hdmasterfingerprint', 'master_fingerprint']);
const EXACT_KEYS = new Set(['chainwork', 'target']);

export interface CompareOptions {
  strict: boolean;
  /** Datadir paths to write as `<datadir>` (Core's, the devnet's). */
  datadirs: { core: string | null; devnet: string | null };
}

export class ReplyComparer {
  readonly map = new Correspondence();
  constructor(private readonly datadirs: CompareOptions['datadirs']) {}

  compare(step: string, method: string, core: Reply, devnet: Reply, strict: boolean): Difference[] {
    const out: Difference[] = [];
    const diff = (path: string, c: string, d: string): void => {
      out.push({ step, method, path, core: show(c), devnet: show(d) });
    };
    if (core.status !== devnet.status) diff('status', String(core.status), String(devnet.status));
    if (core.contentType !== devnet.contentType) diff('content-type', core.contentType, devnet.contentType);
    if (core.wwwAuthenticate !== devnet.wwwAuthenticate) diff('www-authenticate', String(core.wwwAuthenticate), String(devnet.wwwAuthenticate));
    let c: UValue | null = null;
    let d: UValue | null = null;
    try {
      c = parseJson(core.text);
      d = parseJson(devnet.text);
    } catch {
      c = d = null;
    }
    if (c === null || d === null) {
      const [ct, dt] = this.strings(core.text, devnet.text, strict, null);
      if (ct !== dt) diff('body', core.text, devnet.text);
      return out;
    }
    const before = out.length;
    this.walk(c, d, 'body', null, strict, diff);
    if (out.length === before) {
      // Same values: the raw text must be the same too (layout, number tokens, escapes, newline).
      const wholeTokens = strict
        ? devnet.text
        : devnet.text.replace(/"(hdmasterfingerprint|master_fingerprint)":"([^"]*)"/g, (all, k: string, v: string) => {
            const c = this.map.coreOf(v);
            return c === undefined ? all : `"${k}":"${c}"`;
          });
      const [ct, dt] = this.strings(core.text, wholeTokens, strict, null);
      if (ct !== dt) {
        let i = 0;
        while (i < ct.length && ct[i] === dt[i]) i++;
        diff('layout', `…${JSON.stringify(ct.slice(Math.max(0, i - 40), i + 40))}`, `…${JSON.stringify(dt.slice(Math.max(0, i - 40), i + 40))}`);
      }
    }
    return out;
  }

  /** Both strings with tokens written in Core's terms (bound one to one) and datadirs as `<datadir>`. */
  private strings(c: string, d: string, strict: boolean, key: string | null): [string, string, string | null] {
    c = this.datadirs.core ? c.split(this.datadirs.core).join('<datadir>') : c;
    d = this.datadirs.devnet ? d.split(this.datadirs.devnet).join('<datadir>') : d;
    if (strict || (key !== null && EXACT_KEYS.has(key))) return [c, d, null];
    if (key !== null && WHOLE_TOKEN_KEYS.has(key)) {
      const conflict = this.map.bind(c, d);
      return conflict ? [c, d, conflict] : [c, c, null];
    }
    const ct = [...c.matchAll(TOKEN)];
    const dt = [...d.matchAll(TOKEN)];
    if (ct.length !== dt.length) return [c, d, null];
    // The text between tokens must match before tokens are bound.
    const lits = (s: string, ts: RegExpMatchArray[]): string[] => {
      const parts: string[] = [];
      let at = 0;
      for (const t of ts) {
        parts.push(s.slice(at, t.index));
        at = t.index! + t[0].length;
      }
      parts.push(s.slice(at));
      return parts;
    };
    const cl = lits(c, ct);
    const dl = lits(d, dt);
    if (cl.some((l, i) => l !== dl[i])) return [c, d, null];
    for (let i = 0; i < ct.length; i++) {
      const conflict = this.map.bind(ct[i]![0], dt[i]![0]);
      if (conflict) return [c, d, conflict];
    }
    return [c, c, null];
  }

  private walk(c: UValue, d: UValue, path: string, key: string | null, strict: boolean, diff: (p: string, c: string, d: string) => void): void {
    if (c.t !== d.t) {
      diff(path, `${c.t} ${brief(c)}`, `${d.t} ${brief(d)}`);
      return;
    }
    switch (c.t) {
      case 'null':
        return;
      case 'bool':
      case 'num':
        if (c.v !== (d as typeof c).v) diff(path, String(c.v), String((d as typeof c).v));
        return;
      case 'str': {
        const [cs, ds, conflict] = this.strings(c.v, (d as typeof c).v, strict, key);
        if (conflict) diff(path, `${c.v} (${conflict})`, (d as typeof c).v);
        else if (cs !== ds) diff(path, c.v, (d as typeof c).v);
        return;
      }
      case 'arr': {
        const dv = (d as typeof c).v;
        if (c.v.length !== dv.length) diff(`${path}.length`, String(c.v.length), String(dv.length));
        for (let i = 0; i < Math.min(c.v.length, dv.length); i++) this.walk(c.v[i]!, dv[i]!, `${path}[${i}]`, key, strict, diff);
        return;
      }
      case 'obj': {
        const dd = d as typeof c;
        const ck = c.k.map((k, i) => this.strings(k, dd.k[i] ?? '', strict, null)[0]);
        const dk = dd.k.map((k, i) => {
          const [, ds] = this.strings(c.k[i] ?? '', k, strict, null);
          return ds;
        });
        if (ck.join('\u0000') !== dk.join('\u0000')) {
          const missing = ck.filter((k) => !dk.includes(k));
          const extra = dk.filter((k) => !ck.includes(k));
          diff(
            `${path}{keys}`,
            `${ck.join(',')}${missing.length ? ` (devnet lacks ${missing.join(',')})` : ''}`,
            `${dk.join(',')}${extra.length ? ` (Core has no ${extra.join(',')})` : ''}`,
          );
        }
        for (let i = 0; i < c.k.length; i++) {
          const j = dk.indexOf(ck[i]!);
          if (j < 0) continue;
          this.walk(c.v[i]!, dd.v[j]!, `${path}.${c.k[i]}`, c.k[i]!, strict, diff);
        }
        return;
      }
    }
  }
}

function brief(u: UValue): string {
  switch (u.t) {
    case 'null':
      return 'null';
    case 'arr':
      return `[${u.v.length}]`;
    case 'obj':
      return `{${u.k.join(',')}}`;
    default:
      return JSON.stringify(u.v);
  }
}
