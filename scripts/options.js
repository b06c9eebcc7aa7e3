/**
 * Writes what comes from the option table: src/options/build-options.js (the
 * API's types) and the README's table of build options.
 */
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { PASSES } from '../src/passes/index.js';
import { COMMAND_LINE_ONLY, COMMAND_OPTIONS } from '../src/cli/config-file.js';
import { buildOptionsModule, withOptionRows } from '../src/options/reference.js';

const root = fileURLToPath(new URL('..', import.meta.url));
await fs.writeFile(`${root}src/options/build-options.js`, buildOptionsModule(PASSES));
const readme = `${root}README.md`;
await fs.writeFile(readme, withOptionRows(await fs.readFile(readme, 'utf8'), PASSES, { ...COMMAND_OPTIONS, ...COMMAND_LINE_ONLY }));
console.log('wrote src/options/build-options.js and the README\'s option tables');
