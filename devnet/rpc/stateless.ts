/**
 * Node-level methods that need no chain or wallet state: `createrawtransaction`, `decodepsbt`.
 * They answer on `/` and on any `/wallet/<name>` path, like Core.
 */
import { RawJson, U_NULL } from '../../shared/json';
import type { Network } from '../../shared/bitcoin/networks';
import { createRawTransaction } from '../../shared/bitcoin/createrawtransaction';
import { decodePsbtJson } from '../../shared/bitcoin/psbt';
import { decodeRawTransaction } from '../../shared/bitcoin/decode';
import { RpcError, type RpcMethodSpec } from './types';
import { HELP_CREATERAWTRANSACTION, HELP_DECODEPSBT } from './help';
import { getBool, getStr } from './args';
import { psbtGeneration, type CoreVersion } from '../core-version';

export { HELP_CREATERAWTRANSACTION, HELP_DECODEPSBT, HELP_GETADDRESSINFO } from './help';

export function createRawTransactionMethod(network: Network): RpcMethodSpec {
  return {
    name: 'createrawtransaction',
    args: [
      { name: 'inputs', type: 'arr', required: true },
      // Core declares ARR with skip_type_check: an object (dictionary form) is accepted too.
      { name: 'outputs', type: 'any', required: true },
      { name: 'locktime', type: 'num', required: false },
      { name: 'replaceable', type: 'bool', required: false },
      { name: 'version', type: 'num', required: false },
    ],
    help: HELP_CREATERAWTRANSACTION,
    handler(args) {
      const [inputs, outputs, locktime, replaceable, version] = args;
      const res = createRawTransaction(
        { inputs: inputs ?? U_NULL, outputs: outputs ?? U_NULL, locktime, replaceable, version },
        network,
      );
      if (!res.ok) throw new RpcError(res.code, res.message);
      return res.hex;
    },
  };
}

/**
 * decodepsbt as the given generation answers it. The generations differ in PSBT version 2 and in the
 * decode error texts (../shared/fixtures/core/README.md); the shared decoder reads as either.
 */
export function decodePsbtMethod(network: Network, coreVersion: CoreVersion = '31.99'): RpcMethodSpec {
  const opts = { coreVersion: psbtGeneration(coreVersion) };
  return {
    name: 'decodepsbt',
    args: [{ name: 'psbt', type: 'str', required: true }],
    help: HELP_DECODEPSBT,
    handler([psbt]) {
      // The decoder writes the reply text itself: a 1,000-input PSBT's reply can be tens of MB.
      const res = decodePsbtJson(getStr(psbt), network, opts);
      if (!res.ok) throw new RpcError(res.code, res.message);
      return new RawJson(res.json);
    },
  };
}

export function decodeRawTransactionMethod(network: Network): RpcMethodSpec {
  return {
    name: 'decoderawtransaction',
    args: [
      { name: 'hexstring', type: 'str_hex', required: true },
      { name: 'iswitness', type: 'bool', required: false },
    ],
    help: 'decoderawtransaction "hexstring" ( iswitness )\n\nReturn a JSON object representing the serialized, hex-encoded transaction.\n',
    handler([hex, iswitness]) {
      const res = decodeRawTransaction(getStr(hex), network, iswitness === undefined ? undefined : getBool(iswitness));
      if (!res.ok) throw new RpcError(res.code, res.message);
      return res.result;
    },
  };
}

/** Every stateless method, for RpcServer's `methods`, as `coreVersion` answers them (default current Core). */
export function statelessMethods(network: Network, coreVersion: CoreVersion = '31.99'): RpcMethodSpec[] {
  return [createRawTransactionMethod(network), decodePsbtMethod(network, coreVersion), decodeRawTransactionMethod(network)];
}
