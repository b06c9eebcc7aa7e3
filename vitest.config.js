import { defineConfig } from 'vitest/config';
import { BaseSequencer } from 'vitest/node';

/** The longest test files, started first so that the other worker runs the rest beside them. */
const LONGEST = ['modern.test.js', 'determinism.test.js'];

class LongestFirst extends BaseSequencer {
  /** @param {import('vitest/node').TestSpecification[]} files */
  async sort(files) {
    const rank = (/** @type {import('vitest/node').TestSpecification} */ f) => {
      const i = LONGEST.findIndex((name) => f.moduleId.endsWith(`/${name}`));
      return i < 0 ? LONGEST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.js'],
    globalSetup: ['test/helpers/run-tmpdir.js'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two files at once: vitest's default on 2 cores is one (cores - 1), and most files wait on Chromium, servers or disks.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
});
