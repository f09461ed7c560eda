// The main process log: one line per event, to a file in the app's data folder. Only channel names,
// error codes and messages are written — messages are built without secrets (see shared/errors.ts);
// request payloads are never logged.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export function fileLogger(file: string, echo = false): Logger {
  mkdirSync(dirname(file), { recursive: true });
  const write = (level: string, msg: string): void => {
    const line = `${new Date().toISOString()} ${level} ${msg.replace(/[\r\n]+/g, ' ')}\n`;
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
