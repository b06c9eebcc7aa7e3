import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.js'],
    globalSetup: ['test/helpers/run-tmpdir.js'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
