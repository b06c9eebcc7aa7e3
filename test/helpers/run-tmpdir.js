import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Vitest global setup: every temporary file of one test run (the tests' own
 * directories, caches, spilled bytes, server prefixes, Chromium profiles) goes
 * under one directory, removed when the run ends, so runs leave nothing in /tmp.
 * TMPDIR is set before the test workers start, and they inherit it; so is
 * PAGEDIET_CACHE_DIR, so no test reads or fills the repository's own cache
 * (node_modules/.cache/pagediet) and every run starts cold.
 */
export default function setup() {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagediet-test-run-'));
  // Readable like /tmp itself: servers under test may drop privileges.
  fs.chmodSync(runDir, 0o755);
  const before = { TMPDIR: process.env.TMPDIR, PAGEDIET_CACHE_DIR: process.env.PAGEDIET_CACHE_DIR };
  process.env.TMPDIR = runDir;
  process.env.PAGEDIET_CACHE_DIR = path.join(runDir, 'cache');
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    fs.rmSync(runDir, { recursive: true, force: true });
  };
}
