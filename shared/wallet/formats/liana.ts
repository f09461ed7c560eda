/**
 * Liana's wallet backup (the JSON file "Back up descriptor" / the installer's backup writes), as Liana
 * defines and reads it: wizardsardine/liana liana-gui/src/backup.rs (struct Backup / Account, serde):
 *
 *   { "name"?: "…", "accounts": [ { "name"?, "descriptor": "wsh(or_d(pk([fp/48'/1'/0'/2']tpub…/<0;1>/*),
 *       and_v(v:pkh([fp/…]tpub…/<2;3>/*),older(52596))))#x6u6lmej", "timestamp"?: <UNIX time>,
 *       "receive_index"?, "change_index"?, "keys"?: { "<fp>": { "key", "alias"?, "role"? } },
 *       "labels"?, "transactions"?, "psbts"?, "coins"?, "chain_tip"?, "proprietary"? } ],
 *     "network": "bitcoin" | "testnet" | "testnet4" | "signet" | "regtest", "date"?: <UNIX time>,
 *     "proprietary"?: {…}, "version"?: 0 }
 *
 * "network" is the one mandatory field (rust-bitcoin's Network names). Liana restores exactly one
 * account (Backup::account: "Backup: Zero or several wallets" otherwise). The account's descriptor is a
 * BIP389 multipath miniscript descriptor; it goes through the same descriptor import as pasted text, so
 * what Bitcoin Core would refuse is refused in Core's words (its checksum, its parser). The account's
 * key aliases name the keys; its timestamp is the wallet's birthday (the rescan start).
 */
import type { Network } from '../../bitcoin/networks';
import { chainName } from '../../watchlist';
import { importDescriptors } from '../descriptors';
import type { JsonObject } from '../json-input';
import { WalletImportError, type WalletDescription } from '../types';

/** rust-bitcoin's serde names of the networks, as Liana writes them. */
const LIANA_NETWORKS: Record<string, Network['chain']> = { bitcoin: 'main', testnet: 'test', testnet4: 'testnet4', signet: 'signet', regtest: 'regtest' };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A Liana backup: "accounts" (objects with a descriptor) and one of Liana's network names. */
export function looksLikeLiana(o: unknown): boolean {
  return isObject(o) && Array.isArray(o['accounts']) && typeof o['network'] === 'string' && o['network'] in LIANA_NETWORKS && (o['accounts'] as unknown[]).every((a) => isObject(a) && typeof a['descriptor'] === 'string');
}

export function importLiana(o: JsonObject, network: Network): WalletDescription {
  const net = o['network'];
  if (typeof net !== 'string' || !(net in LIANA_NETWORKS)) {
    throw new WalletImportError('invalid', 'network', `A Liana backup names its network (${Object.keys(LIANA_NETWORKS).join(', ')}); this one says ${JSON.stringify(net)?.slice(0, 30) ?? 'nothing'}.`);
  }
  const chain = LIANA_NETWORKS[net]!;
  if (chain !== network.chain) {
    throw new WalletImportError('network', 'network', `This Liana backup is of a wallet on ${chainName({ chain } as Network)}, but your node is on ${chainName(network)}.`);
  }
  const accounts = Array.isArray(o['accounts']) ? (o['accounts'] as unknown[]) : [];
  if (accounts.length !== 1) {
    throw new WalletImportError('invalid', 'accounts', `A Liana backup restores one wallet; this one has ${accounts.length === 0 ? 'none' : accounts.length} (Liana itself refuses it: “Backup: Zero or several wallets”).`);
  }
  const account = accounts[0];
  if (!isObject(account) || typeof account['descriptor'] !== 'string') throw new WalletImportError('invalid', 'accounts[0].descriptor', 'The backup’s wallet has no descriptor.');
  const name = [account['name'], o['name']].find((x): x is string => typeof x === 'string' && x.trim() !== '')?.trim();
  const timestamp = account['timestamp'];
  const wallet = importDescriptors([{ text: account['descriptor'], field: 'accounts[0].descriptor' }], network, {
    ...(name ? { name } : {}),
    format: 'liana',
    ...(typeof timestamp === 'number' && Number.isInteger(timestamp) && timestamp > 0 ? { birthday: { kind: 'time' as const, time: timestamp } } : {}),
  });
  const aliases = isObject(account['keys']) ? account['keys'] : {};
  wallet.keys = wallet.keys.map((k) => {
    const entry = k.fingerprint ? aliases[k.fingerprint] : undefined;
    const alias = isObject(entry) && typeof entry['alias'] === 'string' ? entry['alias'].trim().slice(0, 100) : '';
    return alias ? { ...k, label: alias } : k;
  });
  if (name) wallet.givenName = name;
  return wallet;
}
