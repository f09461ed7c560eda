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
 *   never normalised. A block `nonce` is not compared in these steps: it is what grinding that
 *   block's header (whose merkle root commits to such txids) happened to need.
 * - the datadir path in messages (`<datadir>`): Core names its wallet files by their full path.
 * - the order of arrays a step declares unordered (`unordered` paths): Core lists wallet coins
 *   (listunspent) and received-by rows with their txids (listreceivedbyaddress) in the order of a
 *   salted hash map or of key bytes, and descriptors (listdescriptors) sorted by their text — orders
 *   that differ between two runs of Core itself. Such arrays are matched element by element (same
 *   values, tokens bound one to one) in any order; the sort rules that do not depend on keys are
 *   checked by the step itself.
 * Strict steps (the chain both nodes build from the same fixed key and clock) normalise nothing.
 */
import { parseJson, toPlain, type UValue } from '../../../shared/json';

const toPlainText = (u: UValue): unknown => toPlain(u);

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

  snapshot(): [Map<string, string>, Map<string, string>] {
    return [new Map(this.c2d), new Map(this.d2c)];
  }

  restore([c2d, d2c]: [Map<string, string>, Map<string, string>]): void {
    this.c2d.clear();
    this.d2c.clear();
    for (const [k, v] of c2d) this.c2d.set(k, v);
    for (const [k, v] of d2c) this.d2c.set(k, v);
  }

  /** The Core token bound to a devnet token. */
  coreOf(d: string): string | undefined {
    return this.d2c.get(d);
  }
}

const short = (s: string): string => (s.length > 24 ? `${s.slice(0, 10)}…${s.slice(-8)}` : s);

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
const WHOLE_TOKEN_KEYS = new Set(['hdmasterfingerprint', 'master_fingerprint', 'checksum']);
const EXACT_KEYS = new Set(['chainwork', 'target']);
/** Numbers that follow from a header holding key-derived txids: the nonce it was ground with. */
const HEADER_DERIVED_KEYS = new Set(['nonce']);

export interface CompareOptions {
  strict: boolean;
  /** Datadir paths to write as `<datadir>` (Core's, the devnet's). */
  datadirs: { core: string | null; devnet: string | null };
}

export class ReplyComparer {
  readonly map = new Correspondence();
  private unordered: ReadonlySet<string> = new Set();
  constructor(private readonly datadirs: CompareOptions['datadirs']) {}

  compare(step: string, method: string, core: Reply, devnet: Reply, strict: boolean, unordered: ReadonlySet<string> = new Set()): Difference[] {
    this.unordered = unordered;
    const out: Difference[] = [];
    const diff = (path: string, c: string, d: string): void => {
      out.push({ step, method, path, core: c, devnet: d });
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
    if (out.length === before && this.unordered.size === 0) {
      // Same values: the raw text must be the same too (layout, number tokens, escapes, newline).
      const wholeTokens = strict
        ? devnet.text
        : devnet.text.replace(new RegExp(`"(${[...WHOLE_TOKEN_KEYS].join('|')})":"([^"]*)"`, 'g'), (all, k: string, v: string) => {
            const c = this.map.coreOf(v);
            return c === undefined ? all : `"${k}":"${c}"`;
          });
      const nonce = (t: string): string => (strict ? t : t.replace(/"nonce":[0-9]+/g, '"nonce":_'));
      const [ct, dt] = this.strings(nonce(core.text), nonce(wholeTokens), strict, null);
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

  /**
   * An unordered array: each Core element is paired with the first unpaired devnet element it equals
   * under the bindings made so far plus its own (tried on a copy, kept on success); what stays
   * unpaired is a difference.
   */
  private matchUnordered(cv: UValue[], dv: UValue[], path: string, key: string | null, strict: boolean, diff: (p: string, c: string, d: string) => void): void {
    const free = dv.map((_, i) => i);
    const unpaired: number[] = [];
    // Identical elements pair first: a token both nodes share (a txid of the chain both built the
    // same way) is itself, and must not be bound to another one just because that one is still free.
    const text = (u: UValue): string => JSON.stringify(toPlainText(u));
    const dText = dv.map(text);
    const exact = new Map<number, number>();
    cv.forEach((c, i) => {
      const t = text(c);
      const j = free.find((k) => dText[k] === t && ![...exact.values()].includes(k));
      if (j !== undefined) exact.set(i, j);
    });
    for (const [i, j] of exact) {
      free.splice(free.indexOf(j), 1);
      this.walk(cv[i]!, dv[j]!, `${path}[${i}]`, key, strict, diff);
    }
    for (let i = 0; i < cv.length; i++) {
      if (exact.has(i)) continue;
      let paired = false;
      for (const j of free) {
        const saved = this.map.snapshot();
        let differs = false;
        this.walk(cv[i]!, dv[j]!, `${path}[${i}]`, key, strict, () => (differs = true));
        if (!differs) {
          free.splice(free.indexOf(j), 1);
          paired = true;
          break;
        }
        this.map.restore(saved);
      }
      if (!paired) unpaired.push(i);
    }
    // What stays unpaired is compared, field by field, with the devnet element it differs least from.
    for (const i of unpaired) {
      let best: { j: number; n: number } | null = null;
      for (const j of free) {
        const saved = this.map.snapshot();
        let n = 0;
        this.walk(cv[i]!, dv[j]!, `${path}[${i}]`, key, strict, () => void n++);
        this.map.restore(saved);
        if (best === null || n < best.n) best = { j, n };
      }
      if (best === null) {
        diff(`${path}[${i}]`, `${JSON.stringify(toPlainText(cv[i]!)).slice(0, 300)}`, '(no element left)');
        continue;
      }
      free.splice(free.indexOf(best.j), 1);
      this.walk(cv[i]!, dv[best.j]!, `${path}[${i}~devnet ${best.j}]`, key, strict, diff);
    }
    for (const j of free) diff(`${path}[devnet ${j}]`, '(no element left)', `${JSON.stringify(toPlainText(dv[j]!)).slice(0, 300)}`);
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
        if (!strict && key !== null && HEADER_DERIVED_KEYS.has(key)) return;
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
        if (this.unordered.has(path.replace(/\[[0-9]+\]/g, '[]'))) {
          this.matchUnordered(c.v, dv, path, key, strict, diff);
          return;
        }
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
