/**
 * Spending the policies of issue #32 (test/support/miniscript-policies.ts) on real Bitcoin Core
 * with Spyglass's own fill and finalize: one private regtest node; one watch-only wallet per policy
 * (two of them created by Spyglass's wallet:import, to watch the coins); Core key wallets holding A's, B's and C's private keys as the
 * signers. Every path of every policy gets a coin; each spend is created by createpsbt with the
 * path's nSequence / nLockTime, filled by OUR updater (shared/bitcoin/psbt fill, from the
 * descriptor), signed by the Core key wallets in turn (walletprocesspsbt, finalize=false) and
 * finalized by OUR finalizer; the mempool must take it and a block must confirm it. A timelocked
 * path spent before its time must be refused by the mempool (non-BIP68-final / non-final) and
 * taken once enough blocks are mined. Paths that cannot complete must stay unfinalized, with why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import type { WalletImportResult } from '../../shared/ipc/contract';
import { fillPsbtBase64, finalizePsbtBase64 } from '../../shared/bitcoin/psbt';
import { REGTEST } from '../../shared/bitcoin/networks';
import { importWallet } from '../../shared/wallet/index';
import { connectNode, dispatchOk } from '../support/app';
import { describeWithBitcoind } from '../support/bitcoind';
import { createPsbtArgs, createSigners, POLICIES, RANGE, signInTurn, watchDescriptor, type Policy, type SpendCase } from '../support/miniscript-policies';

interface Spend {
  policy: Policy;
  c: SpendCase;
  coinHeight: number;
  hex?: string;
  txid?: string;
}

const dir = mkdtempSync(join(tmpdir(), 'spyglass-miniscript-spend-'));
let app: SpyglassApp | undefined;
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describeWithBitcoind(
  'miniscript and taproot tree spends on real Core, with our fill and finalize',
  (node) => {
    it('spends every path of every policy; timelocked paths only once their time has come', async () => {
      const rpc = node().rpc;
      const gen = node().generation;
      const coreVersion = gen.startsWith('30.') ? 30 : 31.99;
      await rpc.call('createwallet', ['miner']);
      const miner = await rpc.call<string>('getnewaddress', [], 'miner');
      await rpc.call('generatetoaddress', [101, miner]);
      await createSigners(rpc);
      const height = async (): Promise<number> => rpc.call<number>('getblockcount');
      const mine = async (n: number): Promise<void> => {
        await rpc.call('generatetoaddress', [n, miner]);
      };

      // one watch-only wallet per policy; one coin per path, all paid by one transaction. A wsh() and a
      // tr() tree policy's wallets are created by Spyglass's import (wallet:import: the preview's parse,
      // createwallet, importdescriptors of receive and change); the others directly (importdescriptors)
      const THROUGH_SPYGLASS = [0, 6];
      const importStart = Date.now();
      app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
      const { state } = await connectNode(app, { rpcUrl: node().url, user: node().user, password: node().password, indexUrl: '' }, 'miner');
      expect(state).toBe('connected');
      const connected = Date.now();
      const took = { spyglass: 0, direct: 0 };
      const coins: { policy: Policy; c: SpendCase; desc: string; addr: string }[] = [];
      for (const [pi, p] of POLICIES.entries()) {
        const desc = watchDescriptor(p);
        const t0 = Date.now();
        if (THROUGH_SPYGLASS.includes(pi)) {
          const imp = await dispatchOk<WalletImportResult>(app, 'wallet:import', { text: desc, walletName: `watch${pi}`, rescan: { from: 'now' }, watchAhead: 20 });
          expect(imp.descriptors, p.name).toBe(2);
          // Core keeps the descriptors as Spyglass normalized them
          const w = importWallet(desc, REGTEST);
          const listed = await rpc.call<{ descriptors: { desc: string; internal: boolean }[] }>('listdescriptors', [], `watch${pi}`);
          expect(listed.descriptors.map((d) => [d.desc, d.internal]).sort(), p.name).toEqual([[w.external, false], [w.internal, true]].sort());
        } else {
          await rpc.call('createwallet', { wallet_name: `watch${pi}`, disable_private_keys: true, blank: true });
          const imp = await rpc.call<{ success: boolean }[]>('importdescriptors', [[{ desc, range: RANGE, timestamp: 'now' }]], `watch${pi}`);
          expect(imp[0]!.success, p.name).toBe(true);
        }
        took[THROUGH_SPYGLASS.includes(pi) ? 'spyglass' : 'direct'] += Date.now() - t0;
        const addrs = await rpc.call<string[]>('deriveaddresses', [desc, RANGE]);
        p.cases.forEach((c, ci) => coins.push({ policy: p, c, desc, addr: addrs[ci]! }));
      }
      console.log(
        `Core ${gen}: app started and connected in ${connected - importStart} ms; ${THROUGH_SPYGLASS.length} wallets through wallet:import in ${took.spyglass} ms, ${POLICIES.length - THROUGH_SPYGLASS.length} by importdescriptors in ${took.direct} ms`,
      );
      const fundTxid = await rpc.call<string>('sendmany', ['', Object.fromEntries(coins.map((k) => [k.addr, 1]))], 'miner');
      const fundHex = await rpc.call<string>('getrawtransaction', [fundTxid]);
      const fundTx = await rpc.call<{ vout: { n: number; scriptPubKey: { address?: string } }[] }>('decoderawtransaction', [fundHex]);
      await mine(1);
      const fundedAt = await height();
      expect(fundedAt).toBeLessThan(150); // the after() policy's height is still ahead

      // build, fill (ours), sign (Core key wallets), finalize (ours)
      const spends: Spend[] = [];
      for (const k of coins) {
        const vout = fundTx.vout.find((o) => o.scriptPubKey.address === k.addr)!.n;
        const psbt = await rpc.call<string>('createpsbt', createPsbtArgs(k.c, { txid: fundTxid, vout }, miner, 0.9999));
        const filled = fillPsbtBase64({ psbt, descriptors: [{ desc: k.desc, range: RANGE }], prevtxs: [fundHex], network: REGTEST, coreVersion });
        if (!filled.ok) throw new Error(`${k.policy.name} / ${k.c.note}: ${filled.error}`);
        const signed = await signInTurn(rpc, filled.psbt, k.c.signers);
        const fin = finalizePsbtBase64(signed, { extract: true, coreVersion });
        if (!fin.ok) throw new Error(fin.error);
        const label = `${k.policy.name} / ${k.c.note}`;
        expect(fin.result.complete, label).toBe(k.c.complete);
        expect(fin.refused, label).toEqual([]);
        if (!k.c.complete) {
          expect(fin.incomplete[0]?.reason, label).toMatch(/^not finalized: /);
          continue;
        }
        spends.push({ policy: k.policy, c: k.c, coinHeight: fundedAt, hex: (fin.result as { hex: string }).hex });
      }
      expect(spends.length).toBeGreaterThanOrEqual(26);

      // now: every path without a timelock to wait for goes in; the others are refused
      const accept = async (s: Spend): Promise<{ allowed: boolean; 'reject-reason'?: string }> => (await rpc.call<{ allowed: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [[s.hex]]))[0]!;
      const waiting: Spend[] = [];
      for (const s of spends) {
        const label = `${s.policy.name} / ${s.c.note}`;
        const r = await accept(s);
        if (s.c.sequence !== undefined || s.c.locktime) {
          // nSequence N holds the coin N blocks (BIP68); nLockTime H holds the spend until height H
          expect(r, label).toMatchObject({ allowed: false, 'reject-reason': s.c.sequence !== undefined ? 'non-BIP68-final' : 'non-final' });
          waiting.push(s);
        } else {
          expect(r, label).toMatchObject({ allowed: true });
          s.txid = await rpc.call<string>('sendrawtransaction', [s.hex]);
        }
      }
      expect(waiting.length).toBeGreaterThanOrEqual(5);

      // mine until each lock is reached: refused one block before, taken at it
      const due = (s: Spend): number => (s.c.sequence !== undefined ? fundedAt + s.c.sequence - 1 : s.c.locktime!);
      for (const s of [...waiting].sort((a, b) => due(a) - due(b))) {
        const label = `${s.policy.name} / ${s.c.note}`;
        const need = due(s) - (await height());
        if (need > 1) await mine(need - 1);
        if ((await height()) < due(s)) expect((await accept(s)).allowed, `${label}: one block early`).toBe(false);
        if ((await height()) < due(s)) await mine(due(s) - (await height()));
        expect(await accept(s), label).toMatchObject({ allowed: true });
        s.txid = await rpc.call<string>('sendrawtransaction', [s.hex]);
      }
      await mine(1);
      for (const s of spends) {
        const t = await rpc.call<{ confirmations: number }>('gettransaction', [s.txid], 'miner');
        expect(t.confirmations, `${s.policy.name} / ${s.c.note} (Core ${gen})`).toBeGreaterThanOrEqual(1);
      }
    }, 240_000);
  },
  { tag: 'miniscript-spend-core' },
);
