// renderer/src/lib/qr-frame.ts: the camera scanner sends no frame longer than a QR code can hold.
import { describe, expect, it } from 'vitest';
import { frameRefusal } from '../../renderer/src/lib/qr-frame';
import { MAX_QR_TEXT_CHARS } from '../../shared/limits';
import { sendChannels } from '../../shared/ipc/send';

const ScanFrameRequest = sendChannels['scan:frame'].request;

describe('frameRefusal', () => {
  it('lets through up to the 4,296 characters of a version-40 QR code, refuses one more, in words', () => {
    expect(MAX_QR_TEXT_CHARS).toBe(4296);
    expect(frameRefusal('ur:crypto-psbt/1-3/lpadaxcf')).toBeNull();
    expect(frameRefusal('U'.repeat(4296))).toBeNull();
    expect(frameRefusal('U'.repeat(4297))).toBe('This frame read as 4,297 characters; a QR code holds at most 4,296, so it is not a QR code of a PSBT. Nothing was sent.');
  });

  it('main refuses the same length at the IPC boundary', () => {
    expect(ScanFrameRequest.safeParse({ session: 'scan-1', text: 'U'.repeat(4296) }).success).toBe(true);
    const r = ScanFrameRequest.safeParse({ session: 'scan-1', text: 'U'.repeat(4297) });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('A QR code holds at most 4,296 characters');
  });
});
