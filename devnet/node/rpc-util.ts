/** Argument helpers of the node's RPC methods, and the registration wrapper they share. */
import type { UValue } from '../../shared/json';
import { DescriptorRpcError } from '../../shared/bitcoin/descriptor';
import { RpcError, type ArgSpec, type RpcContext, type RpcMethodSpec } from '../rpc/types';
import { getBool, getStr, optInt, type IntKind } from '../rpc/args';
import { WalletError, type AddressType } from '../wallet/wallet';

export const arg = (name: string, type: ArgSpec['type'], required = false): ArgSpec => ({ name, type, required });

export const intArg = (v: UValue | undefined, dflt: number, kind: IntKind = 'int'): number => optInt(v, dflt, kind);
export const boolArg = (v: UValue | undefined, dflt: boolean): boolean => (v === undefined ? dflt : getBool(v));
export const strArg = (v: UValue | undefined, dflt: string): string => (v === undefined ? dflt : getStr(v));
/** ParseVerbosity(arg, default, allow_bool = true) (rpc/util.cpp). */
export const parseVerbosity = (v: UValue | undefined, dflt: number): number =>
  v === undefined || v.t === 'null' ? dflt : v.t === 'bool' ? (v.v ? 1 : 0) : intArg(v, dflt);

const ADDRESS_TYPE_NAMES: Record<string, AddressType> = {
  legacy: 'legacy',
  'p2sh-segwit': 'p2sh-segwit',
  bech32: 'bech32',
  bech32m: 'bech32m',
};

export function parseAddressType(v: UValue | undefined, dflt: AddressType): AddressType {
  if (v === undefined) return dflt;
  const s = strArg(v, '');
  const t = ADDRESS_TYPE_NAMES[s];
  if (!t) throw new RpcError(-5, `Unknown address type '${s}'`);
  return t;
}

/** A short help text for helper methods (the contract methods carry Core's verbatim help). */
export function shortHelp(name: string, args: ArgSpec[]): string {
  return `${name} ${args.map((a) => (a.required ? `"${a.name}"` : `( ${a.name} )`)).join(' ')}`.trim() + '\n';
}

/** Runs a shared/bitcoin descriptor RPC, turning its errors into RPC errors with Core's codes. */
export function descriptorCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof DescriptorRpcError) throw new RpcError(e.code, e.message);
    throw e;
  }
}

/** A method of the node: WalletError becomes an RpcError with its code; without a help text, a short usage line. */
export function method(
  name: string,
  args: ArgSpec[],
  handler: (a: (UValue | undefined)[], ctx: RpcContext) => unknown,
  helpText?: string,
): RpcMethodSpec {
  return {
    name,
    args,
    help: helpText ?? shortHelp(name, args),
    handler: (a, ctx) => {
      try {
        return handler(a, ctx);
      } catch (e) {
        if (e instanceof WalletError) throw new RpcError(e.code, e.message);
        throw e;
      }
    },
  };
}
