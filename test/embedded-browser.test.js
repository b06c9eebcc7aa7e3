/**
 * Unpacking the embedded browser: once, atomically, and again when the
 * unpack is damaged. A small package of the same layout stands in for the
 * 70 MB one (its brotli binary and tar.br archives); test/browser-hidden.test.js
 * unpacks and starts the real one.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import tar from 'tar-fs';
import { describe, expect, it } from 'vitest';
import { embeddedBrowser, intact, MANIFEST, unpack } from '../src/browser/embedded.js';
import { tempDir, writeTree } from './helpers/tmp.js';

/** A package folder laid out as @sparticuz/chromium's: package.json and bin/*.br. */
async function fakePackage() {
  const root = await tempDir();
  const pkg = path.join(root, 'pkg');
  const binary = Buffer.from('#!/bin/sh\necho fake chromium\n'.repeat(100));
  await writeTree(path.join(root, 'fonts-src'), { 'fonts.conf': '<fontconfig/>', 'fonts/Open_Sans/OpenSans-Regular.ttf': Buffer.alloc(3000, 7) });
  await writeTree(path.join(root, 'libs-src'), { 'lib/libnss3.so': Buffer.alloc(5000, 1) });
  await writeTree(pkg, { 'package.json': JSON.stringify({ name: '@sparticuz/chromium', version: '153.0.0' }), 'bin/chromium.br': zlib.brotliCompressSync(binary) });
  for (const [from, name] of [['fonts-src', 'fonts.tar.br'], ['libs-src', 'al2023.tar.br']]) {
    const chunks = [];
    for await (const chunk of tar.pack(path.join(root, from)).pipe(zlib.createBrotliCompress())) chunks.push(chunk);
    await fs.writeFile(path.join(pkg, 'bin', name), Buffer.concat(chunks));
  }
  return { pkg, cache: path.join(root, 'cache'), binary };
}

describe('the embedded browser', () => {
  it('is unpacked once, whole, with a manifest of every file', async () => {
    const { pkg, cache, binary } = await fakePackage();
    const first = await embeddedBrowser(pkg, { cacheDir: cache });
    expect(first.unpacked).toBe(true);
    expect(first.executable).toBe(path.join(cache, 'chromium-153.0.0', 'chromium'));
    expect(await fs.readFile(first.executable)).toEqual(binary);
    expect((await fs.stat(first.executable)).mode & 0o111).not.toBe(0);
    const manifest = JSON.parse(await fs.readFile(path.join(first.dir, MANIFEST), 'utf8'));
    expect(manifest.files).toEqual({ chromium: binary.length, 'fonts.conf': 13, 'fonts/Open_Sans/OpenSans-Regular.ttf': 3000, 'lib/libnss3.so': 5000 });
    const second = await embeddedBrowser(pkg, { cacheDir: cache });
    expect(second.unpacked).toBe(false);
    expect(await fs.readdir(cache)).toEqual(['chromium-153.0.0']);
  });

  it('is unpacked again when a file is missing, cut short, or the manifest was never written', async () => {
    const { pkg, cache, binary } = await fakePackage();
    const { dir } = await embeddedBrowser(pkg, { cacheDir: cache });
    for (const damage of [
      () => fs.rm(path.join(dir, 'lib', 'libnss3.so')),
      () => fs.truncate(path.join(dir, 'chromium'), 10),
      () => fs.rm(path.join(dir, MANIFEST)),
    ]) {
      await damage();
      expect(await intact(dir)).toBe(false);
      const again = await embeddedBrowser(pkg, { cacheDir: cache });
      expect(again.unpacked).toBe(true);
      expect(await intact(dir)).toBe(true);
      expect(await fs.readFile(again.executable)).toEqual(binary);
      expect((await fs.readdir(cache)).sort()).toEqual(['chromium-153.0.0']);
    }
  });

  it('is unpacked again on request, though its sizes are right (a browser that failed to start)', async () => {
    const { pkg, cache, binary } = await fakePackage();
    const { executable } = await embeddedBrowser(pkg, { cacheDir: cache });
    await fs.writeFile(executable, Buffer.alloc(binary.length, 0));
    expect(await intact(path.dirname(executable))).toBe(true);
    const again = await embeddedBrowser(pkg, { cacheDir: cache, redo: true });
    expect(again.unpacked).toBe(true);
    expect(await fs.readFile(executable)).toEqual(binary);
  });

  it('survives two builds unpacking at once: one unpack is kept, no work folder is left', async () => {
    const { pkg, cache, binary } = await fakePackage();
    const results = await Promise.all([0, 1, 2, 3].map(() => embeddedBrowser(pkg, { cacheDir: cache })));
    for (const r of results) expect(await fs.readFile(r.executable)).toEqual(binary);
    expect(await fs.readdir(cache)).toEqual(['chromium-153.0.0']);
    expect(await intact(results[0].dir)).toBe(true);
  });

  it('keeps a damaged unpack from being used while it is replaced', async () => {
    const { pkg, cache } = await fakePackage();
    const dir = path.join(cache, 'chromium-153.0.0');
    // A folder left by a build killed mid-unpack in an older layout: no manifest.
    await writeTree(dir, { chromium: 'half' });
    await unpack(path.join(pkg, 'bin'), dir);
    expect(await intact(dir)).toBe(true);
    expect(await fs.readdir(cache)).toEqual(['chromium-153.0.0']);
  });
});
