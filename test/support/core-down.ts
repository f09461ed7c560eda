/**
 * Real Bitcoin Core going down and coming back, for the "node down" cases the devnet fakes with RPC
 * faults: down is Core's own `stop` RPC and the process gone (its datadir stays); up is bitcoind
 * started again on the same datadir, RPC port and credentials, with the wallets that were loaded
 * (`-wallet=…`, as a node operator's bitcoin.conf lists them), once its RPC answers. Only for a node
 * the harness started (test/support/bitcoind.ts), never one at BITCOIND_URL.
 */
import { alive, bitcoindSource, startBitcoind, type BitcoindNode } from './bitcoind';

export interface CoreDownSwitch {
  /** Stops the node (true) or starts it again (false); a no-op when it already is so. */
  setDown(down: boolean): Promise<void>;
  /** Stops a node started again (its datadir is the harness's node's, removed with that one). */
  close(): Promise<void>;
}

const nextTurn = (): Promise<void> => new Promise((r) => setTimeout(r, 50));

/** A down/up switch for `node`, or null when it cannot be stopped here (not started by the harness). */
export function coreDownSwitch(node: BitcoindNode, args: readonly string[] = []): CoreDownSwitch | null {
  const source = bitcoindSource();
  if (!node.started || node.datadir === null || node.pid === null || source.kind !== 'binary') return null;
  const { datadir } = node;
  const port = Number(new URL(node.url).port);
  let current: { rpc: BitcoindNode['rpc']; pid: number | null; stop?: () => Promise<void> } = node;
  let wallets: string[] = [];
  let down = false;
  return {
    async setDown(want) {
      if (want === down) return;
      if (want) {
        wallets = await current.rpc.call<string[]>('listwallets');
        await current.rpc.call('stop');
        // gone when the process is: Core answers `stop` first, then shuts down (wallets flushed, port closed)
        while (current.pid !== null && alive(current.pid)) await nextTurn();
        down = true;
        return;
      }
      const again = await startBitcoind({ binary: source.path, datadir, port, password: node.password, args: [...args, ...wallets.map((w) => `-wallet=${w}`)] });
      if (again.user !== node.user) throw new Error(`the node came back with RPC user ${again.user}, not ${node.user}`);
      current = again;
      down = false;
    },
    async close() {
      if (current !== node) await current.stop?.();
    },
  };
}
