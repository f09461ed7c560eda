/** Types of the devnet's JSON-RPC server core (a faithful imitation of Bitcoin Core v30). */
import type { UValue } from '../../shared/json';

/** An RPC error as Core throws it with JSONRPCError(code, message). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/**
 * Declared argument kinds (RPCArg::Type). The framework type-checks str/str_hex (string), num
 * (number), bool, obj/obj_user_keys (object) and arr (array); `amount` and `any` (Core's AMOUNT and
 * arguments with skip_type_check) are left to the handler.
 */
export type ArgType = 'str' | 'str_hex' | 'num' | 'bool' | 'obj' | 'arr' | 'amount' | 'obj_user_keys' | 'any';

export interface ArgSpec {
  /** Name as in Core's help; aliases may be written `a|b` (named parameters accept each). */
  name: string;
  type: ArgType;
  required: boolean;
}

export interface RpcContext {
  /** URL-decoded name from `/wallet/<name>`, or null for `/`. */
  walletPath: string | null;
}

export interface RpcMethodSpec {
  name: string;
  args: ArgSpec[];
  /** Full help text; it is the -1 message on a wrong argument count. */
  help: string;
  /**
   * `args[i]` is undefined when the argument was omitted, or given as null for an optional one.
   * The result is written with writeJson (use RawJson / UJson for exact number tokens).
   * Throw {@link RpcError} for RPC errors; any other Error becomes -1 with its message.
   */
  handler(args: (UValue | undefined)[], ctx: RpcContext): unknown | Promise<unknown>;
}

/** src/rpc/protocol.h */
export const RPC = {
  MISC_ERROR: -1,
  TYPE_ERROR: -3,
  WALLET_ERROR: -4,
  INVALID_ADDRESS_OR_KEY: -5,
  INVALID_PARAMETER: -8,
  WALLET_NOT_FOUND: -18,
  WALLET_NOT_SPECIFIED: -19,
  DESERIALIZATION_ERROR: -22,
  VERIFY_ERROR: -25,
  VERIFY_REJECTED: -26,
  VERIFY_ALREADY_IN_CHAIN: -27,
  IN_WARMUP: -28,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INTERNAL_ERROR: -32603,
  PARSE_ERROR: -32700,
} as const;
