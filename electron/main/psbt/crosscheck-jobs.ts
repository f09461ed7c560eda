// The PSBT cross-check's two halves in the PSBT worker (jobs.ts's neighbour): the form of a PSBT the
// node reads with Core's offline decode of it, and the differences between that decode and the node's.
import { base64 } from '@scure/base';
import { MAINNET, NETWORKS, type Network } from '../../../shared/bitcoin/networks';
import { convertPsbtBytes, decodePsbtJson, parsePsbtForReview, type CoreVersion, type PsbtEncoding } from '../../../shared/bitcoin/psbt';
import type { PsbtDifference } from '../../../shared/ipc/contract';
import { readPsbtText } from './jobs';

const MAX_DIFFERENCES = 200;
const MAX_VALUE_TEXT = 1000;

/** What the node is to be asked (`decodepsbt` of `base64`) and the offline decode to compare with. */
export interface CrosscheckPrepared {
  /** The form sent to the node: a node without version 2 gets the version 0 form. */
  base64: string;
  asked: { version: 0 | 2; converted: boolean };
  offline: { ok: true; json: string } | { ok: false; message: string };
  /** A version 2 PSBT with no version 0 form, for a node that reads only version 0: why. */
  noV0Form: string | null;
}

/** The cross-check's offline half: the form the node reads, and Core's decode of it with that node's rules. */
export function crosscheckPrepare(req: { text: string; encoding: PsbtEncoding; chain: string; nodeCoreVersion: CoreVersion }): CrosscheckPrepared {
  const input = readPsbtText(req.text, req.encoding);
  const net = NETWORKS[req.chain as Network['chain']] ?? MAINNET;
  let b64 = input.b64;
  let asked: CrosscheckPrepared['asked'] = { version: 0, converted: false };
  const parsed = parsePsbtForReview(input.bytes);
  if (parsed.ok && parsed.psbt.version === 2) {
    asked = { version: 2, converted: false };
    if (req.nodeCoreVersion === 30) {
      const v0 = convertPsbtBytes(input.bytes, 0);
      if (!v0.ok) return { base64: b64, asked, offline: { ok: false, message: v0.message }, noV0Form: v0.message };
      b64 = base64.encode(v0.bytes);
      asked = { version: 0, converted: true };
    }
  }
  const offline = decodePsbtJson(b64, net, { coreVersion: req.nodeCoreVersion });
  return { base64: b64, asked, offline: offline.ok ? { ok: true, json: offline.json } : { ok: false, message: offline.message }, noV0Form: null };
}

// ——— the cross-check's tree walk ———

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function jsonText(x: unknown): string | null {
  if (x === undefined) return null;
  const t = JSON.stringify(x);
  return t.length > MAX_VALUE_TEXT ? `${t.slice(0, MAX_VALUE_TEXT)}…` : t;
}

function childPath(path: string, key: string): string {
  const k = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  return k.startsWith('[') ? `${path}${k}` : path === '' ? k : `${path}.${k}`;
}

/** Walks both parsed JSON trees; differences by value (numbers compare as parsed numbers). */
export function diffJson(offline: unknown, node: unknown, path = '', out: PsbtDifference[] = [], limit = MAX_DIFFERENCES): { differences: PsbtDifference[]; truncated: boolean } {
  let truncated = false;
  const push = (d: PsbtDifference): void => {
    if (out.length < limit) out.push(d);
    else truncated = true;
  };
  const walk = (a: unknown, b: unknown, p: string): void => {
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) walk(a[i], b[i], `${p}[${i}]`);
      return;
    }
    if (isPlainObject(a) && isPlainObject(b)) {
      const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.prototype.hasOwnProperty.call(a, k))];
      for (const k of keys) walk(a[k], b[k], childPath(p, k));
      return;
    }
    if (a === b) return;
    push({ path: p, offline: jsonText(a), node: jsonText(b) });
  };
  walk(offline, node, path);
  return { differences: out, truncated };
}

/** The offline decode (JSON text) against the node's parsed decodepsbt result. */
export function crosscheckDiff(offlineJson: string, nodeResult: unknown): { differences: PsbtDifference[]; truncated: boolean } {
  return diffJson(JSON.parse(offlineJson) as unknown, nodeResult);
}
