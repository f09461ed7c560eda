/**
 * Live differential test: the same requests to real Bitcoin Core and to the devnet answering as the
 * same generation (`coreVersion` = the node's), every method the devnet serves with results and with
 * errors, replies compared field by field (parity/compare.ts says exactly what is normalised and why).
 * Every difference found is printed per generation; each must be fixed in the devnet or be one of the
 * deliberate differences in parity/deliberate.ts (the README lists them with their reasons), and each
 * deliberate one must still occur — the list cannot grow or go stale silently.
 *
 * Core: the harness's private node (test/support/bitcoind.ts; both generations under `npm run
 * test:core`), started with `-keypool=100` as the devnet behaves. With BITCOIND_URL the node must be
 * a fresh regtest node (height 0, no wallets): the chain phase compares block hashes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../../devnet/index';
import { statelessMethods } from '../../devnet/rpc/stateless';
import { describeWithBitcoind, type BitcoindNode } from '../support/bitcoind';
import { TestRpc } from '../support/rpc';
import type { Difference } from './parity/compare';
import { DELIBERATE, deliberateOf } from './parity/deliberate';
import { DiffRunner } from './parity/run';
import { chainSteps } from './parity/steps-chain';
import { httpSteps } from './parity/steps-http';
import { walletSteps } from './parity/steps-wallet';
import { historySteps } from './parity/steps-history';
import { policySteps } from './parity/steps-policy';
import { feeSteps } from './parity/steps-fees';
import { psbtSteps } from './parity/steps-psbt';
import { walletPsbtSteps } from './parity/steps-wallet-psbt';

const show = (s: string): string => JSON.stringify(s.length > 300 ? `${s.slice(0, 300)}…` : s);
const fmt = (d: Difference): string => `  [${d.step}] ${d.path}\n      core:   ${show(d.core)}\n      devnet: ${show(d.devnet)}`;

describeWithBitcoind(
  'the devnet against real Bitcoin Core, request by request',
  (bitcoind) => {
    let node: BitcoindNode;
    let devnet: Devnet;
    let devnetDir: string;
    let runner: DiffRunner;
    /** Why this run cannot compare (a BITCOIND_URL node that is not fresh), or null. */
    let notFresh: string | null = null;

    beforeAll(async () => {
      node = bitcoind();
      const height = await node.rpc.call<number>('getblockcount');
      const wallets = await node.rpc.call<string[]>('listwallets');
      if (height !== 0 || wallets.length > 0) {
        notFresh = `${node.url} is at height ${height} with ${wallets.length} wallet(s); the differential test needs a fresh regtest node (height 0, no wallets, -keypool=100 -fallbackfee=0.0002), or BITCOIND=/path/to/bitcoind to start its own`;
        if (node.started) throw new Error(notFresh);
        console.info(`[bitcoind-parity] skipped: ${notFresh}`);
        return;
      }
      devnetDir = mkdtempSync(join(tmpdir(), 'spyglass-parity-devnet-'));
      devnet = await startDevnet({ coreVersion: node.devnetMode, rpcUser: 'spy', rpcPassword: 'glass', datadir: devnetDir });
      runner = new DiffRunner(
        { name: 'core', rpc: node.rpc, vars: { user: node.user } },
        { name: 'devnet', rpc: new TestRpc(devnet.rpcUrl, 'spy', 'glass'), vars: { user: 'spy' } },
        { core: node.datadir, devnet: devnetDir },
      );
    });

    afterAll(async () => {
      if (runner) {
        const all = runner.differences;
        const label = (d: Difference): string => {
          const x = deliberateOf(d);
          return x ? `(deliberate: ${x.id}) ` : '';
        };
        const open = all.filter((d) => !label(d)).length;
        console.info(
          `[bitcoind-parity] ${node.subversion} vs the devnet as ${devnet.node.coreVersion}: ${runner.steps} requests, ${all.length} difference(s): ` +
            `${open} to fix, ${all.filter((d) => deliberateOf(d)).length} deliberate` +
            (all.length ? `\n${all.map((d) => `${label(d)}${fmt(d)}`).join('\n')}` : ''),
        );
      }
      // A node the suite did not start goes back to the system clock, without the test's wallets loaded.
      if (node && !node.started && !notFresh) {
        await node.rpc.call('setmocktime', [0]).catch(() => undefined);
        for (const w of await node.rpc.call<string[]>('listwallets').catch(() => [])) await node.rpc.call('unloadwallet', [w]).catch(() => undefined);
      }
      await devnet?.close();
      if (devnetDir) rmSync(devnetDir, { recursive: true, force: true });
    });

    const skipUnlessFresh = (ctx: { skip: () => void }): void => {
      if (notFresh) ctx.skip();
    };

    const expectOnlyDeliberate = (found: Difference[]): void => {
      const undeclared = found.filter((d) => !deliberateOf(d));
      expect(undeclared.map(fmt).join('\n'), 'differences from real Core (fix the devnet, or declare them in parity/deliberate.ts and the README)').toBe('');
    };

    it('transport and envelope: auth, paths, HTTP methods, JSON-RPC 1.0/2.0, batches, named parameters, the recorded stateless requests', async (ctx) => {
      skipUnlessFresh(ctx);
      expectOnlyDeliberate(await runner.run(httpSteps(node.devnetMode)));
    });

    it('the chain both nodes build from the same key and clock: blocks, mempool, UTXOs, raw transactions — byte-identical', async (ctx) => {
      skipUnlessFresh(ctx);
      expectOnlyDeliberate(await runner.run(chainSteps()));
    });

    it('mempool policy on the same chain: every input kind and sighash type, spoiled signatures, dust, fees, finality, packages, replacements', async (ctx) => {
      skipUnlessFresh(ctx);
      expectOnlyDeliberate(await runner.run(policySteps()));
    });

    it('PSBT creation and roles on the same chain: createpsbt, converttopsbt, joinpsbts, combinepsbt, finalizepsbt, analyzepsbt with their options and errors', async (ctx) => {
      skipUnlessFresh(ctx);
      expectOnlyDeliberate(await runner.run(psbtSteps(node.devnetMode)));
    });

    it('the fee estimator on the same chain: no history, then blocks of spends at several fee rates; estimatesmartfee by target and mode', async (ctx) => {
      skipUnlessFresh(ctx);
      expectOnlyDeliberate(await runner.run(feeSteps()));
    });

    it('wallets (keys differ, matched one to one): create/load/unload, descriptors, addresses, labels, balances, sending', async (ctx) => {
      skipUnlessFresh(ctx);
      expectOnlyDeliberate(await runner.run(walletSteps()));
    });

    it('wallet history and balances: transactions, lists, balances, received amounts, labels, rescans', async (ctx) => {
      skipUnlessFresh(ctx);
      expectOnlyDeliberate(await runner.run(historySteps()));
    });

    it('wallet PSBTs with the same keys on both nodes: walletprocesspsbt (filling and signing), descriptorprocesspsbt, utxoupdatepsbt, psbtbumpfee — byte-identical', async (ctx) => {
      skipUnlessFresh(ctx);
      expectOnlyDeliberate(await runner.run(walletPsbtSteps(node.devnetMode)));
    });

    it('every method the devnet serves was asked, with a result and with an error', (ctx) => {
      skipUnlessFresh(ctx);
      const served = [...statelessMethods(devnet.node.network, devnet.node.coreVersion), ...devnet.node.methods()].map((m) => m.name).sort();
      expect(served.filter((m) => !runner.coverage.ok.has(m)), 'methods never answered with a result').toEqual([]);
      expect(served.filter((m) => !runner.coverage.error.has(m)), 'methods never answered with an error').toEqual([]);
    });

    it('every deliberate difference still occurs (else it is fixed: remove it from parity/deliberate.ts and the README)', (ctx) => {
      skipUnlessFresh(ctx);
      const seen = new Set(runner.differences.map((d) => deliberateOf(d)?.id).filter(Boolean));
      expect(DELIBERATE.filter((x) => !seen.has(x.id) && x.generations.includes(node.devnetMode)).map((x) => x.id)).toEqual([]);
    });

  },
  { tag: 'bitcoind-parity', args: ['-keypool=100'] },
);
