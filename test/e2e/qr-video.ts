/**
 * A Y4M video of QR codes for Chromium's fake camera (--use-file-for-fake-video-capture): each text
 * drawn black on white (4 modules of quiet zone) in the middle of a grey-free frame, held for a few
 * frames. The page's scanner reads it through getUserMedia, a <video>, a canvas and jsQR — the path a
 * real webcam takes.
 */
import { writeFileSync } from 'node:fs';
import { qrSymbol } from '../../renderer/src/lib/qr-svg';

export function writeQrVideo(file: string, texts: readonly string[], opts: { size?: number; hold?: number; fps?: number } = {}): void {
  const size = opts.size ?? 480;
  const hold = opts.hold ?? 3;
  const fps = opts.fps ?? 15;
  const header = Buffer.from(`YUV4MPEG2 W${size} H${size} F${fps}:1 Ip A1:1 C420jpeg\n`);
  const chroma = Buffer.alloc((size / 2) * (size / 2) * 2, 128);
  const frames: Buffer[] = [header];
  for (const text of texts) {
    const m = qrSymbol(text.toUpperCase(), 'L');
    const modules = m.size + 8;
    const scale = Math.floor(size / modules);
    const offset = Math.floor((size - modules * scale) / 2) + 4 * scale;
    const y = Buffer.alloc(size * size, 255);
    for (let r = 0; r < m.size; r++) {
      for (let c = 0; c < m.size; c++) {
        if (!m.modules[r * m.size + c]) continue;
        for (let dy = 0; dy < scale; dy++) y.fill(0, (offset + r * scale + dy) * size + offset + c * scale, (offset + r * scale + dy) * size + offset + (c + 1) * scale);
      }
    }
    for (let k = 0; k < hold; k++) frames.push(Buffer.from('FRAME\n'), y, chroma);
  }
  writeFileSync(file, Buffer.concat(frames));
}
