// Every message code a build can give has its severity and its group's text
// in one table (src/build/messages.js).
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MESSAGE_CODES, messageCode } from '../src/build/messages.js';

/** Every .js file under a folder. @param {string} dir @returns {Promise<string[]>} */
async function sources(dir) {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => path.join(e.parentPath, e.name));
}

describe('message codes', () => {
  it('name every code src/ warns with', async () => {
    /** @type {Set<string>} */
    const used = new Set();
    for (const file of await sources('src')) {
      const text = await fs.readFile(file, 'utf8');
      for (const m of text.matchAll(/\bwarn\(\s*[^,()]+(?:\([^()]*\))?,\s*'([a-z0-9-]+)'/g)) used.add(m[1]);
      // Codes refusals carry to a warning (svg/checks.js, markup/minify-css.js, css.js's WARNED).
      for (const m of text.matchAll(/code: '([a-z0-9-]+)'[^}]*warn: true/g)) used.add(m[1]);
    }
    for (const status of ['missing', 'escapes', 'invalid', 'ambiguous']) used.add(`reference-${status}`);
    for (const reason of ['unreadable', 'broken-link', 'outside-root', 'special']) used.add(`skipped-${reason}`);
    expect(used.size).toBeGreaterThan(40);
    expect([...used].filter((code) => !Object.hasOwn(MESSAGE_CODES, code))).toEqual([]);
  });

  it('give a code of a pass of the user\'s the severity of a warning', () => {
    expect(messageCode('my-own-code')).toEqual({ severity: 'warning', about: 'my-own-code' });
    expect(messageCode('markup-repaired')).toEqual({ severity: 'info', about: 'markup browsers repair' });
  });
});
