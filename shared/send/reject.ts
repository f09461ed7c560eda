/**
 * Bitcoin Core's mempool reject reasons (testmempoolaccept `reject-reason` / `reject-details`,
 * sendrawtransaction's error messages) in words a person can act on, with Core's own text kept
 * beside them. Reasons from validation.cpp, policy/policy.cpp, policy/rbf.cpp and the RPC layer.
 */

interface Explained {
  /** What happened, in words. */
  words: string;
  /** What to do about it. */
  remedy: string;
}

const REASONS: Array<[RegExp, (m: RegExpExecArray, details: string) => Explained]> = [
  [/^dust$/, () => ({ words: 'An output is below the dust threshold: nodes do not relay transactions with such outputs', remedy: 'Raise that amount, or drop the output' })],
  [
    /^min relay fee not met$/,
    (_m, d) => {
      const n = /, (\d+) < (\d+)$/.exec(d);
      return {
        words: n ? `The fee (${n[1]} sat) is below the node's minimum relay fee for this size (${n[2]} sat)` : "The fee is below the node's minimum relay fee",
        remedy: 'Bump the fee (a new PSBT at a higher rate)',
      };
    },
  ],
  [/^mempool min fee not met$/, () => ({ words: "The fee rate is below what the node's full mempool accepts now", remedy: 'Bump the fee, or keep it and try again when the mempool clears' })],
  [
    /^insufficient fee$/,
    (_m, d) => ({
      words: `It replaces a transaction already in the mempool but does not pay enough more (a replacement must pay more in total, by at least the incremental relay fee)${/;\s*(.+)$/.exec(d) ? `: ${/;\s*(.+)$/.exec(d)![1]}` : ''}`,
      remedy: 'Bump the fee further',
    }),
  ],
  [/^max-fee-exceeded$/, () => ({ words: "The fee rate is above the node's maximum (maxfeerate, 0.10 BTC/kvB by default): probably a mistake", remedy: 'Check the fee; make a new PSBT at a sane rate' })],
  [/^Fee exceeds maximum configured by user/, () => ({ words: "The fee is above the node's maximum (-maxtxfee, maxfeerate): probably a mistake", remedy: 'Check the fee; make a new PSBT at a sane rate' })],
  [/^(missing-inputs|bad-txns-inputs-missingorspent)$/, () => ({ words: 'An input is already spent or unknown to the node (spent by another transaction, or its parent is not known yet)', remedy: 'Refresh your coins and compose again' })],
  [/^(txn-already-in-mempool|txn-same-nonwitness-data-in-mempool)$/, () => ({ words: 'The node already has this transaction in its mempool', remedy: 'Nothing to do: it was broadcast already' })],
  [/^(txn-already-known|Transaction outputs already in utxo set|Transaction already in block chain)$/, () => ({ words: 'This transaction is already confirmed in the block chain', remedy: 'Nothing to do' })],
  [/^txn-mempool-conflict$/, () => ({ words: 'It spends a coin that a transaction in the mempool spends too, and that one cannot be replaced', remedy: 'Wait for the other transaction, or spend other coins' })],
  [/^non-final$/, () => ({ words: 'Its locktime is in the future: the node accepts it only once the chain reaches it', remedy: 'Keep it and broadcast later, or compose with a lower locktime' })],
  [/^non-BIP68-final$/, () => ({ words: "An input's relative locktime (nSequence) is not reached yet", remedy: 'Keep it and broadcast later' })],
  [/^(mandatory|mempool|non-mandatory)-script-verify-flag-failed \((.*)\)$/, (m) => ({ words: `A signature or script does not verify: ${m[2]}`, remedy: 'Have the input signed again; check that the signer used this PSBT' })],
  [/^bad-txns-in-belowout$/, () => ({ words: 'The outputs add up to more than the inputs', remedy: 'Compose again' })],
  [/^bad-txns-premature-spend-of-coinbase$/, () => ({ words: 'It spends a coinbase output before it is 100 blocks deep', remedy: 'Wait for the coin to mature' })],
  [/^too-long-mempool-chain$/, () => ({ words: 'Too many unconfirmed ancestors or descendants in the mempool', remedy: 'Wait for a block' })],
  [/^(replacement-adds-unconfirmed|too many potential replacements|bad-txns-spends-conflicting-tx)/, (m) => ({ words: `The replacement rules refuse it (${m[1]})`, remedy: 'Bump the original transaction instead' })],
  [/^(tx-size-small|tx-size|version|scriptpubkey|scriptsig-size|scriptsig-not-pushonly|multi-op-return|datacarrier|bare-multisig|bad-witness-nonstandard|bad-txns-nonstandard-inputs)$/, (m) => ({ words: `The node's standardness policy refuses it (${m[1]})`, remedy: 'Compose it differently; this node will not relay it' })],
];

/** A reject reason (and Core's details) in words, with a remedy. */
export function explainReject(reason: string, details = ''): Explained & { core: string } {
  const core = details && details !== reason ? details : reason;
  for (const [re, f] of REASONS) {
    const m = re.exec(reason);
    if (m) return { ...f(m, details), core };
  }
  return { words: `The node refuses it: ${core}`, remedy: 'See Bitcoin Core’s reason above', core };
}

/** sendrawtransaction's error message → its reject reason (the text before the first comma, as Core writes "reason, details"). */
export function reasonOfMessage(message: string): string {
  const m = /^([a-z0-9-]+(?: [a-z0-9-]+)*(?: \([^)]*\))?)(?:,|$)/i.exec(message);
  return m ? m[1]! : message;
}
