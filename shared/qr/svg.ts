/**
 * SVG output of a QR matrix: one path for all dark modules (one closed rectangle per horizontal run), in module
 * units, offset by the quiet zone. A renderer sets viewBox = qrViewBox(m) and lets the SVG scale (with
 * shape-rendering="crispEdges" so that neighbouring runs do not show hairline seams).
 */
import type { QrMatrix } from './encode';

/** The quiet zone ISO/IEC 18004 asks for: four modules on every side. */
export const QUIET_ZONE = 4;

/** Side of the whole picture in modules, quiet zone included. */
export const qrExtent = (m: QrMatrix, margin = QUIET_ZONE): number => m.size + 2 * margin;

export const qrViewBox = (m: QrMatrix, margin = QUIET_ZONE): string => `0 0 ${qrExtent(m, margin)} ${qrExtent(m, margin)}`;

/** Path data of the dark modules: "M x y h n v1 h-n z" per run of dark modules in a row. */
export function qrSvgPath(m: QrMatrix, margin = QUIET_ZONE): string {
  const { size, words, rows } = m;
  let d = '';
  for (let r = 0; r < size; r++) {
    const y = r + margin;
    let runStart = -1;
    for (let c = 0; c <= size; c++) {
      const dark = c < size && ((rows[r * words + (c >> 5)]! >>> (c & 31)) & 1) === 1;
      if (dark && runStart < 0) runStart = c;
      else if (!dark && runStart >= 0) {
        const n = c - runStart;
        d += `M${runStart + margin} ${y}h${n}v1h-${n}z`;
        runStart = -1;
      }
    }
  }
  return d;
}

/** A standalone SVG document (for export or a test page): dark modules on a light square, `pixels` wide. */
export function qrSvgDocument(m: QrMatrix, options: { pixels?: number; margin?: number; dark?: string; light?: string } = {}): string {
  const margin = options.margin ?? QUIET_ZONE;
  const extent = qrExtent(m, margin);
  const px = options.pixels ?? extent * 4;
  const dark = options.dark ?? '#000';
  const light = options.light ?? '#fff';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px}" height="${px}" viewBox="0 0 ${extent} ${extent}" shape-rendering="crispEdges">` +
    `<rect width="${extent}" height="${extent}" fill="${light}"/><path fill="${dark}" d="${qrSvgPath(m, margin)}"/></svg>`
  );
}
