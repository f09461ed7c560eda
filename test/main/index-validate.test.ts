/**
 * Shape validation of the block index's replies against the real server's sample replies
 * (/work/shared/fixtures/index-samples/) and mutations of them: every mutation is an
 * 'index.bad_reply' naming what was wrong, never a TypeError.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { describe as describeValue, envelopeData, parseErrorBody, parseJson } from '../../electron/main/blockindex/reply-body';
import {
  parseBlockReply,
  parseTransactionReply,
  parseUtxoReply,
  validateBlock,
  validateTransaction,
  validateUtxoList,
} from '../../electron/main/blockindex/validate';

const SAMPLES = '/work/shared/fixtures/index-samples';
const text = (name: string): string => readFileSync(join(SAMPLES, name), 'utf8');
type Rec = Record<string, unknown>;
const sample = (name: string): Rec => JSON.parse(text(name)) as Rec;
const clone = <T>(v: T): T => structuredClone(v);
const EP = 'GET /v1/blockchain/test';

/** Runs `fn` and returns the AppError it throws (fails the test if it throws anything else or nothing). */
function badReplyOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.code).toBe('index.bad_reply');
    expect(err.message).toMatch(/^The index's reply to GET \/v1\/blockchain\/test is not what a bitaps-style index sends: /);
    expect(err.message).not.toMatch(/\n\s+at /);
    return err;
  }
  throw new Error('expected index.bad_reply, nothing was thrown');
}

