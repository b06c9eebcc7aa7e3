// Run by test/arena-limit.test.js: restarts itself with the arena limit as
// bin/pagediet.js does, then prints what the restarted process sees and
// exits with code 3 (to show the exit code is passed on).
import { restartWithArenaLimit, wantsArenaLimit } from '../../src/util/arena-limit.js';

if (wantsArenaLimit()) {
  process.exitCode = await restartWithArenaLimit();
} else {
  console.log(`${process.env.MALLOC_ARENA_MAX ?? 'unset'} ${process.env.MALLOC_MMAP_THRESHOLD_ ?? 'unset'} ${process.argv.slice(2).join(' ')}`);
  process.exitCode = 3;
}
