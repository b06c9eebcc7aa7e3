import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEMP_SUFFIX } from '../src/util/atomic.js';
import { MARKER } from '../src/build/output.js';
import { stripesGif } from '../scripts/fixtures/bad.js';
import { tempDir, writeTree, readTree } from './helpers/tmp.js';

const BIN = path.resolve('bin/pagediet.js');

/** Starts a build and kills it with SIGKILL after delayMs (or lets it finish when delayMs is null). */
function buildAndKill(input, out, delayMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'build', input, '--out', out, '--force', '--quiet', '--no-report'], { stdio: 'ignore' });
    const timer = delayMs === null ? null : setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

describe('interrupted builds', () => {
  it('never leave a partial file under a final name, whenever the build is killed', async () => {
    // Large enough that copying takes a while, so kills land in the middle of writes.
    // A page the passes rewrite and precompress, and a GIF that becomes a PNG: their new versions must be whole too.
    const files = { 'index.html': `<P>big site</P><IMG SRC="stripes.gif">${'<P>Some text that compresses well.</P>\n'.repeat(100)}`, 'stripes.gif': stripesGif() };
    let seed = crypto.createHash('sha256').update('pagediet').digest();
    for (let i = 0; i < 24; i++) {
      const chunks = [];
      for (let k = 0; k < 1024; k++) {
        seed = crypto.createHash('sha256').update(seed).digest();
        chunks.push(Buffer.alloc(2048, seed));
      }
      files[`data/blob-${String(i).padStart(2, '0')}.bin`] = Buffer.concat(chunks);
    }
    const input = await writeTree(await tempDir(), files);
    const source = await readTree(input);
    const digest = (tree) => new Map([...tree].map(([name, bytes]) => [name, crypto.createHash('sha256').update(bytes).digest('hex')]));
    const out = path.join(await tempDir(), 'out');

    const started = Date.now();
    expect(await buildAndKill(input, out, null)).toEqual({ code: 0, signal: null });
    const fullMs = Date.now() - started;
    // A complete build's files: the page and PNG it rewrote, its sidecars and server configs. Every file a killed
    // build leaves must be one of these or the input's, byte for byte.
    const complete = await readTree(out);
    complete.delete(MARKER);
    expect(['index.html.gz', 'index.html.br'].every((n) => complete.has(n))).toBe(true);
    // The PNG, under its content hash (hash-names).
    expect([...complete.keys()].filter((n) => /^stripes\.[0-9a-f]{8,64}\.png$/.test(n))).toHaveLength(1);
    expect(complete.get('index.html')?.equals(source.get('index.html'))).toBe(false);
    // The server configs go beside the output, never into it.
    expect([...complete.keys()].filter((n) => n.includes('configs') || n.endsWith('.conf')).length).toBe(0);
    expect((await fs.readdir(`${out}-configs`)).length).toBeGreaterThan(0);
    await fs.rm(out, { recursive: true });

    let killed = 0;
    for (let attempt = 0; attempt < 10; attempt++) {
      const delay = Math.round((fullMs * (attempt + 0.5)) / 10);
      const result = await buildAndKill(input, out, delay);
      if (result.signal === 'SIGKILL') killed++;
      let written;
      try {
        written = await readTree(out);
      } catch {
        continue; // killed before the output directory existed
      }
      for (const [name, bytes] of written) {
        if (name.endsWith(TEMP_SUFFIX) || name === MARKER) continue;
        expect(source.has(name) || complete.has(name), `${name} is a file of the input or of a complete build`).toBe(true);
        expect(Boolean(source.get(name)?.equals(bytes) || complete.get(name)?.equals(bytes)), `${name} is whole`).toBe(true);
      }
    }
    expect(killed).toBeGreaterThan(0);

    // The next complete run clears what killed runs left behind.
    expect(await buildAndKill(input, out, null)).toEqual({ code: 0, signal: null });
    const final = await readTree(out);
    expect([...final.keys()].filter((n) => n.endsWith(TEMP_SUFFIX))).toEqual([]);
    final.delete(MARKER);
    expect(digest(final)).toEqual(digest(complete));
  }, 240_000);

  it.each([['SIGTERM', 143], ['SIGINT', 130], ['SIGHUP', 129]])('a build ended by %s exits with %i and leaves no scratch directory', async (signal, code) => {
    const files = { 'index.html': `<P>a page</P>${'<P>Some text that compresses well.</P>\n'.repeat(2000)}` };
    for (let i = 0; i < 40; i++) files[`page-${i}.html`] = `<P>page ${i}</P>${'<P>More text.</P>\n'.repeat(2000)}`;
    const input = await writeTree(await tempDir(), files);
    const out = path.join(await tempDir(), 'out');
    // Its own temporary directory, so what the build leaves there can be seen; with a budget of 0 every file
    // waits on disk, so the scratch directory exists from the first file read.
    const tmp = await tempDir();
    const child = spawn(process.execPath, [BIN, 'build', input, '--out', out, '--quiet', '--no-report', '--memory-budget', '0'], { stdio: 'ignore', env: { ...process.env, TMPDIR: tmp } });
    const exited = new Promise((resolve) => child.on('exit', (exitCode, exitSignal) => resolve({ exitCode, exitSignal })));
    let scratch = [];
    while (!scratch.length) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      scratch = (await fs.readdir(tmp)).filter((n) => n.startsWith('pagediet-scratch-'));
    }
    child.kill(signal);
    expect(await exited).toEqual({ exitCode: code, exitSignal: null });
    expect(await fs.readdir(tmp)).toEqual([]);
  });
});
