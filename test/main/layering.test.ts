// The import-boundary rules of eslint.config.js, exercised on code that breaks them.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function messages(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: file });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering lint', () => {
  it.each([
    ['renderer/src/x.ts', "import { createApp } from '../../electron/main/app';\nvoid createApp;\n", 'never electron/'],
    ['renderer/src/x.ts', "import { readFileSync } from 'node:fs';\nvoid readFileSync;\n", 'no Node or Electron'],
    ['renderer/src/x.ts', "import { ipcRenderer } from 'electron';\nvoid ipcRenderer;\n", 'no Node or Electron'],
    ['shared/x.ts', "import { readFileSync } from 'node:fs';\nvoid readFileSync;\n", 'no Node modules'],
    ['shared/x.ts', "import { x } from '../renderer/src/x';\nvoid x;\n", 'never imports another layer'],
    ['electron/main/x.ts', "import { app } from 'electron';\nvoid app;\n", "Only electron/main/index.ts imports 'electron'"],
    ['electron/main/x.ts', "import { startDevnet } from '../../devnet/index';\nvoid startDevnet;\n", 'Only electron/main/demo.ts'],
    ['electron/preload/x.ts', "import { channels } from '../../shared/ipc/contract';\nvoid channels;\n", 'imports only shared/ipc/names'],
    ['devnet/x.ts', "import { x } from '../electron/main/app';\nvoid x;\n", 'devnet/ imports shared/ only'],
  ])('%s: %s is refused', async (file, code, expected) => {
    const msgs = await messages(file, code);
    expect(msgs.join('\n')).toContain(expected);
  });

  it.each([
    ['renderer/src/x.ts', "import { channels } from '../../shared/ipc/contract';\nvoid channels;\n"],
    ['electron/main/index.ts', "import { app } from 'electron';\nvoid app;\n"],
    ['electron/main/x.ts', "import { readFileSync } from 'node:fs';\nvoid readFileSync;\n"],
    ['electron/preload/x.ts', "import { contextBridge } from 'electron';\nvoid contextBridge;\n"],
  ])('%s may import what its layer allows', async (file, code) => {
    expect(await messages(file, code)).toEqual([]);
  });
});
