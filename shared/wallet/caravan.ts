/**
 * Caravan's wallet configuration JSON (caravan-bitcoin / Unchained; Sparrow writes the same):
 *
 *   { "name": "…", "addressType": "P2WSH" | "P2SH-P2WSH" | "P2SH", "network": "mainnet" | "testnet" |
 *     "regtest" | "signet", "quorum": { "requiredSigners": 2, "totalSigners": 3 },
 *     "extendedPublicKeys": [ { "name": "…", "xpub": "…", "bip32Path": "m/48'/0'/0'/2'" | "Unknown",
 *     "xfp": "1a2b3c4d", "method": "…" }, … ], "startingAddressIndex": 0, "client": {…} }
 *
 * Caravan sorts the keys of every address (BIP67) and derives receive addresses at /0/i, change
 * at /1/i below each xpub: wsh(sortedmulti(m, xpub/0/*, …)).
 */
import type { Network } from '../bitcoin/networks';
import { parseFingerprint, parsePath } from './keys';
import { jsonObject, optionalString, requiredString, type JsonObject } from './json-input';
import { finishWallet, type DraftKey } from './wallet';
import { parseKeyField } from './xpub';
import { WalletImportError, type ScriptType, type WalletDescription } from './types';
import { chainName } from '../watchlist';

const ADDRESS_TYPES: Record<string, ScriptType> = {
  P2SH: 'p2sh',
  'P2SH-P2WSH': 'p2sh-p2wsh',
  P2SH_P2WSH: 'p2sh-p2wsh',
  'P2WSH-P2SH': 'p2sh-p2wsh',
  P2WSH: 'p2wsh',
};

const NETWORKS: Record<string, Network['chain'][]> = {
  mainnet: ['main'],
  testnet: ['test', 'testnet4', 'signet', 'regtest'],
  signet: ['signet', 'test', 'testnet4', 'regtest'],
  regtest: ['regtest', 'test', 'testnet4', 'signet'],
};

/** Caravan's file? (shape only: the detector's test.) */
export function looksLikeCaravan(o: unknown): boolean {
  return typeof o === 'object' && o !== null && Array.isArray((o as JsonObject)['extendedPublicKeys']) && typeof (o as JsonObject)['quorum'] === 'object';
}

function integer(o: JsonObject, key: string, field: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new WalletImportError('invalid', field, `${field} must be a whole number.`);
  return v;
}

export function importCaravan(text: string, network: Network): WalletDescription {
  const o = jsonObject(text, 'Caravan wallet configuration');
  const warnings: string[] = [];
  const typeText = requiredString(o, 'addressType', 'addressType');
  const scriptType = ADDRESS_TYPES[typeText.toUpperCase()];
  if (!scriptType) {
    throw new WalletImportError('script-type', 'addressType', `Unknown address type '${typeText}' (Caravan's are P2SH, P2SH-P2WSH and P2WSH).`);
  }
  const netText = optionalString(o, 'network', 'network');
  if (netText !== undefined) {
    const allowed = NETWORKS[netText.toLowerCase()];
    if (!allowed) throw new WalletImportError('invalid', 'network', `Unknown network '${netText}' (Caravan's are mainnet, testnet, regtest and signet).`);
    if (!allowed.includes(network.chain)) {
      throw new WalletImportError('network', 'network', `This wallet is for ${netText}, but the node runs ${chainName(network)}.`);
    }
    if (allowed[0] !== network.chain) {
      warnings.push(`The file says ${netText}; its keys are used on ${chainName(network)} here (test networks share key versions).`);
    }
  }
  const quorum = o['quorum'];
  if (typeof quorum !== 'object' || quorum === null || Array.isArray(quorum)) {
    throw new WalletImportError('invalid', 'quorum', 'quorum must be an object with requiredSigners and totalSigners.');
  }
  const q = quorum as JsonObject;
  const m = integer(q, 'requiredSigners', 'quorum.requiredSigners');
  const n = integer(q, 'totalSigners', 'quorum.totalSigners');
  const list = o['extendedPublicKeys'];
  if (!Array.isArray(list)) throw new WalletImportError('invalid', 'extendedPublicKeys', 'extendedPublicKeys must be a list.');
  const keys: DraftKey[] = list.map((entry, i) => {
    const field = `extendedPublicKeys[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new WalletImportError('invalid', field, `${field} must be an object.`);
    const e = entry as JsonObject;
    const parsed = parseKeyField(requiredString(e, 'xpub', `${field}.xpub`), `${field}.xpub`);
    const pathText = optionalString(e, 'bip32Path', `${field}.bip32Path`);
    const xfpText = optionalString(e, 'xfp', `${field}.xfp`);
    const path = pathText === undefined || pathText.trim() === '' || pathText.toLowerCase() === 'unknown' ? (parsed.path ?? null) : parsePath(pathText, `${field}.bip32Path`);
    const fingerprint = xfpText === undefined || xfpText.trim() === '' ? (parsed.fingerprint ?? null) : parseFingerprint(xfpText, `${field}.xfp`);
    const label = optionalString(e, 'name', `${field}.name`);
    return { ext: parsed.ext, fingerprint, path, field, ...(label ? { label } : {}) };
  });
  const start = o['startingAddressIndex'];
  if (typeof start === 'number' && start > 0) {
    warnings.push(`Caravan started this wallet at address ${start}; Spyglass watches from address 0 (the earlier ones are the same wallet's).`);
  }
  return finishWallet({
    name: optionalString(o, 'name', 'name')?.trim() ?? '', // '': importWallet names it
    format: 'caravan',
    network,
    scriptType,
    threshold: m,
    thresholdField: 'quorum.requiredSigners',
    announcedKeys: { n, field: 'quorum.totalSigners' },
    sorted: true,
    keys,
    fillOrigins: true,
    warnings,
  });
}
