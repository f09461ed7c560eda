// One id per device request, so that Cancel (signer:cancel) can stop the program still waiting for a button.
let n = 0;
export const newSignerOp = (): string => `op-${Date.now().toString(36)}-${(n++).toString(36)}`;
