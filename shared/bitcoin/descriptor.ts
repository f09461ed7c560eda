/**
 * Output descriptors (port of the parts of Bitcoin Core v30 src/script/descriptor.cpp a
 * watch-only wallet imports): pk, pkh, wpkh, multi, sortedmulti, sh, wsh, tr with script trees
 * (leaves: pk, multi_a, sortedmulti_a, miniscript), rawtr, addr, raw, and miniscript in wsh() (see
 * shared/bitcoin/miniscript/); key expressions with hex keys (x-only in tr/rawtr), WIF, xpub/tpub and
 * xprv/tprv (public keys are derived; private keys are never printed), `[fingerprint/path]`
 * origins with ' or h, `/path`, `/*`, `/*'`/`/*h` and `<a;b>` multipath.
 *
 * Plus the RPC helpers getdescriptorinfo and deriveaddresses (src/rpc/output_script.cpp).
 *
 * Not ported: combo(), musig().
 *
 * The code lives in shared/bitcoin/descriptor/ (helpers, types, keys, parse, build, api); this file
 * re-exports its public surface so existing imports keep working.
 */
export { writeHDKeypath } from './descriptor/helpers';
export { DescriptorRpcError, type ExpandedKey, type Expansion, type KeyOriginInfo } from './descriptor/types';
export {
  Descriptor,
  deriveAddresses,
  getDescriptorChecksum,
  getDescriptorInfo,
  parseDescriptor,
  parseDescriptorRange,
  type DescriptorInfo,
  type ExpansionWithProvider,
} from './descriptor/api';
