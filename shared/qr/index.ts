/**
 * shared/qr: a QR Code encoder (ISO/IEC 18004) in pure TypeScript, fast enough for every frame of an animated
 * BC-UR QR of a large PSBT (bench/qr.ts), and module-for-module equal to the qrcode package for the same
 * segments, version, level and mask (test/qr).
 */
export { encodeQr, isDark, maskPenalties, toModules, type QrMatrix, type QrOptions } from './encode';
export { type MaskRules, type Penalty } from './penalty';
export { ALPHANUMERIC_CHARS, bestMode, type QrMode, type QrSegment } from './segments';
export { qrExtent, qrSvgDocument, qrSvgPath, qrViewBox, QUIET_ZONE } from './svg';
export { EC_LEVELS, symbolSize, type EcLevel } from './tables';
