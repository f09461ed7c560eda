/**
 * decodepsbt lines of ../shared/fixtures/core/bitcoin-core-v31.99-stateless.jsonl the devnet cannot
 * answer as 31.99 yet: pending the v2 decoder (#14). The shared decoder (shared/bitcoin/psbt*) is being
 * taught PSBT version 2 and the newer decode error texts; until it takes the generation, the devnet
 * decodes as v30 in both modes, and these replies keep v30's texts. The replay tests list them as
 * `it.todo`, the live comparison (bitcoind-parity) prints them as pending, and both fail when one of
 * them starts to pass — then it leaves this list. This is the only such list.
 */
export const PENDING_V2_DECODER: ReadonlySet<string> = new Set([
  'empty string', // SpanReader::read(): end of data (v30: DataStream::read())
  'magic then garbage', // idem
  'core vector invalid 2', // Duplicate Key, input key "00" already provided
  'core vector invalid 3', // Size of key was not 1 for the type Input Witness UTXO
  'core vector invalid 4', // Size of key was not 1 for the type Input redeemScript
  'core vector invalid 6', // Size of key was not 1 for the type Input Final scriptSig
  'core vector invalid 8', // Size of key was not 1 for the type Output redeemScript
  'core vector invalid 10', // Duplicate Key, output key "01" already provided
  'core vector invalid 11', // Duplicate Key, input key "01" already provided
  'core vector invalid 12', // Duplicate Key, input key "04" already provided
  'core vector invalid 13', // Duplicate Key, input key "07" already provided
  'core vector invalid 17', // Size of key was not 65 for the type Input Taproot Script Path Signature
  'core vector invalid_with_msg 1', // Size of key was not 34 for the type Input MuSig2 Participants Pubkeys
  'core vector invalid_with_msg 2', // Size of key was not 34 for the type Output MuSig2 Participants Pubkeys
]);
