// Previous transactions for a PSBT: from the cache, the node or the index — every one hashed to its
// txid first. An index record that does not rebuild into its transaction is refused, nothing is kept.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as btc from '@scure/btc-signer';
import { hex } from '@scure/base';
import { openDatabase } from '../../electron/main/store/db';
import { ProfileRepository } from '../../electron/main/store/profiles';
import { SendStore } from '../../electron/main/send/store';
import { previousTransactions, rebuildFromIndex } from '../../electron/main/send/prevtxs';
import type { IndexTransaction } from '../../electron/main/blockindex/types';
import { parseTx } from '../../shared/bitcoin/tx';
import { NET, testKey } from '../bitcoin/spend/signing';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-prevtxs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A signed segwit transaction and the index's record of it (only the fields a rebuild reads). */
function signedTx(): { hex: string; record: IndexTransaction } {
  const k = testKey(1);
  const tx = new btc.Transaction();
  tx.addInput({ txid: 'aa'.repeat(32), index: 1, witnessUtxo: { script: btc.p2wpkh(k.pub, NET).script, amount: 50_000n }, sequence: 0xfffffffd });
  tx.addOutputAddress(btc.p2wpkh(testKey(2).pub, NET).address!, 40_000n, NET);
  tx.sign(k.priv);
  tx.finalize();
  const raw = tx.extract();
  const p = parseTx(raw);
  const record = {
    txId: p.txid,
    version: p.version,
    lockTime: p.locktime,
    vIn: p.vin.map((i) => ({ txId: i.prevTxid, vOut: i.vout, scriptSig: hex.encode(i.scriptSig), sequence: i.sequence, coinbase: false, txInWitness: i.witness.map((w) => hex.encode(w)) })),
    vOut: p.vout.map((o, index) => ({ index, value: o.value, scriptPubKey: hex.encode(o.script) })),
  } as unknown as IndexTransaction;
  return { hex: hex.encode(raw), record };
}

describe('previous transactions', () => {
  const db = openDatabase(join(dir, 'spyglass.sqlite'));
  const profile = new ProfileRepository(db).create({ name: 'p', nodeUrl: 'http://127.0.0.1:1/', auth: 'password', rpcUser: 'u', cookiePath: '', wallet: 'w', indexUrl: 'http://127.0.0.1:2/' }, { passwordStorage: 'none' });
  const store = new SendStore(db);
  const { hex: txHex, record } = signedTx();

  it("an index record rebuilds into the very transaction (witnesses included), and is kept", async () => {
    expect(hex.encode(rebuildFromIndex(record))).toBe(txHex);
    const r = await previousTransactions([record.txId], { profileId: profile.id, store, rpc: null, index: { transaction: async () => record } as never });
    expect(r.sources).toEqual({ node: 0, index: 1, cache: 0 });
    expect(store.prevTxs(profile.id, [record.txId]).get(record.txId)).toBe(txHex);
    const again = await previousTransactions([record.txId], { profileId: profile.id, store, rpc: null, index: null });
    expect(again.sources).toEqual({ node: 0, index: 0, cache: 1 });
  });

  it('a record that does not hash to its txid is refused: never unverifiable UTXO data in a PSBT', async () => {
    const other = signedTx().record;
    const tampered = { ...other, txId: 'bb'.repeat(32), vOut: other.vOut.map((o) => ({ ...o, value: o.value + 1n })) } as IndexTransaction;
    await expect(previousTransactions([tampered.txId], { profileId: profile.id, store, rpc: null, index: { transaction: async () => tampered } as never })).rejects.toThrow(/does not rebuild into that transaction/);
    expect(store.prevTxs(profile.id, [tampered.txId]).size).toBe(0);
  });

  it("the node's answer is hashed too: a transaction of another txid is not taken", async () => {
    const wrongId = 'cc'.repeat(32);
    const rpc = { batch: async (calls: unknown[]) => calls.map(() => ({ ok: true, value: { hex: txHex } })) };
    const r = await previousTransactions([wrongId], { profileId: profile.id, store, rpc: rpc as never, index: null });
    expect(r.txs.size).toBe(0);
  });
});
