/**
 * The size cap of every parser entry (shared/limits.ts): said in words, enforced by the IPC
 * contract in main, by the pure parsers themselves, and by what the renderer runs on a keystroke.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { channels } from '../../shared/ipc/contract';
import { describeIssues } from '../../electron/main/ipc/handlers';
import { rawTx } from '../../electron/main/send/sign-service';
import { InputTooLargeError, LIMITS, assertSize, sizeProblem, sizeText } from '../../shared/limits';
import { parseBip21 } from '../../shared/bip21';
import { parseBip329 } from '../../shared/bip329';
import { parseAddressList } from '../../shared/watchlist';
import { REGTEST } from '../../shared/bitcoin/networks';
import { importDescriptors, importWallet, isWalletText, MAX_IMPORT_CHARS } from '../../shared/wallet/index';
import { expectImportError } from '../wallet/helpers';
import { NODE } from '../wallet/vectors';

describe('caps in words', () => {
  it('sizes: characters below 10 kB, kB, then MB with one decimal', () => {
    expect([sizeText(4296), sizeText(9999), sizeText(256 * 1024), sizeText(1024 * 1024), sizeText(14.2 * 1024 * 1024), sizeText(8_000_000)]).toEqual([
      '4,296 characters',
      '9,999 characters',
      '256 kB',
      '1 MB',
      '14.2 MB',
      '7.6 MB',
    ]);
  });

  it('names the size and the cap; a size that rounds to the cap is "more than" it', () => {
    expect(sizeProblem('walletFile', 14.2 * 1024 * 1024, 'This file')).toBe('This file is 14.2 MB; wallet files are limited to 1 MB.');
    expect(sizeProblem('walletFile', MAX_IMPORT_CHARS + 1)).toBe('This text is more than 1 MB; wallet files are limited to 1 MB.');
    expect(sizeProblem('bip21', 5000, 'This link')).toBe('This link is 5,000 characters; payment requests are limited to 4,296 characters.');
    for (const kind of Object.keys(LIMITS) as (keyof typeof LIMITS)[]) {
      expect(sizeProblem(kind, LIMITS[kind].chars)).toBeNull();
      expect(sizeProblem(kind, LIMITS[kind].chars + 1)).toMatch(/limited to/);
    }
  });

  it('assertSize throws a typed input.invalid error naming the field, the reason and the cap', () => {
    expect(() => assertSize('rawTx', 'ab'.repeat(10), 'psbt')).not.toThrow();
    let err: unknown;
    try {
      assertSize('descriptor', 'x'.repeat(LIMITS.descriptor.chars + 1), 'line 3', 'This descriptor');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputTooLargeError);
    expect((err as InputTooLargeError).toIpc()).toEqual({
      code: 'input.invalid',
      message: 'This descriptor is more than 256 kB; descriptors are limited to 256 kB.',
      detail: { field: 'line 3', reason: 'too-large', limit: LIMITS.descriptor.chars },
    });
  });
});

describe('main: the IPC contract refuses an input over its cap before any handler runs', () => {
  const cases: [keyof typeof channels, string, Record<string, unknown>, number, string][] = [
    ['wallet:preview', 'text', {}, LIMITS.walletFile.chars, 'wallet files are limited to 1 MB'],
    ['watch:add', 'text', {}, LIMITS.addressList.chars, 'address lists are limited to 10 MB'],
    ['labels:preview', 'text', { rule: 'replace' }, LIMITS.labels.chars, 'label files are limited to 20 MB'],
    ['labels:import', 'text', { rule: 'replace' }, LIMITS.labels.chars, 'label files are limited to 20 MB'],
    ['psbt:review', 'psbt', {}, LIMITS.psbt.chars, 'PSBTs are limited to 20 MB'],
    ['psbt:crosscheck', 'psbt', {}, LIMITS.psbt.chars, 'PSBTs are limited to 20 MB'],
  ];
  for (const [channel, field, rest, cap, words] of cases) {
    it(`${channel}: ${words}`, () => {
      const schema = channels[channel].request as z.ZodType;
      expect(schema.safeParse({ ...rest, [field]: 'x'.repeat(cap) }).success).toBe(true);
      const r = schema.safeParse({ ...rest, [field]: 'x'.repeat(cap + 1) });
      expect(r.success).toBe(false);
      const e = describeIssues(channel, r.error!);
      expect(e.toIpc()).toEqual({ code: 'input.invalid', message: `Invalid request for ${channel}: ${field}: This text is more than ${sizeText(cap)}; ${words}.`, detail: { channel, field } });
    });
  }

  it('drafts:import: each signed PSBT text', () => {
    const schema = channels['drafts:import'].request as z.ZodType;
    const r = schema.safeParse({ texts: [{ text: 'x'.repeat(LIMITS.psbt.chars + 1), source: 'a.psbt' }] });
    expect(r.success).toBe(false);
    expect(describeIssues('drafts:import', r.error!).message).toBe('Invalid request for drafts:import: texts.0.text: This text is more than 20 MB; PSBTs are limited to 20 MB.');
  });

  it('a signed raw transaction over its own cap is refused unparsed; a PSBT in hex is not a raw transaction', () => {
    const hex = '02'.repeat(LIMITS.rawTx.chars / 2 + 1);
    expect(() => rawTx(hex)).toThrow(new InputTooLargeError('rawTx', hex.length, 'psbt', 'This transaction'));
    expect(() => rawTx(hex)).toThrow('This transaction is more than 7.6 MB; raw transactions are limited to 7.6 MB.');
    expect(rawTx('70736274ff' + '00'.repeat(LIMITS.rawTx.chars))).toBeNull();
    expect(rawTx('02'.repeat(100))).toBeNull(); // not a transaction: a typed "not a PSBT" follows
  });
});

describe('the parsers check their own cap first', () => {
  it('wallet files and each descriptor in them', () => {
    expectImportError(() => importWallet(' '.repeat(MAX_IMPORT_CHARS + 1), REGTEST), 'too-large', 'file', 'This text is more than 1 MB; wallet files are limited to 1 MB.');
    const long = `wsh(sortedmulti(2,${'0'.repeat(LIMITS.descriptor.chars)}))`;
    expectImportError(() => importDescriptors([{ text: long, field: 'line 2' }], REGTEST), 'too-large', 'line 2', 'This descriptor is more than 256 kB; descriptors are limited to 256 kB.');
    expect(() => importDescriptors([{ text: long.slice(0, LIMITS.descriptor.chars), field: 'line 2' }], REGTEST)).toThrow(/^(?!This descriptor is)/);
  });

  it('address lists, label files and payment requests', () => {
    expect(parseAddressList('x'.repeat(LIMITS.addressList.chars + 1), REGTEST).errors[0]!.message).toBe('This text is more than 10 MB; address lists are limited to 10 MB. Split it into smaller files.');
    expect(parseBip329('x'.repeat(LIMITS.labels.chars + 1), { network: REGTEST }).errors[0]!.message).toBe('This file is more than 20 MB; label files are limited to 20 MB. Split it into smaller files.');
    const uri = `bitcoin:bcrt1qxkzy87q9j58txedtpud7zg74y6ak4n3adqnk2nsgkeq5qptg44cqtr6z04?message=${'a'.repeat(LIMITS.bip21.chars)}`;
    expect(parseBip21(uri)).toEqual({ ok: false, field: 'uri', error: `This payment request is ${uri.length.toLocaleString('en-US')} characters; payment requests are limited to 4,296 characters.` });
  });
});

describe('renderer: "Add addresses" runs the wallet detection only within the wallet-file cap', () => {
  it('a descriptor is a wallet; the same text padded past 1 MB is not run through detection', () => {
    const d = NODE['caravan']!.external;
    expect(isWalletText(d)).toBe(true);
    expect(isWalletText(`${'#\n'.repeat(LIMITS.walletFile.chars / 2)}${d}`)).toBe(false);
  });
});
