// The one redactor (shared/redact.ts, #27): a connection's secrets in every form an echo may quote
// them, the generic rules for anyone's credentials — and nothing else: every reply Bitcoin Core gave
// in the recordings passes through unchanged.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { makeRedactor, REDACTED, redactError, redactGeneric } from '../../shared/redact';
import { FIXTURES_DIR } from '../fixtures';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const USER = 'alice';
const PASSWORD = 'p@ss:w"rd/ü+&=x';
const PAIR = `${USER}:${PASSWORD}`;
const redact = makeRedactor({ user: USER, password: PASSWORD, authorization: `Basic ${b64(PAIR)}` });

describe('a connection’s secrets', () => {
  it.each([
    ['the password', PASSWORD],
    ['user:password', PAIR],
    ['base64 of user:password', b64(PAIR)],
    ['base64 without padding', b64(PAIR).replace(/=+$/, '')],
    ['base64url', Buffer.from(PAIR).toString('base64url')],
    ['the password URL-encoded', encodeURIComponent(PASSWORD)],
    ['user:password URL-encoded', encodeURIComponent(PAIR)],
    ['the password JSON-escaped', JSON.stringify(PASSWORD).slice(1, -1)],
  ])('%s is cut wherever it stands', (_what, form) => {
    for (const text of [form, `echo ${form}`, `${form} echo`, `a${form}b`, `x ${form} y ${form}`]) {
      const out = redact(text);
      expect(out).not.toContain(PASSWORD);
      expect(out).not.toContain(form);
      expect(out).toContain(REDACTED);
    }
  });

  it('the Authorization header keeps its scheme; the words around a secret stay', () => {
    expect(redact(`echo Basic ${b64(PAIR)} end`)).toBe(`echo Basic ${REDACTED} end`);
    expect(redact(`Bitcoin Core error -32603: echo ${PASSWORD} here`)).toBe(`Bitcoin Core error -32603: echo ${REDACTED} here`);
  });

  it('a URL with the credentials in it', () => {
    const u = new URL('http://127.0.0.1:8332/');
    u.username = USER;
    u.password = PASSWORD;
    expect(redact(`proxy ${u.href} failed`)).toBe(`proxy http://${REDACTED}@127.0.0.1:8332/ failed`);
  });

  it('a cookie: its contents, its password alone and its base64', () => {
    const hex = 'a3f1'.repeat(16);
    const cookie = makeRedactor({ cookie: `__cookie__:${hex}\n` });
    for (const form of [`__cookie__:${hex}`, hex, b64(`__cookie__:${hex}`)]) expect(cookie(`echo ${form}`)).not.toMatch(new RegExp(`${hex}|${b64(`__cookie__:${hex}`).slice(0, 20)}`));
  });

  it('user info of a URL named as secret', () => {
    const r = makeRedactor({ urls: ['http://bob:hunter2hunter2@10.0.0.1:8332/'] });
    expect(r('the password hunter2hunter2 and bob:hunter2hunter2 and ' + b64('bob:hunter2hunter2'))).not.toMatch(/hunter2|Ym9iOmh1bnRlcjJodW50ZXIy/);
  });

  it('a short password is cut where it stands as a word, not out of other words; its long forms anywhere', () => {
    const short = makeRedactor({ user: 'bob', password: 'pass', authorization: `Basic ${b64('bob:pass')}` });
    expect(short('The node sent a reply larger than its limit; bypass it')).toBe('The node sent a reply larger than its limit; bypass it');
    expect(short('echo pass | "pass" | x=pass&')).toBe(`echo ${REDACTED} | "${REDACTED}" | x=${REDACTED}&`);
    expect(short(`token${b64('bob:pass')}x and zbob:passz`)).not.toMatch(new RegExp(`${b64('bob:pass').slice(0, 6)}|bob:pass`));
  });

  it('with the user known, user:<anything> is a credential pair', () => {
    expect(makeRedactor({ user: 'alice' })('credentials alice:s3cr3t! ok')).toBe(`credentials alice:${REDACTED} ok`);
  });
});

