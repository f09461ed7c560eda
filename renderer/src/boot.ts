// Imported first by main.ts, so that this runs before any other module of the renderer is evaluated:
// the first screen's IPC calls go out now, while Vue, the router and the views load and mount.
import { opensOnTransactions, startEarlyCalls } from './api/early';

const hash = typeof location === 'undefined' ? '' : location.hash;
startEarlyCalls(hash);
// Opening on Transactions (its own chunk, router.ts): the chunk is fetched now, beside the app's
// evaluation and the router's first wait, instead of once the first navigation has resolved it
// (the same import(), so the router takes this module; `npm run bench -- history`).
if (opensOnTransactions(hash)) void import('./views/TransactionsView.vue').catch(() => undefined);
