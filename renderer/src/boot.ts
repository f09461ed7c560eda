// Imported first by main.ts, so that this runs before any other module of the renderer is evaluated:
// the first screen's IPC calls go out now, while Vue, the router and the views load and mount.
import { startEarlyCalls } from './api/early';

startEarlyCalls(typeof location === 'undefined' ? '' : location.hash);
