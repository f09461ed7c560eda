/**
 * The same node-level suite against a real `bitcoind -regtest`, so that whatever the devnet is
 * tested for is also checked against the real thing. Set BITCOIND_URL (e.g. http://127.0.0.1:18443),
 * BITCOIND_USER and BITCOIND_PASSWORD; the node needs `-fallbackfee=0.0002` and no wallets named
 * hot*, watch*, other* (a unique suffix is used). Skipped otherwise — no bitcoind can be installed here.
 */
import { describe, it } from 'vitest';
import { TestRpc } from '../support/rpc';
import { defineNodeSuite, type NodeTarget } from './node-suite';

const url = process.env.BITCOIND_URL;

if (url) {
  const target: NodeTarget = {
    rpc: new TestRpc(url.replace(/\/$/, ''), process.env.BITCOIND_USER ?? '', process.env.BITCOIND_PASSWORD ?? ''),
    suffix: `-${Date.now().toString(36)}`,
  };
  describe(`real bitcoind at ${url}`, () => defineNodeSuite(() => target));
} else {
  describe('real bitcoind parity', () => {
    it.skip('skipped: BITCOIND_URL is not set (no bitcoind on this machine); set BITCOIND_URL, BITCOIND_USER, BITCOIND_PASSWORD to run the node suite against a real regtest node', () => {});
  });
  console.info('[bitcoind-parity] skipped: set BITCOIND_URL (+ BITCOIND_USER, BITCOIND_PASSWORD) to run the node suite against a real bitcoind -regtest');
}
