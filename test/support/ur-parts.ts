/**
 * UR parts for the scanner's tests, the fuzz target and the bench: the three frames of issue #27 that
 * crashed or froze the app, parts crafted with any header (bc-ur's own CBOR and bytewords, so their
 * checksums are right), and real PSBTs from Bitcoin Core's recordings as animated QRs.
 */
import * as bytewordsModule from '@ngraveio/bc-ur/dist/bytewords.js';
import { FountainEncoderPart } from '@ngraveio/bc-ur/dist/fountainEncoder.js';
import { coreFileGroup, type CoreFile } from '../fixtures';

function cjsDefault<T>(m: { default: T }): T {
  const d = m.default as T & { default?: T };
  return d.default ?? d;
}
const Bytewords = cjsDefault(bytewordsModule);

/** Issue #27: 4,294,967,295 parts (heap exhausted after ~12 s), 100,000,000 parts (29–35 s, 1.9 GB), a mixed part of 200,000 (5–9 s). */
export const ISSUE_FRAMES = [
  'ur:crypto-psbt/1-4294967295/lpadcyzmzmzmzmcfaxvscfdyesgejojkidjyzmaebycpeofywkdmsagh',
  'ur:crypto-psbt/1-100000000/lpadcyahykvyaecfaxvscfdyesgejojkidjyzmaebycpeofyjtdykoft',
  'ur:crypto-psbt/200001-200000/lpcyaeaxbtfpcyaeaxbtfzcfaxvscfdyesgejojkidjyzmaebycpeofykslefwlb',
] as const;

export interface CraftedPart {
  seqNum: number;
  seqLen: number;
  messageLength: number;
  checksum: number;
  fragment: Uint8Array;
  type?: string;
}

/** A part with this header, well formed (CBOR, bytewords, CRC-32), whatever its numbers say. */
export function craftPart(p: CraftedPart): string {
  const cbor = new FountainEncoderPart(p.seqNum, p.seqLen, p.messageLength, p.checksum, Buffer.from(p.fragment)).cbor();
  return `ur:${p.type ?? 'crypto-psbt'}/${p.seqNum}-${p.seqLen}/${Bytewords.encode(cbor.toString('hex'), Bytewords.STYLES.MINIMAL)}`;
}

const PSBT_FILES: CoreFile[] = ['bitcoin-core-v30.jsonl', 'bitcoin-core-psbt-vectors.jsonl', 'bitcoin-core-spend.jsonl'];

/** The PSBTs Bitcoin Core was asked to decode in the recordings (those starting with the magic), deduplicated. */
export function recordedPsbts(): Uint8Array[] {
  const out: Uint8Array[] = [];
  const seen = new Set<string>();
  for (const rec of PSBT_FILES.flatMap((f) => coreFileGroup(f, 'decodepsbt'))) {
    const p = (JSON.parse(rec.request.body) as { params: unknown[] }).params[0];
    if (typeof p !== 'string' || seen.has(p) || !/^cHNidP8[A-Za-z0-9+/]*={0,2}$/.test(p)) continue;
    seen.add(p);
    out.push(new Uint8Array(Buffer.from(p, 'base64')));
  }
  return out;
}
