/** Reading the JSON wallet files (Caravan, Specter, Core) with errors that name the field. */
import { WalletImportError } from './types';

export type JsonObject = Record<string, unknown>;

/** Parses `text` as a JSON object; 'invalid' naming `what` otherwise. */
export function jsonObject(text: string, what: string): JsonObject {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new WalletImportError('invalid', 'file', `This ${what} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new WalletImportError('invalid', 'file', `A ${what} is a JSON object ({…}).`);
  return v as JsonObject;
}

/** Parses JSON of any shape; undefined if it is not JSON. */
export function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function optionalString(o: JsonObject, key: string, field: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new WalletImportError('invalid', field, `${field} must be text.`);
  return v;
}

export function requiredString(o: JsonObject, key: string, field: string): string {
  const v = optionalString(o, key, field);
  if (v === undefined) throw new WalletImportError('invalid', field, `${field} is missing.`);
  return v;
}
