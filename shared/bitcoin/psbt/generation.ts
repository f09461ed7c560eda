/**
 * Which Bitcoin Core a PSBT is read as. Two generations answer `decodepsbt` differently:
 *
 * - **30** (Core v30, `/Satoshi:30.99.0/`): PSBT_HIGHEST_VERSION 0 — version 2 is "Unsupported
 *   version number" and the BIP370 key types are unknown keys; each key type has its own
 *   duplicate and key-size texts; the PSBT is read from a DataStream.
 * - **31.99** (Core master of July 2026, the v32 line, `/Satoshi:31.99.0/`): PSBT_HIGHEST_VERSION 2
 *   (BIP370); any repeated key fails first with one text (`Duplicate Key, input key "00" already
 *   provided`), key sizes fail as `Size of key was not N for the type NAME`, MuSig2 keys must be
 *   valid points; the PSBT is read from a SpanReader.
 *
 * Callers choose with `{ coreVersion }`; the default is the newest, {@link CORE_LATEST}.
 */

/** The Core generations whose PSBT rules Spyglass reproduces. */
export type CoreVersion = 30 | 31.99;

export const CORE_VERSIONS: readonly CoreVersion[] = [30, 31.99];

/** The default generation: current Core. */
export const CORE_LATEST: CoreVersion = 31.99;

/** Options of every PSBT reader and decoder. */
export interface CoreVersionOption {
  /** The Core generation whose rules and error texts apply (default {@link CORE_LATEST}). */
  coreVersion?: CoreVersion;
}

/** The rules of one generation, as the reader uses them. */
export interface Generation {
  readonly coreVersion: CoreVersion;
  /** PSBT_HIGHEST_VERSION: a PSBT_GLOBAL_VERSION above it is "Unsupported version number". */
  readonly highestVersion: 0 | 2;
  /** The stream Core reads a PSBT from; its name is in "…::read(): end of data". */
  readonly stream: 'DataStream' | 'SpanReader';
  /**
   * Core ≥ 31.99: a repeated key fails before its type is looked at, key sizes fail with
   * ExpectedKeySize's text, the BIP370 fields are read, MuSig2 pubkeys must be valid.
   */
  readonly modern: boolean;
}

const V30: Generation = { coreVersion: 30, highestVersion: 0, stream: 'DataStream', modern: false };
const V31_99: Generation = { coreVersion: 31.99, highestVersion: 2, stream: 'SpanReader', modern: true };

/** The rules of a generation (the default: the newest). Throws on a version Spyglass does not know. */
export function generation(coreVersion: CoreVersion = CORE_LATEST): Generation {
  if (coreVersion === 30) return V30;
  if (coreVersion === 31.99) return V31_99;
  throw new RangeError(`unknown Bitcoin Core generation ${String(coreVersion)} (known: ${CORE_VERSIONS.join(', ')})`);
}

/** A generation named in text (`30`, `30.99`, `31.99`, `32`, `latest`), or null. */
export function parseCoreVersion(text: string): CoreVersion | null {
  const t = text.trim().toLowerCase();
  if (t === '30' || t === '30.99' || t === 'v30') return 30;
  if (t === '31.99' || t === '32' || t === 'v32' || t === 'latest') return 31.99;
  return null;
}

/**
 * The PSBT generation of a node, from getnetworkinfo's `version` (e.g. 300000, 309900, 319900): nodes
 * of the v32 line (31.99 and later) read and make version 2 PSBTs; older ones read only version 0.
 */
export function nodeCoreVersion(version: number): CoreVersion {
  return version >= 319900 ? 31.99 : 30;
}
