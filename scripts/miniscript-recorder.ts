/**
 * What the miniscript recorders (record-miniscript-fill/-finalize/-preimages.ts) share: a private
 * regtest node of the Core build in BITCOIND with a miner wallet holding spendable coins, one coin
 * paid to an address of a watch-only wallet (seen by that wallet before the recorder goes on), and
 * the recording written to test/fixtures/miniscript/<name>-core-<generation>.jsonl.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBitcoind } from '../test/support/bitcoind';
import type { TestRpc } from '../test/support/rpc';

export interface RecorderNode {
  rpc: TestRpc;
  /** Core's version (e.g. 31.99.0). */
  version: string;
  /** An address of the miner wallet (101 blocks mined to it). */
  minerAddr: string;
}

/** Runs `record` on a fresh node and writes the lines it returns as `<name>-core-<generation>.jsonl` (`what`: for the closing line). */
export async function recordOnCore(name: string, what: string, record: (n: RecorderNode) => Promise<string[]>): Promise<void> {
  const node = await startBitcoind({});
  try {
    const rpc = node.rpc;
    const net = await rpc.call<{ subversion: string }>('getnetworkinfo');
    const version = /Satoshi:([0-9.]+)/.exec(net.subversion)![1]!;
    await rpc.call('createwallet', ['miner']);
    const minerAddr = await rpc.call<string>('getnewaddress', [], 'miner');
    await rpc.call('generatetoaddress', [101, minerAddr]);
    const lines = await record({ rpc, version, minerAddr });
    const dir = join(import.meta.dirname, '..', 'test', 'fixtures', 'miniscript');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}-core-${version.split('.').slice(0, 2).join('.')}.jsonl`), lines.join('\n') + '\n');
    console.log(`wrote ${lines.length} ${what} from Core ${version}`);
  } finally {
    await node.stop();
  }
}

/** The miner pays 1 BTC to `addr`: the coin's outpoint and its transaction's hex, once the wallets have seen it. */
export async function payOneCoin(rpc: TestRpc, addr: string): Promise<{ txid: string; vout: number; hex: string }> {
  const txid = await rpc.call<string>('sendtoaddress', [addr, 1], 'miner');
  const hex = await rpc.call<string>('getrawtransaction', [txid]);
  const tx = await rpc.call<{ vout: { n: number; scriptPubKey: { address?: string } }[] }>('decoderawtransaction', [hex]);
  const vout = tx.vout.find((o) => o.scriptPubKey.address === addr)!.n;
  // the watch-only wallet learns of the payment asynchronously; wait for it
  await rpc.call('syncwithvalidationinterfacequeue');
  return { txid, vout, hex };
}
