// Whose index is it (shared/index-privacy.ts): the host alone decides, and the once-per-URL notice on mainnet.
import { describe, expect, it } from 'vitest';
import { indexHostKind, indexNoticeDue } from '../../shared/index-privacy';

describe('indexHostKind', () => {
  it.each([
    ['http://127.0.0.1:8000', 'this-computer'],
    ['http://127.5.6.7', 'this-computer'],
    ['http://localhost:3000', 'this-computer'],
    ['http://LOCALHOST.:3000/v1', 'this-computer'],
    ['http://index.localhost', 'this-computer'],
    ['http://[::1]:8000', 'this-computer'],
    ['http://[::ffff:127.0.0.1]', 'this-computer'],
    ['http://192.168.1.20:8000', 'local-network'],
    ['http://10.0.0.5', 'local-network'],
    ['http://172.16.0.1', 'local-network'],
    ['http://172.31.255.1', 'local-network'],
    ['http://169.254.3.4', 'local-network'],
    ['http://100.100.1.1', 'local-network'], // CGNAT range: Tailscale and friends
    ['http://[fd12:3456::1]:8000', 'local-network'],
    ['http://[fe80::1]', 'local-network'],
    ['http://umbrel.local:3006', 'local-network'],
    ['http://node.home.arpa', 'local-network'],
    ['http://mynode', 'local-network'],
    ['https://api.bitaps.com', 'third-party'],
    ['http://172.32.0.1', 'third-party'],
    ['http://8.8.8.8', 'third-party'],
    ['http://[2001:db8::1]', 'third-party'],
    ['http://abcdefghijklmnop.onion', 'third-party'],
    ['http://127.0.0.1.example.com', 'third-party'],
    ['not a url', 'third-party'],
  ])('%s → %s', (url, kind) => {
    expect(indexHostKind(url)).toBe(kind);
  });
});

describe('indexNoticeDue', () => {
  const remote = 'https://index.example.com';
  it('on mainnet, for a third-party index not acknowledged yet', () => {
    expect(indexNoticeDue({ network: 'mainnet', indexUrl: remote, acknowledgedUrl: '' })).toBe(true);
  });
  it('once: not after it was acknowledged for that URL; again for another URL', () => {
    expect(indexNoticeDue({ network: 'mainnet', indexUrl: remote, acknowledgedUrl: remote })).toBe(false);
    expect(indexNoticeDue({ network: 'mainnet', indexUrl: 'https://other.example.org', acknowledgedUrl: remote })).toBe(true);
  });
  it('not on test networks, not for an own index, not without one', () => {
    expect(indexNoticeDue({ network: 'testnet', indexUrl: remote, acknowledgedUrl: '' })).toBe(false);
    expect(indexNoticeDue({ network: 'regtest', indexUrl: remote, acknowledgedUrl: '' })).toBe(false);
    expect(indexNoticeDue({ network: 'mainnet', indexUrl: 'http://192.168.1.5:8000', acknowledgedUrl: '' })).toBe(false);
    expect(indexNoticeDue({ network: 'mainnet', indexUrl: '', acknowledgedUrl: '' })).toBe(false);
  });
});
