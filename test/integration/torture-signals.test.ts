// Torture (issue 10, "SIGPROF reset by the program"): the program owns SIGPROF. Setting it to
// SIG_DFL or SIG_IGN, installing its own handler, or running its own ITIMER_PROF must neither
// kill it nor hand it clrscope's signals; threads that block every signal are sampled when they
// unblock and are otherwise left alone. See support/torture.ts for what every case asserts.

import assert from 'node:assert/strict';
import { NS, tortureCase } from './support/torture.js';

const SPIN = `${NS}Burn.Spin`;
// Burnt by the main thread after the program changed SIGPROF: sampling must go on.
const AFTER = `${NS}SigprofWork.AfterChange`;

tortureCase({
  scenario: 'sigprof-default',
  hot: [SPIN, AFTER],
  checkPlain: (plain) => assert.match(plain.result, /"dispositionAtEnd":"default"/),
});

tortureCase({
  scenario: 'sigprof-ignore',
  hot: [SPIN, AFTER],
  checkPlain: (plain) => assert.match(plain.result, /"dispositionAtEnd":"ignore"/),
});

tortureCase({
  scenario: 'sigprof-handler',
  hot: [SPIN, AFTER],
  // The program asked for no SIGPROF, so its handler must count none: the RESULT line carries
  // the counts by si_code, and the plain run's are all zero.
  checkPlain: (plain) => assert.match(plain.result, /"dispositionAtEnd":"own-handler","foreignSignals":\{"timer":0,"queue":0,"tkill":0,"user":0,"other":0,"total":0\},"ownTimerSignals":0/),
});

tortureCase({
  scenario: 'itimer-prof',
  hot: [SPIN, AFTER],
  // Its own ITIMER_PROF signals (si_code SI_KERNEL) and nothing else.
  checkPlain: (plain) => assert.match(plain.result, /"foreignSignals":\{"timer":0,"queue":0,"tkill":0,"user":0,"other":0,"total":0\},"ownTimerSignals":true/),
  check: (p, _plain, what) => {
    const fact = p.outcome.facts[0] as { kernel: number; foreign: number };
    assert.ok(fact.kernel > 0, `${what}: the program's own timer never reached its handler`);
  },
});

tortureCase({
  scenario: 'blocked-signals',
  // A signal cannot interrupt WorkBlocked (every signal but the runtime's is blocked there), so
  // only the unblocked work is required in the recording.
  hot: [`${NS}BlockedSignals.WorkOpen`],
  checkPlain: (plain) => assert.match(plain.result, /"maskErrors":0/),
});
