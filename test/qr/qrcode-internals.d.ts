// The qrcode package's internal modules (CommonJS, untyped), used as test oracles for shared/qr.
declare module 'qrcode/lib/core/mask-pattern.js' {
  interface Grid {
    size: number;
    data: Uint8Array;
    get(row: number, col: number): number;
  }
  export function getPenaltyN1(data: Grid): number;
  export function getPenaltyN2(data: Grid): number;
  export function getPenaltyN3(data: Grid): number;
  export function getPenaltyN4(data: Grid): number;
}
declare module 'qrcode/lib/core/error-correction-code.js' {
  export function getBlocksCount(version: number, level: { bit: number }): number;
  export function getTotalCodewordsCount(version: number, level: { bit: number }): number;
}
declare module 'qrcode/lib/core/error-correction-level.js' {
  export const L: { bit: number };
  export const M: { bit: number };
  export const Q: { bit: number };
  export const H: { bit: number };
}
declare module 'qrcode/lib/core/format-info.js' {
  export function getEncodedBits(level: { bit: number }, mask: number): number;
}
declare module 'qrcode/lib/core/version.js' {
  export function getEncodedBits(version: number): number;
}
declare module 'qrcode/lib/core/alignment-pattern.js' {
  export function getRowColCoords(version: number): number[];
}
declare module 'qrcode/lib/core/utils.js' {
  export function getSymbolTotalCodewords(version: number): number;
}
declare module 'qrcode/lib/core/reed-solomon-encoder.js' {
  class ReedSolomonEncoder {
    constructor(degree: number);
    encode(data: Uint8Array): Uint8Array;
  }
  export = ReedSolomonEncoder;
}
