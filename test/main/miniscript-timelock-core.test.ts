/**
 * Time-based miniscript locks on real Bitcoin Core (issue #32): "A, or B after <Unix time>" and
 * "A, or B older <n × 512 s>" (BIP68 type flag 1<<22). Regtest time is driven with setmocktime:
 * every block is mined at the mock clock, STEP seconds after the last, so the chain's median time
 * past (MTP) moves by STEP a block. Each policy's coin is spent along B's timelocked path — created by
 * createpsbt with the lock, filled by OUR updater, signed by a Core key wallet holding B, finalized by
 * OUR finalizer — and offered to the mempool after every block until it is taken: each time, Core's
 * verdict (testmempoolaccept: 'non-final' / 'non-BIP68-final') must equal OUR judgement
 * (shared/send/spend-path.ts coinReadiness against the node's MTPs), and the locks are placed so
 * that the boundary is hit exactly: after(T) is refused while MTP(tip) == T and taken at the next
 * block; older(n) is refused one block before MTP(tip) == MTP(block before the coin's) + n × 512
 * and taken at it. Send's context (the app's own facts: getblockchaininfo's mediantime, the
 * headers' MTPs) says the same before and after. Then the spends confirm.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { parseDescriptor } from '../../shared/bitcoin/descriptor';
import { describePolicy, type SpendPath } from '../../shared/bitcoin/miniscript/policy';
import { REGTEST } from '../../shared/bitcoin/networks';
import { fillPsbtBase64, finalizePsbtBase64 } from '../../shared/bitcoin/psbt';
import type { SendContextView } from '../../shared/ipc/send';
import { coinReadiness, lockStartHeight, type ChainNow } from '../../shared/send/spend-path';
import { connectNode, dispatchOk } from '../support/app';
import { describeWithBitcoind } from '../support/bitcoind';
import { createPsbtArgs, createSigners, RANGE, signInTurn, watchDescriptor, type Policy, type SpendCase } from '../support/miniscript-policies';

/** The mock clock's start (2027-01-15) and its step per block: 128 s, a quarter of BIP68's 512-second unit. */
const BASE = 1_800_000_000;
const STEP = 128;
/** older(): 4 units of 512 s = 16 blocks of STEP. */
const UNITS = 4;
const TIME_OLDER = (1 << 22) | UNITS;

const dir = mkdtempSync(join(tmpdir(), 'spyglass-timelock-core-'));
let app: SpyglassApp | undefined;
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Lock {
  policy: Policy;
  c: SpendCase;
  desc: string;
  wallet: string;
  path: SpendPath;
  outpoint: string;
  hex: string;
  reject: string;
  /** The least tip MTP at which the lock is met (after: lockTime + 1; older: start + n × 512). */
  readyMtp: number;
  /** The tip MTP at which the mempool must first take the spend (the first block's MTP ≥ readyMtp). */
  takenAt: number;
  acceptedAt?: number;
}

