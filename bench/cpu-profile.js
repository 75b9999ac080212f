// Preloaded with NODE_OPTIONS="--require bench/cpu-profile.js" (CPU_PROF_DIR=<dir>): a CPU profile
// of the whole process, written as <dir>/<app>-<pid>.cpuprofile when it exits. `--cpu-prof` itself
// is refused in NODE_OPTIONS by this Node, and the stacks spawn their apps with fixed arguments.
// Open the file in Chrome DevTools (Performance) or speedscope for the flame graph;
// bench/profile-summary.ts prints where the busy time went.
'use strict';
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.CPU_PROF_INTERVAL_US || 1000) });
  // CPU_PROF_ON_SIGNAL=1: start at the first SIGUSR2 and write at the second (a bench sends them
  // around its measured phase), so start-up and shutdown stay out of the profile.
  const onSignal = process.env.CPU_PROF_ON_SIGNAL === '1';
  if (!onSignal) session.post('Profiler.start');
  const app = (/apps\/([a-z-]+)\/src\/main\.ts/.exec(process.argv.join(' ')) || [])[1] || 'process';
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    // The in-process inspector session answers synchronously, so this works inside 'exit'.
    session.post('Profiler.stop', (error, result) => {
      if (error) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${app}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on('exit', write);
  if (onSignal) {
    let started = false;
    process.on('SIGUSR2', () => {
      if (started) return write();
      started = true;
      session.post('Profiler.start');
    });
  }
}