describe('the real sample replies validate', () => {
  it('block 37258 (every field, amounts as bigint)', () => {
    const b = parseBlockReply(text('bgl_block_37258.json'), EP);
    expect(b.height).toBe(37258);
    expect(b.hash).toBe('0000000000000a6124e6e73baac0a001767bdcdd2b9c38de3b128fe894886037');
    expect(b.amount).toBe(199999987238n);
    expect(b.estimatedBlockReward).toBe(20000000000n);
    expect(b.blockReward).toBe(20000000000n);
    expect(b.blockFeeReward).toBe(1707n);
    expect(typeof b.amount).toBe('bigint');
    expect(b.transactionsCount).toBe(2);
    expect(b.weight).toBe(3 * b.strippedSize + b.size);
    expect(b.miner).toBeNull();
    expect(b.difficulty).toBe(1158528.8464602274);
    expect(b.nextBlockHash).toBe('000000000000073e1fe6830068349b9fc84e834e354fdaf83c1b4fb94891548b');
    expect(Buffer.from(b.header, 'base64').length).toBe(81);
  });

  it('transaction 998835c7… (vIn/vOut as arrays, amounts as bigint, optional keys)', () => {
    const t = parseTransactionReply(text('bgl_transaction_b68b5080.json'), EP);
    expect(t.txId).toBe('998835c72dc30a9169bdc6d7837dd2ed881a13f506a668e9217c448282b30bb1');
    expect(t.hash).toBe('b68b508031ceb03130a749d490ce09ac31afb2d5ba8f28d85f5688b799bd5723');
    expect(t.vIn).toHaveLength(1);
    expect(t.vOut.map((o) => [o.index, o.value])).toEqual([[0, 54350000n], [1, 13622807221n]]);
    expect(t.vIn[0]).toMatchObject({ index: 0, coinbase: false, amount: 13677157503n, type: 'P2WPKH', blockHeight: 37222, sequence: 4294967295 });
    expect(t.vIn[0]!.txInWitness).toHaveLength(2);
    expect(t.fee).toBe(282n);
    expect(t.inputsAmount - t.outputsAmount).toBe(t.fee);
    expect(t.amount).toBe(13677157221n);
    expect(t.feeRate).toBe(2);
    expect(t.flag).toBe('01');
    expect(t.merkleProof).toBe('8XO6W6VoG6mhb0pBO6K+zeICkdzBswW6UODI8knWp/w=');
    expect(t.mempoolRank).toBeNull();
    expect(t.rawTx).toBeNull();
    expect(t.vOut[0]!.spent).toEqual([]);
    expect(t.blockHeight).toBe(37240);
  });

  it('address utxo list', () => {
    const u = parseUtxoReply(text('bgl_address_utxo_bgl1qt3jeum.json'), EP);
    expect(u).toEqual([
      { txId: '998835c72dc30a9169bdc6d7837dd2ed881a13f506a668e9217c448282b30bb1', vOut: 1, block: 37240, txIndex: 1, amount: 13622807221n, type: null },
    ]);
  });

  it('the derived error bodies parse as error bodies; the empty utxo reply as an empty list', () => {
    const errors = sample('errors_DERIVED_from_btcapiserver_code.json');
    let checked = 0;
    for (const [k, v] of Object.entries(errors)) {
      if (k.startsWith('_') || v === null) continue;
      const body = JSON.stringify(v);
      if (k.includes('HTTP 200')) {
        expect(parseUtxoReply(body, EP)).toEqual([]);
      } else if (k.includes('catch-all')) {
        expect(parseErrorBody(body)).toBeNull(); // {"about", "error"}: not a bitaps error body
      } else {
        const e = parseErrorBody(body);
        expect(e, k).not.toBeNull();
        expect(typeof e!.message).toBe('string');
        expect(Number.isInteger(e!.error_code)).toBe(true);
      }
      checked++;
    }
    expect(checked).toBe(10);
  });

  it('the jsbgl "decoded" object is not a server reply and is rejected with a reason', () => {
    // It is no envelope (its `data` is the OP_RETURN payload, null, and its `time` is null) …
    expect(badReplyOf(() => parseTransactionReply(text('decoded_tx_bgl_jsbgl_doc.json'), EP)).message).toContain('time is null, not a number');
    // … and, wrapped in one, lacks keys every server record has.
    const wrapped = JSON.stringify({ data: sample('decoded_tx_bgl_jsbgl_doc.json'), time: 0.001 });
    expect(badReplyOf(() => parseTransactionReply(wrapped, EP)).message).toContain('data.vOut["0"].spent is missing');
  });

  it('tolerates extra keys, both number forms of floats, and keys in any order', () => {
    const b = sample('bgl_block_37258.json');
    const data = b.data as Rec;
    const shuffled = Object.fromEntries(Object.entries({ ...data, statistics: { x: 1 }, difficulty: 2 }).reverse());
    expect(validateBlock(shuffled, EP).difficulty).toBe(2);
    const t = sample('bgl_transaction_b68b5080.json');
    const td = clone(t.data) as Rec;
    td.conflict = { something: true };
    (td.vOut as Rec)['1'] = { ...((td.vOut as Rec)['1'] as Rec), extra: 'x' };
    td.vOut = Object.fromEntries(Object.entries(td.vOut as Rec).reverse()); // "1" before "0"
    const tx = validateTransaction(td, EP);
    expect(tx.vOut.map((o) => o.index)).toEqual([0, 1]);
    expect(validateUtxoList([{ txId: 'ab'.repeat(32), vOut: 0, block: 1, txIndex: 0, amount: 5, type: 'P2PKH', more: 1 }], EP)[0]!.type).toBe('P2PKH');
  });

  it('accepts unconfirmed and coinbase transactions (nulls and the short coinbase input)', () => {
    const t = clone(sample('bgl_transaction_b68b5080.json').data) as Rec;
    for (const k of ['blockHash', 'blockHeight', 'blockIndex', 'blockTime', 'adjustedTimestamp', 'confirmations']) t[k] = null;
    delete t.merkleProof;
    t.mempoolRank = 3;
    const u = validateTransaction(t, EP);
    expect([u.blockHeight, u.confirmations, u.merkleProof, u.mempoolRank]).toEqual([null, null, null, 3]);

    const c = clone(sample('bgl_transaction_b68b5080.json').data) as Rec;
    c.vIn = { '0': { txId: '0'.repeat(64), vOut: 4294967295, scriptSig: '0101', sequence: 4294967295, txInWitness: ['00'.repeat(32)] } };
    c.coinbase = true;
    const cb = validateTransaction(c, EP);
    expect(cb.vIn[0]).toMatchObject({ coinbase: true, amount: null, type: null, address: null, scriptSigAsm: null });
  });
});