describe('the generic rules (anyone’s credentials)', () => {
  it.each([
    ['Basic with base64 of user:pass', `Authorization Basic ${b64('gatekeeper:px-1234')}`, 'px-1234', b64('gatekeeper:px-1234')],
    ['Basic cut off', `echo Basic ${b64('gatekeeper:px-12345678').slice(0, 20)}…`, b64('gatekeeper:px-12345678').slice(0, 20)],
    ['a header line', 'authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def', 'eyJhbGciOiJIUzI1NiJ9'],
    ['a bare token', 'Authorization=sk_live_abcdefgh12345', 'sk_live_abcdefgh12345'],
    ['URL user info', 'upstream https://user:pa@ss@example.com/x', 'pa@ss', 'user:'],
    ['a cookie', 'read __cookie__:0123456789abcdef0123456789abcdef', '0123456789abcdef'],
    ['a setting', 'rpcpassword=hunter2 rpcuser=alice', 'hunter2'],
    ['JSON', '{"password":"hunter2","x":1}', 'hunter2'],
    ['bare base64 of user:pass', `token ${b64('alice:correct horse battery')} end`, b64('alice:correct horse battery')],
  ])('%s', (_what, text, ...gone) => {
    const out = redactGeneric(text);
    for (const g of gone) expect(out).not.toContain(g);
    expect(out).toContain(REDACTED);
  });

  it('words that only look like a scheme stay', () => {
    for (const text of ['Basic authentication is not enabled', 'The node rejected the RPC user name or password (HTTP 401). Check rpcuser/rpcpassword or rpcauth in bitcoin.conf.', 'Enter the RPC password.']) {
      expect(redactGeneric(text)).toBe(text);
    }
  });

  it('every reply Bitcoin Core gave in the recordings passes unchanged (hex, base64 PSBTs, addresses, error texts)', () => {
    let replies = 0;
    for (const file of ['bitcoin-core-v30.jsonl', 'bitcoin-core-v31.99-stateless.jsonl', 'bitcoin-core-spend.jsonl', 'bitcoin-core-psbt-vectors.jsonl']) {
      for (const line of readFileSync(join(FIXTURES_DIR, 'core', file), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const rec = JSON.parse(line) as { name?: string; response?: { body?: unknown } };
        const body = rec.response?.body;
        const text = typeof body === 'string' ? body : JSON.stringify(body ?? rec);
        expect(redactGeneric(text), `${file} ${rec.name ?? ''}`).toBe(text);
        replies++;
      }
    }
    expect(replies).toBeGreaterThan(500);
  });
});

describe('redactError', () => {
  it('redacts the message and every text of the detail; keeps the code, numbers and the retry hint', () => {
    const e = new AppError('rpc.error', `Bitcoin Core error -32603: echo ${PASSWORD}`, { coreCode: -32603, coreMessage: `echo ${PASSWORD}`, ok: true, none: null }, 250);
    const r = redactError(e, redact);
    expect(r).toBeInstanceOf(AppError);
    expect(r.code).toBe('rpc.error');
    expect(r.retryAfterMs).toBe(250);
    expect(r.message).toBe(`Bitcoin Core error -32603: echo ${REDACTED}`);
    expect(r.detail).toEqual({ coreCode: -32603, coreMessage: `echo ${REDACTED}`, ok: true, none: null });
    expect(JSON.stringify(r.toIpc())).not.toContain(PASSWORD);
  });

  it('an error with nothing to cut is the same object (its class and stack kept)', () => {
    class Special extends AppError {}
    const e = new Special('net.refused', 'Cannot reach the node at 127.0.0.1:8332: the connection was refused.', { host: '127.0.0.1:8332' });
    expect(redactError(e, redact)).toBe(e);
  });
});
