/**
 * `spyglass` (#31) against the devnet: the round trip (spyglass-suite.ts), then every command's bad
 * input — exit code, a one-line reason, and nothing changed. The keychain is the real one of the
 * test's keyring session (scripts/with-keyring.sh); the node going down is the devnet's RPC fault.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDevnetPayer } from '../support/payer-node';
import { defineRoundTrip } from './spyglass-suite';
import { expectCode, reason, type CliRun } from './spyglass-run';

describe('spyglass against the devnet', () => {
  let setDown: (down: boolean) => void = () => undefined;
  const trip = defineRoundTrip(async () => {
    const n = await startDevnetPayer('cli-pw');
    setDown = n.setDown;
    return n;
  });

  const refused = (r: CliRun, code: 1 | 2, what: string, pattern: RegExp) => {
    expectCode(r, code, what);
    expect(reason(r), what).toMatch(pattern);
    expect(r.stdout, what).toBe('');
  };

  describe('the other commands, on the wallet of the round trip', () => {
    it('addresses, address, reconcile, wallet export, wallet rescan', async () => {
      const { run, walletName } = trip.get();
      const all = expectCode(await run(['addresses', '--json']), 0, 'addresses').json<{ addresses: Array<{ address: string; receivedTxCount: number | null }>; snapshot: { id: number } }>();
      const used = all.addresses.filter((a) => (a.receivedTxCount ?? 0) > 0);
      expect(used.length).toBeGreaterThan(0);
      const unused = expectCode(await run(['addresses', '--unused', '--json']), 0, 'addresses --unused').json<{ addresses: Array<{ address: string }> }>();
      expect(unused.addresses.map((a) => a.address)).not.toContain(used[0]!.address);
      const one = expectCode(await run(['address', used[0]!.address, '--json']), 0, 'address').json<{ address: string; type: string }>();
      expect(one).toMatchObject({ address: used[0]!.address, type: 'p2wpkh' });
      refused(await run(['address', 'notanaddress']), 2, 'address unknown', /not a watched address/);
      const rec = expectCode(await run(['reconcile', '--json']), 0, 'reconcile').json<{ issues: unknown[]; snapshotTakenAt: string | null }>();
      expect(rec.snapshotTakenAt).not.toBeNull();
      const desc = expectCode(await run(['wallet', 'export', '--json']), 0, 'wallet export').json<{ walletName: string; external: string; internal: string; text: string }>();
      expect(desc).toMatchObject({ walletName, external: expect.stringMatching(/^wpkh\(/), internal: expect.stringMatching(/^wpkh\(/) });
      expect((await run(['wallet', 'export', '--bsms'])).stdout).toMatch(/^BSMS 1\.0\n/);
      expect(expectCode(await run(['wallet', 'rescan']), 0, 'wallet rescan').stdout).toContain('nothing to run');
    });

    it('labels: export, import (dry run changes nothing), a bad file changes nothing (exit 2)', async () => {
      const { run, dir } = trip.get();
      const before = expectCode(await run(['labels', 'export']), 0, 'labels export').stdout;
      expect(before).toContain('"label":"from the payer"');
      const file = join(dir, 'labels.jsonl');
      writeFileSync(file, '{"type":"tx","ref":"' + 'ab'.repeat(32) + '","label":"imported by a script"}\n');
      const dry = expectCode(await run(['labels', 'import', file, '--dry-run', '--json']), 0, 'labels import --dry-run').json<{ added: number }>();
      expect(dry.added).toBe(1);
      expect((await run(['labels', 'export'])).stdout).toBe(before);
      expect(expectCode(await run(['labels', 'import', file, '--json']), 0, 'labels import').json<{ added: number }>().added).toBe(1);
      const after = (await run(['labels', 'export'])).stdout;
      expect(after).toContain('imported by a script');
      writeFileSync(file, '{"type":"tx","ref":"' + 'cd'.repeat(32) + '","label":"fine"}\nnot json at all\n');
      refused(await run(['labels', 'import', file]), 2, 'labels garbage', /nothing imported: line 2/);
      refused(await run(['labels', 'import', file, '--merge', 'sometimes']), 2, 'labels merge rule', /--merge is replace, keep-existing, fill-empty/);
      expect((await run(['labels', 'export'])).stdout).toBe(after);
    });

    it('a profile whose password is kept for the session only: SPYGLASS_RPC_PASSWORD each run; use, test, remove', async () => {
      const { run, node } = trip.get();
      const env = { SPYGLASS_RPC_PASSWORD: node.password };
      const added = expectCode(await run(['profile', 'add', '--name', 'session', '--node-url', node.rpcUrl, '--user', node.user, '--remember', 'session', '--json'], { env }), 0, 'profile add session').json<{ profile: { id: string; passwordStorage: string } }>();
      expect(added.profile.passwordStorage).toBe('session');
      refused(await run(['profile', 'test', 'session'], { env: { SPYGLASS_RPC_PASSWORD: undefined } }), 1, 'no password this run', /not in the keychain: give it in SPYGLASS_RPC_PASSWORD/);
      refused(await run(['refresh'], { env: { SPYGLASS_RPC_PASSWORD: undefined } }), 1, 'refresh without the password', /not in the keychain/);
      expect(expectCode(await run(['profile', 'test', 'session', '--json'], { env }), 0, 'profile test').json<{ network: string }>().network).toBe('regtest');
      expect(expectCode(await run(['profile', 'use', 'node', '--json']), 0, 'profile use').json<{ state: string }>().state).toBe('connected');
      expectCode(await run(['profile', 'remove', 'session']), 0, 'profile remove');
      const list = (await run(['profile', 'list', '--json'])).json<{ profiles: Array<{ name: string; id: string }>; activeId: string }>();
      expect(list.profiles.map((p) => p.name)).toEqual(['node']);
      expect(list.activeId).toBe(list.profiles[0]!.id);
      refused(await run(['profile', 'remove', 'session']), 2, 'remove again', /no profile "session"/);
    });
  });

  describe('bad input: exit code, one-line reason, nothing changed', () => {
    it('usage: no command, an unknown command or option, a missing value (exit 2); --help for each command', async () => {
      const { run } = trip.get();
      expect((await run([])).code).toBe(2);
      refused(await run(['frobnicate']), 2, 'unknown command', /unknown command "frobnicate"/);
      refused(await run(['balances', '--frob']), 2, 'unknown option', /unknown option --frob/);
      refused(await run(['send', 'preview', '--fee-rate']), 2, 'missing value', /--fee-rate needs a value/);
      refused(await run(['wallet']), 2, 'group without subcommand', /wallet needs one of: import, list/);
      const help = expectCode(await run(['drafts', 'broadcast', '--help']), 0, 'help');
      expect(help.stdout).toMatch(/^usage: spyglass drafts broadcast <draft> \[--yes\]/);
      expect(help.stdout).toContain('exit codes: 0 done, 1 refused');
    });

    it('wrong password: profile add refuses and saves nothing; a password as an argument is refused', async () => {
      const { run, node } = trip.get();
      const before = (await run(['profile', 'list', '--json'])).json<{ profiles: unknown[]; activeId: string }>();
      refused(await run(['profile', 'add', '--name', 'wrong', '--node-url', node.rpcUrl, '--user', node.user, '--password-stdin'], { stdin: 'not-the-password\n' }), 1, 'wrong password', /rejected the RPC user name or password/);
      refused(await run(['profile', 'add', '--name', 'argv', '--node-url', node.rpcUrl, '--user', node.user, '--password', 'x']), 2, 'password argument', /unknown option --password/);
      refused(await run(['profile', 'add', '--name', 'nopw', '--node-url', node.rpcUrl, '--user', node.user], { env: { SPYGLASS_RPC_PASSWORD: undefined } }), 2, 'no password', /--password-stdin, or in SPYGLASS_RPC_PASSWORD/);
      refused(await run(['profile', 'use', 'nobody']), 2, 'unknown profile', /no profile "nobody"/);
      expect((await run(['profile', 'list', '--json'])).json()).toEqual(before);
    });

    it('unknown wallet: wallet use and wallet attach refuse, the wallet watched stays', async () => {
      const { run, walletName } = trip.get();
      refused(await run(['wallet', 'use', 'no-such-wallet']), 2, 'wallet use', /no wallet "no-such-wallet"/);
      const attach = await run(['wallet', 'attach', 'no-such-wallet']);
      expect(attach.code, attach.stderr).not.toBe(0);
      expect(reason(attach)).toMatch(/no-such-wallet/);
      const list = (await run(['wallet', 'list', '--json'])).json<{ wallets: Array<{ name: string; active: boolean }> }>();
      expect(list.wallets.find((w) => w.active)?.name).toBe(walletName);
      expect(list.wallets.map((w) => w.name)).not.toContain('no-such-wallet');
      refused(await run(['wallet', 'import', 'not a descriptor at all', '--name', 'x']), 2, 'wallet import garbage', /.+/);
    });

    it('bad address, amount over the balance, a bad fee rate: nothing built, no draft saved', async () => {
      const { run, payTo } = trip.get();
      const drafts = () => run(['drafts', 'list', '--json']).then((r) => r.json<{ drafts: unknown[] }>().drafts.length);
      const before = await drafts();
      refused(await run(['send', 'create', '--to', 'bcrt1qnotanaddress=0.1', '--fee-rate', '2']), 2, 'bad address', /recipient 1 address/);
      refused(await run(['send', 'create', '--to', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq=0.1', '--fee-rate', '2']), 2, 'mainnet address', /mainnet address/);
      refused(await run(['send', 'create', '--to', `${payTo}=5000`, '--fee-rate', '2']), 2, 'over the balance', /recipient 1 amount: .*can be sent/);
      refused(await run(['send', 'preview', '--to', `${payTo}=0.1`, '--fee-rate', '0']), 2, 'fee rate 0', /feeRate/);
      refused(await run(['send', 'create', '--to', `${payTo}`, '--fee-rate', '2']), 2, 'no amount', /write ADDRESS=AMOUNT/);
      refused(await run(['send', 'create', '--to', `${payTo}=0.1`, '--fee-rate', '2', '--seed', '7', '--expect-txid', '00'.repeat(32)]), 1, 'another txid', /not the previewed 0{64}/);
      expect(await drafts()).toBe(before);
    });

    it('garbage PSBT: review, drafts import and a draft that does not exist refuse; drafts unchanged', async () => {
      const { run } = trip.get();
      const before = (await run(['drafts', 'list', '--json'])).json();
      refused(await run(['review', 'cHNidP8BAgarbage']), 2, 'review garbage', /.+/);
      refused(await run(['review', './no-such.psbt']), 2, 'review missing file', /no such file/);
      refused(await run(['drafts', 'import', 'cHNidP8BAgarbage']), 2, 'import garbage', /cannot be read|Not a PSBT or a signed transaction/);
      refused(await run(['drafts', 'finalize', 'd_nosuchdraft']), 2, 'unknown draft', /no draft "d_nosuchdraft"/);
      expect((await run(['drafts', 'list', '--json'])).json()).toEqual(before);
    });

    it('review exits 1 when a warning of severity danger is present (a fee rate above the limit)', async () => {
      const { run, payTo } = trip.get();
      const created = expectCode(await run(['send', 'create', '--to', `${payTo}=0.01`, '--fee-rate', '1500', '--psbt-version', '0', '--json']), 0, 'send create').json<{ exported: { base64: string } }>();
      const r = await run(['review', created.exported.base64, '--json']);
      expectCode(r, 1, 'review danger');
      const v = r.json<{ danger: boolean; warnings: Array<{ code: string; severity: string }> }>();
      expect(v.danger).toBe(true);
      expect(v.warnings).toContainEqual(expect.objectContaining({ code: 'fee-rate-high', severity: 'danger' }));
    });

    it('node down: refresh, send and profile test refuse with the reason; the snapshot and balances stay (offline)', async () => {
      const { run, payTo } = trip.get();
      const before = (await run(['balances', '--json'])).json<{ totals: unknown; snapshot: { id: number } }>();
      setDown(true);
      try {
        refused(await run(['refresh']), 1, 'refresh', /connection to the node failed/);
        refused(await run(['send', 'preview', '--to', `${payTo}=0.1`, '--fee-rate', '2']), 1, 'send preview', /connection to the node failed/);
        refused(await run(['profile', 'test']), 1, 'profile test', /.+/);
        const offline = expectCode(await run(['balances', '--json']), 0, 'balances offline').json<{ offline: boolean; totals: unknown; snapshot: { id: number } }>();
        expect(offline).toMatchObject({ offline: true, totals: before.totals, snapshot: { id: before.snapshot.id } });
      } finally {
        setDown(false);
      }
    });
  });
});
