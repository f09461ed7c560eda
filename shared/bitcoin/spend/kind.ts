/**
 * Which InputKind a coin is, from what the node tells about it: the output descriptor of
 * listunspent's `desc` (or getaddressinfo's), or the scriptPubKey with the redeemScript /
 * witnessScript listunspent prints. A coin whose spending size cannot be known (a bare script, a
 * taproot script tree, a p2sh or p2wsh without its script) is refused rather than guessed: an
 * estimate below the signed size would make the fee rate lower than the one asked for.
 */
import { solver } from '../script';
import { SpendError } from './errors';
import { validateInputKind, type InputKind } from './size';

function multisigOf(script: Uint8Array): { m: number; n: number; uncompressed: number } | null {
  const s = solver(script);
  if (s.type !== 'multisig') return null;
  const keys = s.solutions.slice(1, -1);
  return { m: s.solutions[0]![0]!, n: keys.length, uncompressed: keys.filter((k) => k.length === 65).length };
}

function unsupported(what: string): SpendError {
  return new SpendError('spend.unsupported_input', `Cannot estimate the size of spending ${what}`, { what });
}

/**
 * From the scripts. `assumeCompressed`: a bare p2pkh scriptPubKey does not tell the key's size;
 * with true (the default) a compressed key is assumed, as every wallet since 2012 uses.
 */
export function inputKindFromScripts(
  scriptPubKey: Uint8Array,
  scripts: { redeemScript?: Uint8Array | undefined; witnessScript?: Uint8Array | undefined } = {},
): InputKind {
  const top = solver(scriptPubKey);
  switch (top.type) {
    case 'pubkeyhash':
      return { type: 'p2pkh' };
    case 'witness_v0_keyhash':
      return { type: 'p2wpkh' };
    case 'witness_v1_taproot':
      return { type: 'p2tr' };
    case 'witness_v0_scripthash': {
      const ms = scripts.witnessScript && multisigOf(scripts.witnessScript);
      if (!ms) throw unsupported(scripts.witnessScript ? 'a p2wsh script that is not multisig' : 'a p2wsh output without its witnessScript');
      const k: InputKind = { type: 'p2wsh-multi', m: ms.m, n: ms.n };
      validateInputKind(k);
      return k;
    }
    case 'scripthash': {
      const rs = scripts.redeemScript;
      if (!rs) throw unsupported('a p2sh output without its redeemScript');
      const inner = solver(rs);
      if (inner.type === 'witness_v0_keyhash') return { type: 'p2sh-p2wpkh' };
      if (inner.type === 'witness_v0_scripthash') {
        const ms = scripts.witnessScript && multisigOf(scripts.witnessScript);
        if (!ms) throw unsupported(scripts.witnessScript ? 'a p2sh-p2wsh script that is not multisig' : 'a p2sh-p2wsh output without its witnessScript');
        const k: InputKind = { type: 'p2sh-p2wsh-multi', m: ms.m, n: ms.n };
        validateInputKind(k);
        return k;
      }
      const ms = multisigOf(rs);
      if (!ms) throw unsupported('a p2sh script that is not multisig or p2wpkh');
      const k: InputKind = { type: 'p2sh-multi', m: ms.m, n: ms.n, uncompressed: ms.uncompressed };
      validateInputKind(k);
      return k;
    }
    default:
      throw unsupported(`a ${top.type} output`);
  }
}

/** Splits "a,b(c,d),e" at the commas of depth 0. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '{' || c === '[') depth++;
    else if (c === ')' || c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

/** "name(args)" → [name, args], or null. */
function call(s: string): [string, string] | null {
  const m = /^([a-z_]+)\((.*)\)$/s.exec(s);
  return m ? [m[1]!, m[2]!] : null;
}

/** A key expression is uncompressed when it is a 130-hex-digit key starting 04 (after any [origin]). */
function isUncompressedKey(key: string): boolean {
  const bare = key.replace(/^\[[^\]]*\]/, '');
  return /^04[0-9a-fA-F]{128}$/.test(bare);
}

function multiOf(expr: string, ctx: string): { m: number; n: number; uncompressed: number } {
  const c = call(expr);
  if (!c || (c[0] !== 'multi' && c[0] !== 'sortedmulti')) throw unsupported(`${ctx}(${c ? `${c[0]}(…)` : expr}) (only multi and sortedmulti are supported inside ${ctx})`);
  const args = splitTop(c[1]);
  const m = Number(args[0]);
  const keys = args.slice(1);
  return { m, n: keys.length, uncompressed: keys.filter(isUncompressedKey).length };
}

/**
 * From an output descriptor: pkh(K), wpkh(K), sh(wpkh(K)), tr(K) (key path only), wsh(multi|sortedmulti),
 * sh(multi|sortedmulti), sh(wsh(multi|sortedmulti)); addr(A) and raw(H) through their script when it
 * is p2pkh, p2wpkh or p2tr (`scriptPubKey` given). A checksum, if any, is not checked here.
 */
export function inputKindFromDescriptor(descriptor: string, scriptPubKey?: Uint8Array): InputKind {
  const text = descriptor.trim().replace(/#[a-z0-9]{8}$/, '');
  const top = call(text);
  if (!top) throw unsupported(`the descriptor "${descriptor}"`);
  const [fn, args] = top;
  let k: InputKind;
  switch (fn) {
    case 'pkh':
      return { type: 'p2pkh', uncompressed: isUncompressedKey(args) };
    case 'wpkh':
      return { type: 'p2wpkh' };
    case 'tr':
      if (splitTop(args).length > 1) throw unsupported('a taproot output with a script tree (only the key path is supported)');
      return { type: 'p2tr' };
    case 'wsh': {
      const ms = multiOf(args, 'wsh');
      k = { type: 'p2wsh-multi', m: ms.m, n: ms.n };
      break;
    }
    case 'sh': {
      const inner = call(args);
      if (inner && inner[0] === 'wpkh') return { type: 'p2sh-p2wpkh' };
      if (inner && inner[0] === 'wsh') {
        const ms = multiOf(inner[1], 'sh(wsh');
        k = { type: 'p2sh-p2wsh-multi', m: ms.m, n: ms.n };
      } else {
        const ms = multiOf(args, 'sh');
        k = { type: 'p2sh-multi', m: ms.m, n: ms.n, uncompressed: ms.uncompressed };
      }
      break;
    }
    case 'addr':
    case 'raw': {
      if (!scriptPubKey) throw unsupported(`an ${fn}() coin without its scriptPubKey`);
      const t = solver(scriptPubKey).type;
      if (t === 'pubkeyhash' || t === 'witness_v0_keyhash' || t === 'witness_v1_taproot') return inputKindFromScripts(scriptPubKey);
      throw unsupported(`an ${fn}() coin of type ${t} (its script is unknown to the wallet)`);
    }
    default:
      throw unsupported(`a ${fn}() descriptor`);
  }
  validateInputKind(k);
  return k;
}
