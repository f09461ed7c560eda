// Spyglass: the first screen's IPC calls, sent while the page is still loading — before the app's
// modules have been compiled and run (~100-200 ms later). A classic script (plain JS, copied as is
// from renderer/public/): the module graph cannot run before all of it has loaded. It only starts
// the calls; renderer/src/api/early.ts takes their replies through the same checks as any other
// call (the bridge client's, or the preload's), and drops whatever the first screen does not use.
// Same rules as the app: window.api in Electron, otherwise the loopback bridge with the token from
// the address (left there for the app to move to sessionStorage) or this tab's sessionStorage.
/* global window, location, sessionStorage, fetch, URLSearchParams */
(function () {
  'use strict';
  var path = location.hash.replace(/^#/, '').split('?')[0];
  var channels = ['connection:status', 'profiles:list', 'keychain:status'];
  // The balances rows when the app may open on them (renderer/src/api/early.ts mayOpenOnBalances).
  if (path === '' || path === '/' || path === '/balances') channels.push('watch:overview');
  // The wallet's transactions when the app opens on them (renderer/src/api/early.ts opensOnTransactions).
  if (path === '/transactions') channels.push('wallet:history');
  // A large wallet's balances come paged, the first page in the table's order: the sort the window
  // kept (renderer/src/stores/watch-prefs.ts readSort; main's default when there is none).
  var args = { 'watch:overview': { page: {} } };
  try {
    var sort = JSON.parse(window.localStorage.getItem('spyglass.balances.sort') || 'null');
    var keys = ['label', 'address', 'type', 'received', 'balance', 'utxos', 'confirmations', 'activity'];
    if (sort && keys.indexOf(sort.key) >= 0 && (sort.dir === 'asc' || sort.dir === 'desc')) {
      args['watch:overview'] = { page: { query: { sort: sort.key, dir: sort.dir, filter: '', showHidden: false } } };
    }
  } catch {
    // no storage: main's default order
  }
  var body = function (c) {
    return args[c] || {};
  };
  var calls = {};
  var kind;
  try {
    if (window.api !== undefined) {
      kind = 'ipc';
      channels.forEach(function (c) {
        calls[c] = window.api.invoke(c, body(c));
      });
    } else {
      var token = new URLSearchParams(location.search).get('bridgeToken') || sessionStorage.getItem('spyglass.bridgeToken');
      if (!token) return;
      kind = 'http';
      // Each reply is read and parsed as soon as it arrives (while the page waits for its modules),
      // into { status, statusText, json } with `json` undefined when the body was not JSON.
      var send = function (c) {
        return fetch('/ipc/' + c, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + token }, body: JSON.stringify(body(c)) }).then(function (res) {
          var reply = function (json) {
            return { status: res.status, statusText: res.statusText, json: json };
          };
          return res.json().then(reply, function () {
            return reply(undefined);
          });
        });
      };
      channels.forEach(function (c) {
        calls[c] = send(c);
      });
    }
  } catch {
    return; // the app makes the calls itself
  }
  channels.forEach(function (c) {
    calls[c].catch(function () {}); // taken (or dropped) by the app; not an unhandled rejection meanwhile
  });
  window.__spyglassEarly = { kind: kind, calls: calls };
})();
