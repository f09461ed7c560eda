/** Building PSBT bytes by hand for tests: key-value pairs, maps, version 0 and version 2 PSBTs. */

/** CompactSize as hex. */
export const cs = (n: number): string => (n < 253 ? n.toString(16).padStart(2, '0') : 'fd' + Buffer.from([n & 0xff, n >> 8]).toString('hex'));
/** One key-value pair (key and value as hex). */
export const kv = (key: string, value: string): string => cs(key.length / 2) + key + cs(value.length / 2) + value;
export const u32 = (n: number): string => Buffer.from(Uint32Array.of(n).buffer).toString('hex');
export const i64 = (n: bigint): string => {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(n);
  return b.toString('hex');
};
export const b64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');

/** A one-input, one-output unsigned transaction (version 2, locktime 0, sequence final). */
export const UNSIGNED_TX = '02000000' + '01' + '11'.repeat(32) + '00000000' + '00' + 'ffffffff' + '01' + '1027000000000000' + '00' + '00000000';

/** A version 0 PSBT of UNSIGNED_TX with extra pairs in each map. */
export const psbtV0 = (global: string[], input: string[] = [], output: string[] = []): string =>
  '70736274ff' + kv('00', UNSIGNED_TX) + global.join('') + '00' + input.join('') + '00' + output.join('') + '00';

/** Version 2 globals: tx version 2, the counts, PSBT_GLOBAL_VERSION 2, then `extra`. */
export const globalsV2 = (inputs: number, outputs: number, extra: string[] = []): string =>
  kv('02', u32(2)) + kv('04', cs(inputs)) + kv('05', cs(outputs)) + kv('fb', u32(2)) + extra.join('');
/** A version 2 input map spending txid:vout, with `extra` pairs. */
export const inputV2 = (extra: string[] = [], txid = '11'.repeat(32), vout = 0): string => kv('0e', txid) + kv('0f', u32(vout)) + extra.join('') + '00';
/** A version 2 output map paying 10,000 sats to a P2WPKH script, with `extra` pairs. */
export const outputV2 = (extra: string[] = []): string => kv('03', '1027000000000000') + kv('04', '0014' + '22'.repeat(20)) + extra.join('') + '00';
/** A version 2 PSBT from its maps. */
export const psbtV2 = (globals: string, inputs: string[], outputs: string[]): string => '70736274ff' + globals + '00' + inputs.join('') + outputs.join('');

/** CompactSize as hex, any size. */
export const compactSize = (n: number): string =>
  n < 253 ? cs(n) : n <= 0xffff ? 'fd' + Buffer.from(Uint16Array.of(n).buffer).toString('hex') : 'fe' + u32(n);

/**
 * A large version 0 PSBT: `n` P2TR inputs (each with its witness_utxo of 10,000 sats) spent to one
 * P2TR output, RBF-signalling. For the PSBT worker's tests and bench (100,000 inputs: 9.3 MB).
 */
export function manyInputsPsbt(n: number): Uint8Array {
  const script = '5120' + '33'.repeat(32);
  const ins: string[] = [];
  for (let i = 0; i < n; i++) ins.push(u32(i).repeat(8) + '00000000' + '00' + 'fdffffff');
  const total = BigInt(n) * 10_000n - 1_000_000n;
  const tx = '02000000' + compactSize(n) + ins.join('') + '01' + i64(total) + cs(script.length / 2) + script + '00000000';
  const inputMap = kv('01', i64(10_000n) + cs(script.length / 2) + script) + '00';
  const keyValue = (key: string, value: string): string => compactSize(key.length / 2) + key + compactSize(value.length / 2) + value;
  return Buffer.from('70736274ff' + keyValue('00', tx) + '00' + inputMap.repeat(n) + '00', 'hex');
}
