// Mocha's dot reporter plus one closing line in the plain form CI reads:
// "tests: N passed, N failed, N skipped".
'use strict';
const Mocha = require('mocha');
const { EVENT_RUN_END } = Mocha.Runner.constants;
const GRACE_MS = 60_000;

class ClosingLineReporter extends Mocha.reporters.Dot {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats;
      process.stdout.write(`\ntests: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
      // A run that has ended must end the process. Something a test left open (a child process, a socket, a
      // timer) would otherwise keep mocha alive until CI's own deadline, and nothing of the run would count.
      // After a grace period, name what is still open and exit with mocha's own code.
      const watchdog = setTimeout(() => {
        const open = process._getActiveHandles().map((handle) => (handle && handle.constructor ? handle.constructor.name : typeof handle));
        process.stderr.write(`\nthe test run ended ${GRACE_MS / 1000} s ago but the process is still alive; still open: ${open.join(', ') || 'nothing visible'}. Exiting.\n`);
        process.exit(Math.min(s.failures, 255) || (process.exitCode ?? 0));
      }, GRACE_MS);
      watchdog.unref();
    });
  }
}

module.exports = ClosingLineReporter;
