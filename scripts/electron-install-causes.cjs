// Loaded (--require) into electron's install.js by scripts/start.mjs: install.js prints only the
// stack of a failed download ("TypeError: fetch failed"), so the reason (DNS, refused, TLS, timeout)
// is lost. This notes the causes of the last failed fetch and prints them at exit, one line each.
'use strict';
const realFetch = globalThis.fetch;
let failure = null;
globalThis.fetch = async (...args) => {
  try {
    return await realFetch(...args);
  } catch (e) {
    failure = e;
    throw e;
  }
};
process.on('exit', (code) => {
  if (code === 0 || failure === null) return;
  for (let c = failure.cause, depth = 0; c && depth < 5; c = c.cause, depth++) {
    process.stderr.write(`cause: ${c.code && !String(c.message).includes(c.code) ? `${c.code} ` : ''}${c.message ?? String(c)}\n`);
  }
});