describe('mutated replies are index.bad_reply with a specific message', () => {
  const block = (): Rec => clone(sample('bgl_block_37258.json'));
  const tx = (): Rec => clone(sample('bgl_transaction_b68b5080.json'));
  const blockWith = (f: (d: Rec) => void): string => {
    const b = block();
    f(b.data as Rec);
    return JSON.stringify(b);
  };
  const txWith = (f: (d: Rec) => void): string => {
    const t = tx();
    f(t.data as Rec);
    return JSON.stringify(t);
  };

  it.each([
    ['missing height', (d: Rec) => delete d.height, 'data.height is missing'],
    ['height as a string', (d: Rec) => (d.height = '37258'), 'data.height is the string "37258", not a non-negative integer'],
    ['negative height', (d: Rec) => (d.height = -1), 'data.height is the number -1, not a non-negative integer'],
    ['fractional amount', (d: Rec) => (d.amount = 1.5), 'data.amount is the number 1.5, not an amount in satoshis'],
    ['amount beyond 2^53', (d: Rec) => (d.amount = 2 ** 60), 'data.amount is the number'],
    ['short hash', (d: Rec) => (d.hash = 'abc'), 'data.hash is the string "abc", not a 64-character hex hash'],
    ['non-hex hash', (d: Rec) => (d.hash = 'z'.repeat(64)), 'not a 64-character hex hash'],
    ['null merkleRoot', (d: Rec) => (d.merkleRoot = null), 'data.merkleRoot is null, not a string'],
    ['header not base64', (d: Rec) => (d.header = '!!!!'), 'data.header is the string "!!!!", not base64'],
    ['miner not an object', (d: Rec) => (d.miner = 'BTC.COM'), 'data.miner is the string "BTC.COM", not an object'],
    ['miner without link', (d: Rec) => (d.miner = { name: 'x' }), 'data.miner.link is missing'],
    ['difficulty as a string', (d: Rec) => (d.difficulty = '1.5'), 'data.difficulty is the string "1.5", not a number'],
    ['nextBlockHash as a number', (d: Rec) => (d.nextBlockHash = 5), 'data.nextBlockHash is the number 5, not a string'],
    ['coinbase not hex', (d: Rec) => (d.coinbase = 'xyz'), 'data.coinbase is the string "xyz", not hex'],
  ])('block: %s', (_name, mutate, message) => {
    expect(badReplyOf(() => parseBlockReply(blockWith(mutate), EP)).message).toContain(message);
  });

  it.each([
    ['missing txId', (d: Rec) => delete d.txId, 'data.txId is missing'],
    ['vIn an array', (d: Rec) => (d.vIn = []), 'data.vIn is an array, not an object'],
    ['vIn empty', (d: Rec) => (d.vIn = {}), 'data.vIn is empty'],
    ['vOut with a gap', (d: Rec) => (d.vOut = { '0': (d.vOut as Rec)['0'], '2': (d.vOut as Rec)['1'] }), 'data.vOut has the key "2"; expected keys "0" to "1"'],
    ['vOut keyed by name', (d: Rec) => (d.vOut = { first: (d.vOut as Rec)['0'] }), 'data.vOut has the key "first"'],
    ['output value as a string', (d: Rec) => (((d.vOut as Rec)['1'] as Rec).value = '13622807221'), 'data.vOut["1"].value is the string "13622807221", not an amount in satoshis'],
    ['output without spent', (d: Rec) => delete ((d.vOut as Rec)['0'] as Rec).spent, 'data.vOut["0"].spent is missing'],
    ['spender without vIn', (d: Rec) => (((d.vOut as Rec)['0'] as Rec).spent = [{ txId: 'ab'.repeat(32) }]), 'data.vOut["0"].spent[0].vIn is missing'],
    ['input without amount', (d: Rec) => delete ((d.vIn as Rec)['0'] as Rec).amount, 'data.vIn["0"].amount is missing'],
    ['input record null', (d: Rec) => ((d.vIn as Rec)['0'] = null), 'data.vIn["0"] is null, not an object'],
    ['witness not an array', (d: Rec) => (((d.vIn as Rec)['0'] as Rec).txInWitness = 'ab'), 'data.vIn["0"].txInWitness is the string "ab", not an array'],
    ['witness item not hex', (d: Rec) => (((d.vIn as Rec)['0'] as Rec).txInWitness = ['ab', 'xx']), 'data.vIn["0"].txInWitness[1] is the string "xx", not hex'],
    ['segwit as 1', (d: Rec) => (d.segwit = 1), 'data.segwit is the number 1, not true or false'],
    ['fee negative', (d: Rec) => (d.fee = -282), 'data.fee is the number -282, not an amount in satoshis'],
    ['fee null', (d: Rec) => (d.fee = null), 'data.fee is null, not an amount in satoshis'],
    ['blockHeight as a string', (d: Rec) => (d.blockHeight = '37240'), 'data.blockHeight is the string "37240", not a non-negative integer'],
    ['sequence beyond 32 bits', (d: Rec) => (((d.vIn as Rec)['0'] as Rec).sequence = 2 ** 33), 'data.vIn["0"].sequence is the number 8589934592, not a 32-bit unsigned integer'],
  ])('transaction: %s', (_name, mutate, message) => {
    expect(badReplyOf(() => parseTransactionReply(txWith(mutate), EP)).message).toContain(message);
  });

  it.each([
    ['data an object', '{"data": {"txId": "x"}, "time": 0.1}', 'data is an object, not an array'],
    ['entry not an object', '{"data": [5], "time": 0.1}', 'data[0] is the number 5, not an object'],
    ['entry without amount', `{"data": [{"txId": "${'ab'.repeat(32)}", "vOut": 1, "block": 2, "txIndex": 0}], "time": 0.1}`, 'data[0].amount is missing'],
    ['amount a float', `{"data": [{"txId": "${'ab'.repeat(32)}", "vOut": 1, "block": 2, "txIndex": 0, "amount": 0.5}], "time": 0.1}`, 'data[0].amount is the number 0.5'],
  ])('utxo: %s', (_name, body, message) => {
    expect(badReplyOf(() => parseUtxoReply(body, EP)).message).toContain(message);
  });

  it.each([
    ['not JSON', '{"data": [1, 2, "\u0000", {"x": }', 'it is not valid JSON ("{"data": [1, 2, " ", {"x": }")'],
    ['truncated JSON', text('bgl_block_37258.json').slice(0, 200), 'its JSON is cut off'],
    ['empty body', '', 'the body is empty'],
    ['an HTML page', '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>', 'it is an HTML page, not JSON (502 Bad Gateway)'],
    ['a JSON array', '[1, 2]', 'the body is an array, not a {"data", "time"} object'],
    ['a JSON string', '"ok"', 'the body is the string "ok", not a {"data", "time"} object'],
    ['null', 'null', 'the body is null'],
    ['envelope without data', '{"time": 0.1}', 'data is missing'],
    ['an error body with 200', '{"error_code": 1, "message": "internal server error", "details": ""}', 'data is missing (the body is an error: error_code 1, "internal server error")'],
    ['time not a number', '{"data": [], "time": "now"}', 'time is the string "now", not a number'],
    ['data null', '{"data": null, "time": 0.1}', 'data is null, not an object'],
    ['data an array', '{"data": [], "time": 0.1}', 'data is an array, not an object'],
    ['data a number', '{"data": 7, "time": 0.1}', 'data is the number 7, not an object'],
  ])('envelope: %s', (_name, body, message) => {
    expect(badReplyOf(() => parseBlockReply(body, EP)).message).toContain(message);
  });

  it('never throws anything but index.bad_reply, whatever the body (fuzzed mutations)', () => {
    const bodies = [text('bgl_block_37258.json'), text('bgl_transaction_b68b5080.json'), text('bgl_address_utxo_bgl1qt3jeum.json')];
    const parsers = [parseBlockReply, parseTransactionReply, parseUtxoReply];
    const values: unknown[] = [null, 0, -1, 1.5, '', 'x', [], {}, true, [null], { '0': null }, 2 ** 63];
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let bad = 0;
    for (let round = 0; round < 600; round++) {
      const root = JSON.parse(bodies[rnd(3)]!) as unknown;
      // Replace one random node of the tree with a random value.
      const nodes: [Rec | unknown[], string | number][] = [];
      const walk = (v: unknown): void => {
        if (Array.isArray(v)) {
          v.forEach((x, i) => {
            nodes.push([v, i]);
            walk(x);
          });
        } else if (v && typeof v === 'object') {
          for (const [k, x] of Object.entries(v)) {
            nodes.push([v as Rec, k]);
            walk(x);
          }
        }
      };
      walk(root);
      const [parent, key] = nodes[rnd(nodes.length)]!;
      (parent as Record<string | number, unknown>)[key] = values[rnd(values.length)];
      const body = JSON.stringify(root);
      for (const parse of parsers) {
        try {
          parse(body, EP);
        } catch (e) {
          expect(e).toBeInstanceOf(AppError);
          expect((e as AppError).code).toBe('index.bad_reply');
          bad++;
        }
      }
    }
    expect(bad).toBeGreaterThan(600);
  });

  it('helpers: parseJson, envelopeData, describe', () => {
    expect(parseJson('{"a": 2.0}', EP)).toEqual({ a: 2 });
    expect(envelopeData({ data: [], time: 0 }, EP)).toEqual([]);
    expect(envelopeData({ data: 1 }, EP)).toBe(1); // `time` carries no meaning; it may be absent
    expect(describeValue('x'.repeat(40))).toBe(`the string "${'x'.repeat(24)}…"`);
    expect(parseErrorBody('not json')).toBeNull();
    expect(parseErrorBody('{"error_code": 5, "message": "invalid address"}')).toEqual({ error_code: 5, message: 'invalid address', details: '' });
  });
});
