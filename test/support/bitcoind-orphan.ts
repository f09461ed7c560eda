/**
 * Helper process for test/support/bitcoind.test.ts: starts a node with the harness, prints
 * `{"pid":…,"datadir":…}` and waits to be killed — the test kills it with SIGKILL (no clean-up runs)
 * and checks that the harness's guard still ends bitcoind.
 */
import { startBitcoind } from './bitcoind';

const node = await startBitcoind();
console.log(JSON.stringify({ pid: node.pid, datadir: node.datadir }));
setInterval(() => undefined, 60_000);
