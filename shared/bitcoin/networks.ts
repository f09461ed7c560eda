/** Address networks as plain data (passed as arguments, never global state). */
export interface Network {
  /** Core's chain name: main | test | testnet4 | signet | regtest */
  readonly chain: 'main' | 'test' | 'testnet4' | 'signet' | 'regtest';
  readonly bech32: string;
  readonly pubKeyHash: number;
  readonly scriptHash: number;
  readonly wif: number;
  /** BIP32 version bytes of extended public / private keys. */
  readonly bip32: { readonly public: number; readonly private: number };
}

export const MAINNET: Network = {
  chain: 'main',
  bech32: 'bc',
  pubKeyHash: 0x00,
  scriptHash: 0x05,
  wif: 0x80,
  bip32: { public: 0x0488b21e, private: 0x0488ade4 },
};

export const TESTNET: Network = {
  chain: 'test',
  bech32: 'tb',
  pubKeyHash: 0x6f,
  scriptHash: 0xc4,
  wif: 0xef,
  bip32: { public: 0x043587cf, private: 0x04358394 },
};

export const TESTNET4: Network = { ...TESTNET, chain: 'testnet4' };
export const SIGNET: Network = { ...TESTNET, chain: 'signet' };
export const REGTEST: Network = { ...TESTNET, chain: 'regtest', bech32: 'bcrt' };

export const NETWORKS: Record<Network['chain'], Network> = {
  main: MAINNET,
  test: TESTNET,
  testnet4: TESTNET4,
  signet: SIGNET,
  regtest: REGTEST,
};
