#!/usr/bin/env node
import { restartWithArenaLimit, wantsArenaLimit } from '../src/util/arena-limit.js';

if (wantsArenaLimit()) {
  process.exitCode = await restartWithArenaLimit();
} else {
  const { main } = await import('../src/cli/main.js');
  process.exitCode = await main(process.argv.slice(2));
}
