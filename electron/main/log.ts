// The main process log: one line per event, to a file in the app's data folder. Only channel names,
// error codes and messages are written — messages are built without secrets (see shared/errors.ts;
// the node's and the index's texts are redacted where they enter, shared/redact.ts); request payloads
// are never logged. Each line passes the generic redactor once more: a credential-shaped text
// (`Basic …`, user:pass@ in a URL, a cookie…) that got into a message anyway is cut here.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { redactGeneric } from '../../shared/redact';

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export function fileLogger(file: string, echo = false): Logger {
  mkdirSync(dirname(file), { recursive: true });
  const write = (level: string, msg: string): void => {
    const line = `${new Date().toISOString()} ${level} ${redactGeneric(msg.replace(/[\r\n]+/g, ' '))}\n`;
    try {
      appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // A full disk must not take the app down; the line is lost.
    }
    if (echo) process.stderr.write(line);
  };
  return { info: (m) => write('INFO', m), warn: (m) => write('WARN', m), error: (m) => write('ERROR', m) };
}

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
