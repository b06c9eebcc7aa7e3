import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Vitest global setup: every temporary file of one test run (the tests' own
 * directories, caches, spilled bytes, server prefixes, Chromium profiles) goes
 * under one directory, removed when the run ends, so runs leave nothing in /tmp.
 * TMPDIR is set before the test workers start, and they inherit it.
 */
export default function setup() {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagediet-test-run-'));
  // Readable like /tmp itself: servers under test may drop privileges.
  fs.chmodSync(runDir, 0o755);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = runDir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    fs.rmSync(runDir, { recursive: true, force: true });
  };
}
