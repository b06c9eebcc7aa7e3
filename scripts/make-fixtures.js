#!/usr/bin/env node
// Generate the test sites under fixtures/ (or another root):
//   node scripts/make-fixtures.js [outRoot]
// The output is deterministic: same bytes on every run and machine with the
// same sharp build and DejaVu fonts. Never edit the generated files by hand.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkFonts } from './fixtures/fonts.js';
import { makeGifCorpus } from './fixtures/gif-corpus.js';
import { makeH2Sample } from './fixtures/h2-sample.js';
import { makeMicroscape } from './fixtures/microscape.js';
import { makeModern } from './fixtures/modern.js';
import { makeRicochet } from './fixtures/ricochet.js';

/** The repository's fixtures/ directory, the default output root. */
export const DEFAULT_OUT = fileURLToPath(new URL('../fixtures/', import.meta.url));

/**
 * Write fixtures/microscape, fixtures/ricochet, fixtures/h2-sample,
 * fixtures/gifs and fixtures/modern and their manifests (microscape.json,
 * ricochet.json, h2-sample.json, gifs.json, modern.json) under outRoot.
 * Existing site directories are replaced.
 * @param {string} [outRoot]
 * @returns {Promise<void>}
 */
export async function makeFixtures(outRoot = DEFAULT_OUT) {
  checkFonts();
  // One site after another: each is deterministic on its own, and running
  // them in sequence keeps peak memory and sharp's thread pool small.
  await makeMicroscape(outRoot);
  await makeRicochet(outRoot);
  await makeH2Sample(outRoot);
  await makeGifCorpus(outRoot);
  await makeModern(outRoot);
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const out = resolve(process.argv[2] ?? DEFAULT_OUT);
  const started = process.hrtime.bigint();
  makeFixtures(out).then(
    () => {
      const ms = Number((process.hrtime.bigint() - started) / 1000000n);
      console.log(`fixtures written to ${out} in ${(ms / 1000).toFixed(1)} s`);
    },
    (err) => {
      console.error(`make-fixtures: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
