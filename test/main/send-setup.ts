/**
 * Wallets for the Send tests, made over RPC on any node (the devnet, or real Bitcoin Core): a key
 * wallet `hot` and a blank watch-only wallet importing its public descriptors (single-sig of every
 * type, funded at one address each), three cosigner key wallets and a blank watch-only 2-of-3
 * `wsh(sortedmulti)` vault of their keys (external and change descriptors), funded. The signers'
 * master keys come from the key wallets' own `listdescriptors true`.
 */
import type { HDKey } from '@scure/bip32';
import type { PayerNode } from '../support/payer-node';
import type { TestRpc } from '../support/rpc';
import { masters, REGTEST_VERSIONS, xprvsOf } from '../support/signer';

/** A node with a wallet that pays and mines, and its index (test/support/payer-node.ts starts them). */
export type SendNode = PayerNode;

export interface SendWallets {
  watch: string;
  vault: string;
  hotKeys: HDKey[];
  cosigners: HDKey[][];
  /** Cosigners' key fingerprints (hex), in order. */
  cosignerFps: string[];
  /** The watched addresses funded, by Core address type. */
  funded: Record<'legacy' | 'p2sh-segwit' | 'bech32' | 'bech32m', string>;
  vaultAddress: string;
}

type Listed = { descriptors: Array<{ desc: string; active: boolean; internal?: boolean; range?: [number, number]; next_index?: number; next?: number }> };

async function keysOf(rpc: TestRpc, wallet: string): Promise<HDKey[]> {
  const listed = await rpc.call<Listed>('listdescriptors', [true], wallet);
  return masters(xprvsOf(listed.descriptors), REGTEST_VERSIONS);
}

async function withChecksum(rpc: TestRpc, desc: string): Promise<string> {
  const info = await rpc.call<{ checksum: string }>('getdescriptorinfo', [desc]);
  return `${desc}#${info.checksum}`;
}

export async function makeSendWallets(n: SendNode, suffix: string): Promise<SendWallets> {
  const { rpc } = n;
  const hot = `hot-${suffix}`;
  const watch = `watch-${suffix}`;
  await rpc.call('createwallet', [hot]);
  await rpc.call('createwallet', [watch, true, true, '', false, true, true]);
  const pub = await rpc.call<Listed>('listdescriptors', [], hot);
  const imported = await rpc.call<Array<{ success: boolean; error?: { message: string } }>>(
    'importdescriptors',
    [pub.descriptors.map((d) => ({ desc: d.desc, active: d.active, internal: d.internal ?? false, range: d.range, timestamp: 'now', next_index: 0 }))],
    watch,
  );
  if (!imported.every((r) => r.success)) throw new Error(`importdescriptors: ${JSON.stringify(imported)}`);

  const funded = {} as SendWallets['funded'];
  for (const type of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m'] as const) {
    funded[type] = await rpc.call<string>('getnewaddress', [`${type} coin`, type], watch);
    await rpc.call('sendtoaddress', [funded[type], 1], n.payer);
  }

  // the vault: three cosigners' BIP84-account keys in a 2-of-3 wsh(sortedmulti), receive and change
  const cosigners: HDKey[][] = [];
  const keyExprs: string[] = [];
  for (const c of ['c1', 'c2', 'c3']) {
    const name = `${c}-${suffix}`;
    await rpc.call('createwallet', [name]);
    cosigners.push(await keysOf(rpc, name));
    const listed = await rpc.call<Listed>('listdescriptors', [], name);
    const wpkh = listed.descriptors.find((d) => d.active && !d.internal && d.desc.startsWith('wpkh('))!;
    keyExprs.push(/^wpkh\((\[[^\]]+\][a-zA-Z0-9]+)\/0\/\*\)/.exec(wpkh.desc)![1]!);
  }
  const vault = `vault-${suffix}`;
  await rpc.call('createwallet', [vault, true, true, '', false, true, true]);
  const branch = (b: number) => `wsh(sortedmulti(2,${keyExprs.map((k) => `${k}/${b}/*`).join(',')}))`;
  const vaultImport = await rpc.call<Array<{ success: boolean }>>(
    'importdescriptors',
    [[
      { desc: await withChecksum(rpc, branch(0)), active: true, internal: false, range: [0, 100], timestamp: 'now', next_index: 0 },
      { desc: await withChecksum(rpc, branch(1)), active: true, internal: true, range: [0, 100], timestamp: 'now', next_index: 0 },
    ]],
    vault,
  );
  if (!vaultImport.every((r) => r.success)) throw new Error(`vault importdescriptors: ${JSON.stringify(vaultImport)}`);
  // deriveaddresses (not getnewaddress): the same addresses on every node, whatever hands out wsh ones
  const [vaultAddress, second] = await rpc.call<[string, string]>('deriveaddresses', [await withChecksum(rpc, branch(0)), [0, 1]]);
  await rpc.call('sendtoaddress', [vaultAddress, 2], n.payer);
  await rpc.call('sendtoaddress', [second, 0.7], n.payer);
  await n.mine(1);
  return {
    watch,
    vault,
    hotKeys: await keysOf(rpc, hot),
    cosigners,
    cosignerFps: keyExprs.map((k) => k.slice(1, 9)),
    funded,
    vaultAddress,
  };
}
