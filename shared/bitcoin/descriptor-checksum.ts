/** Output descriptor checksum (BIP380; Core's descriptor.cpp DescriptorChecksum). */

const INPUT_CHARSET =
  '0123456789()[],\'/*abcdefgh@:$%{}' +
  'IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~' +
  'ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function polyMod(c: bigint, val: number): bigint {
  const c0 = c >> 35n;
  c = ((c & 0x7ffffffffn) << 5n) ^ BigInt(val);
  if (c0 & 1n) c ^= 0xf5dee51989n;
  if (c0 & 2n) c ^= 0xa9fdca3312n;
  if (c0 & 4n) c ^= 0x1bab10e32dn;
  if (c0 & 8n) c ^= 0x3706b1677an;
  if (c0 & 16n) c ^= 0x644d626ffdn;
  return c;
}

/** The 8-character checksum of `desc` (without `#`), or '' if `desc` has a character outside the charset. */
export function descriptorChecksum(desc: string): string {
  let c = 1n;
  let cls = 0;
  let clscount = 0;
  for (const ch of desc) {
    const pos = INPUT_CHARSET.indexOf(ch);
    if (pos === -1) return '';
    c = polyMod(c, pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++clscount === 3) {
      c = polyMod(c, cls);
      cls = 0;
      clscount = 0;
    }
  }
  if (clscount > 0) c = polyMod(c, cls);
  for (let j = 0; j < 8; ++j) c = polyMod(c, 0);
  c ^= 1n;
  let ret = '';
  for (let j = 0; j < 8; ++j) ret += CHECKSUM_CHARSET[Number((c >> (5n * BigInt(7 - j))) & 31n)];
  return ret;
}

/** `desc#checksum`. */
export function addChecksum(desc: string): string {
  return `${desc}#${descriptorChecksum(desc)}`;
}
