// The end-to-end run's order is jest's own; this only counts the suites on the shared stack
// (decision 0050), so the global setup starts that stack only when a selected suite uses it.
// jest sorts the selected suites before it runs the global setup.
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

class SharedStackSequencer extends Sequencer {
  sort(tests) {
    const shared = tests.filter((test) => /\bsharedStack\(\)/.test(readFileSync(test.path, 'utf8')));
    process.env['CORRIDOR_E2E_SHARED_SUITES'] = String(shared.length);
    return super.sort(tests);
  }
}

module.exports = SharedStackSequencer;