describeWithBitcoind(
  'time-based miniscript locks on real Core: judged against the median time past, as the mempool does',
  (node) => {
    it('after(time) and older(time): refused until the MTP passes the lock, to the block; our judgement equals the mempool’s at every block', async () => {
      const rpc = node().rpc;
      const gen = node().generation;
      const coreVersion = gen.startsWith('30.') ? 30 : 31.99;
      let clock = BASE;
      await rpc.call('setmocktime', [clock]);
      await rpc.call('createwallet', ['miner']);
      const miner = await rpc.call<string>('getnewaddress', [], 'miner');
      const mine = async (n: number): Promise<void> => {
        for (let i = 0; i < n; i++) {
          clock += STEP;
          await rpc.call('setmocktime', [clock]);
          await rpc.call('generatetoaddress', [1, miner]);
        }
      };
      const chain = async (): Promise<{ height: number; mtp: number }> => {
        const info = await rpc.call<{ blocks: number; mediantime: number }>('getblockchaininfo');
        return { height: info.blocks, mtp: info.mediantime };
      };
      const mtpOf = async (height: number): Promise<number> => (await rpc.call<{ mediantime: number }>('getblockheader', [await rpc.call<string>('getblockhash', [height])])).mediantime;
      await mine(101);
      // every block is at the mock clock: the MTP is the 6th of the last 11, 5 steps behind the tip
      const start = await chain();
      expect(start.mtp).toBe(clock - 5 * STEP);

      // the coins confirm in the next block (height start + 1); the after() lock is the MTP 20 blocks later
      const lockTime = start.mtp + 21 * STEP;
      const policies: Policy[] = [
        { name: `A, or B after ${lockTime}`, template: `wsh(or_d(pk(A),and_v(v:pkh(B),after(${lockTime}))))`, cases: [{ note: `B, nLockTime ${lockTime}`, signers: ['B'], locktime: lockTime, complete: true }] },
        { name: `A, or B older ${UNITS} × 512 s`, template: `wsh(or_d(pk(A),and_v(v:pkh(B),older(${TIME_OLDER}))))`, cases: [{ note: `B, nSequence ${TIME_OLDER}`, signers: ['B'], sequence: TIME_OLDER, complete: true }] },
      ];
      await createSigners(rpc, policies, 'tsigner');
      const addrs: string[] = [];
      for (const [i, p] of policies.entries()) {
        const desc = watchDescriptor(p);
        await rpc.call('createwallet', { wallet_name: `time${i}`, disable_private_keys: true, blank: true });
        const imp = await rpc.call<{ success: boolean }[]>('importdescriptors', [[{ desc, range: RANGE, timestamp: 'now', active: true, internal: false }]], `time${i}`);
        expect(imp[0]!.success, p.name).toBe(true);
        addrs.push((await rpc.call<string[]>('deriveaddresses', [desc, RANGE]))[0]!);
      }
      const fundTxid = await rpc.call<string>('sendmany', ['', Object.fromEntries(addrs.map((a) => [a, 1]))], 'miner');
      const fundHex = await rpc.call<string>('getrawtransaction', [fundTxid]);
      const fundTx = await rpc.call<{ vout: { n: number; scriptPubKey: { address?: string } }[] }>('decoderawtransaction', [fundHex]);
      await mine(1);
      const fundedAt = (await chain()).height;
      const lockStart = await mtpOf(fundedAt - 1);

      const locks: Lock[] = [];
      for (const [i, p] of policies.entries()) {
        const desc = watchDescriptor(p);
        const c = p.cases[0]!;
        const path = describePolicy(parseDescriptor(desc, REGTEST)).paths.find((x) => x.after || x.older)!;
        expect(path.after ?? path.older, p.name).toMatchObject(i === 0 ? { value: lockTime, unit: 'time' } : { value: TIME_OLDER, unit: 'seconds', amount: UNITS * 512 });
        const vout = fundTx.vout.find((o) => o.scriptPubKey.address === addrs[i])!.n;
        const psbt = await rpc.call<string>('createpsbt', createPsbtArgs(c, { txid: fundTxid, vout }, miner, 0.9999));
        const filled = fillPsbtBase64({ psbt, descriptors: [{ desc, range: RANGE }], prevtxs: [fundHex], network: REGTEST, coreVersion });
        if (!filled.ok) throw new Error(`${p.name}: ${filled.error}`);
        const signed = await signInTurn(rpc, filled.psbt, c.signers, 'tsigner');
        const fin = finalizePsbtBase64(signed, { extract: true, coreVersion });
        if (!fin.ok) throw new Error(fin.error);
        expect(fin.result.complete, p.name).toBe(true);
        locks.push({
          policy: p,
          c,
          desc,
          wallet: `time${i}`,
          path,
          outpoint: `${fundTxid}:${vout}`,
          hex: (fin.result as { hex: string }).hex,
          // IsFinalTx: nLockTime < MTP(tip); CalculateSequenceLocks: MTP(coin height − 1) + n × 512 − 1 < MTP(tip)
          reject: i === 0 ? 'non-final' : 'non-BIP68-final',
          readyMtp: i === 0 ? lockTime + 1 : lockStart + UNITS * 512,
          takenAt: i === 0 ? lockTime + STEP : lockStart + UNITS * 512,
        });
      }

      // Send's context (the app's facts from the node) says when each path becomes usable
      app = createApp({ dataDir: dir, info: { version: 'test', platform: process.platform, bridge: true }, secretBackend: null, psbtWorker: 'inline' });
      const login = { rpcUrl: node().url, user: node().user, password: node().password, indexUrl: '' };
      let profileId: string | undefined;
      const readinessInApp = async (l: Lock): Promise<string> => {
        const r = await connectNode(app!, login, l.wallet, profileId);
        profileId = r.profileId;
        expect(r.state).toBe('connected');
        const ctx = await dispatchOk<SendContextView>(app!, 'send:context', {});
        expect(ctx.policy?.paths.map((x) => x.id), l.policy.name).toContain(l.path.id);
        return ctx.policy!.readiness[l.outpoint]![l.path.id]!;
      };
      for (const l of locks) {
        const words = await readinessInApp(l);
        expect(words, l.policy.name).toMatch(/^possible once the median time past (passes|reaches) \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      }

      // block by block until both are taken: Core's verdict equals ours each time
      let blocks = 0;
      while (locks.some((l) => l.acceptedAt === undefined)) {
        const tip = await chain();
        const now: ChainNow = { tipHeight: tip.height, nowSeconds: clock, tipMtp: tip.mtp, mtpAt: { [lockStartHeight(tip.height - fundedAt + 1, tip.height)]: lockStart } };
        for (const l of locks.filter((x) => x.acceptedAt === undefined)) {
          const label = `${l.policy.name} at MTP ${tip.mtp} (Core ${gen})`;
          const core = (await rpc.call<{ allowed: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [[l.hex]]))[0]!;
          const ours = coinReadiness(l.path, tip.height - fundedAt + 1, now);
          expect(ours.ready, label).toBe(core.allowed);
          expect(ours.estimate, label).toBe(false);
          if (!core.allowed) {
            expect(core['reject-reason'], label).toBe(l.reject);
            expect(tip.mtp, label).toBeLessThan(l.takenAt);
                expect(ours.secondsLeft, label).toBe(l.readyMtp - tip.mtp);
          } else {
            expect(tip.mtp, label).toBe(l.takenAt);
            l.acceptedAt = tip.mtp;
            // and Send's context says every coin can take the path now
            expect(await readinessInApp(l), label).toBe('');
            await rpc.call('sendrawtransaction', [l.hex]);
          }
        }
        if (locks.some((l) => l.acceptedAt === undefined)) await mine(1);
        expect(++blocks, 'the locks are reached within 30 blocks').toBeLessThan(30);
      }
      // the after() lock is taken only one block past MTP == lockTime (refused at equality)
      expect(locks[0]!.acceptedAt).toBe(lockTime + STEP);
      expect(locks[1]!.acceptedAt).toBe(lockStart + UNITS * 512);
      await mine(1);
      for (const l of locks) {
        const [txid, n] = l.outpoint.split(':');
        expect(await rpc.call<unknown>('gettxout', [txid, Number(n), false]), `${l.policy.name}: spent in a block`).toBeNull();
      }
    }, 300_000);
  },
  { tag: 'miniscript-timelock-core' },
);
