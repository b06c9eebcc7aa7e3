#!/usr/bin/env node
import { restartWithArenaLimit, wantsArenaLimit } from '../src/util/arena-limit.js';

if (wantsArenaLimit()) {
  process.exitCode = await restartWithArenaLimit();
} else {
  const { main } = await import('../src/cli.js');
  process.exitCode = await main(process.argv.slice(2));
}
