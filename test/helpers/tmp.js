import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Creates a temporary directory and returns its real path. */
export async function tempDir(prefix = 'pagediet-test-') {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
}

/**
 * Writes a tree of files: { 'a/b.html': '...' | Buffer }.
 * @param {string} root
 * @param {Record<string, string | Buffer>} files
 */
export async function writeTree(root, files) {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
  }
  return root;
}

/**
 * Every file under a directory with its bytes, by relative path.
 * @param {string} root
 * @returns {Promise<Map<string, Buffer>>}
 */
export async function readTree(root) {
  const out = new Map();
  for (const entry of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    out.set(path.relative(root, abs).split(path.sep).join('/'), await fs.readFile(abs));
  }
  return out;
}
