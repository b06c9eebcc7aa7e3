#!/usr/bin/env node
// Build src/images/ssimulacra2-wasm/ssimulacra2.wasm from ssimulacra2.c
// beside it, with clang-14 and wasm-ld-14 (no libc, no Emscripten):
//   node scripts/build-ssimulacra2-wasm.js [out.wasm]
// The .wasm is committed, so running pagediet needs no compiler; rebuild it
// after changing the C source. The output is deterministic: no debug
// information, names or producers section, so the same clang gives the same
// bytes (test/ssimulacra2-wasm.test.js checks the committed file against a
// fresh build).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SOURCE = fileURLToPath(new URL('../src/images/ssimulacra2-wasm/ssimulacra2.c', import.meta.url));
export const DEFAULT_OUT = fileURLToPath(new URL('../src/images/ssimulacra2-wasm/ssimulacra2.wasm', import.meta.url));

const CLANG = 'clang-14';
const WASM_LD = 'wasm-ld-14';

const FLAGS = [
  '--target=wasm32',
  '-O3',
  '-msimd128',
  // memory.fill for the zeroing loops clang turns into memset (there is no libc)
  '-mbulk-memory',
  // Never fuse a*b+c: every rounding must be the JavaScript's.
  '-ffp-contract=off',
  '-nostdlib',
  '-Wall',
  '-Wextra',
  '-Wl,--no-entry',
  '-Wl,--strip-all',
  '-Wl,-z,stack-size=65536',
];

/**
 * The full path of PROGRAM on PATH, or null.
 * @param {string} program
 */
function onPath(program) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, program))) return join(dir, program);
  }
  return null;
}

/** Why the wasm cannot be built here (clang-14 or wasm-ld-14 missing), or null. */
export function compilerMissing() {
  const missing = [CLANG, WASM_LD].filter((program) => !onPath(program));
  return missing.length ? `${missing.join(' and ')} not on PATH` : null;
}

/**
 * Compile SOURCE into OUT (written beside and renamed into place).
 * @param {string} [out]
 * @returns {Buffer} the .wasm's bytes
 */
export function buildSsimulacra2Wasm(out = DEFAULT_OUT) {
  const missing = compilerMissing();
  if (missing) throw new Error(`build-ssimulacra2-wasm: ${missing} (apt-get install clang-14 lld-14)`);
  const work = mkdtempSync(join(tmpdir(), 'pagediet-ssimulacra2-wasm-'));
  try {
    const built = join(work, 'ssimulacra2.wasm');
    execFileSync(onPath(CLANG) ?? CLANG, [...FLAGS, `-fuse-ld=${onPath(WASM_LD)}`, '-o', built, SOURCE], { stdio: ['ignore', 'inherit', 'inherit'] });
    const bytes = readFileSync(built);
    const partial = join(dirname(out), `.ssimulacra2-${process.pid}.wasm`);
    copyFileSync(built, partial);
    renameSync(partial, out);
    return bytes;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const out = resolve(process.argv[2] ?? DEFAULT_OUT);
  try {
    const bytes = buildSsimulacra2Wasm(out);
    console.log(`wrote ${out} (${bytes.length} bytes)`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exitCode = 1;
  }
}
