// Threads that block every signal for their whole life (issue 23): four native threads born with
// every signal blocked spin in native code; the capture signal never reaches them. Their CPU must
// still be in the recording, within 3% of what their own clocks say, and say why it came without
// a stack: before, 0.61 of 4.51 s came in (and only as "dropped" wall requests).

import assert from 'node:assert/strict';
import { SampleFlags } from '../../structs/wire/records.js';
import { tortureCase } from './support/torture.js';

const BLOCKED = '[CPU without a stack: signal blocked]';

tortureCase({
  scenario: 'masked-threads',
  hot: [BLOCKED],
  checkPlain: (plain) => assert.match(plain.result, /"started":true/),
  check: (p, _plain, what, intervalMs) => {
    const fact = p.outcome.facts.find((f) => typeof f.maskedCpuMs === 'number');
    assert.ok(fact !== undefined, `${what}: the program said how much CPU its threads used`);
    const own = fact.maskedCpuMs as number;
    const masked = p.samples.filter((s) => /^masked-native-\d…?$/.test(s.thread) && s.flags & SampleFlags.Cpu);
    const sampled = masked.reduce((a, s) => a + s.cpuNs, 0) / 1e6;
    const said = masked.filter((s) => s.frames[0] === BLOCKED).reduce((a, s) => a + s.cpuNs, 0) / 1e6;
    // Each thread may end up to a tick or two after its last look (it is not there to be asked).
    const slack = 4 * 2 * Math.max(intervalMs, 4);
    assert.ok(Math.abs(sampled - own) <= own * 0.03 + slack, `${what}: ${sampled.toFixed(1)} ms of CPU in the recording, the threads' own clocks ${own} ms`);
    assert.ok(said >= sampled * 0.95, `${what}: ${said.toFixed(1)} of ${sampled.toFixed(1)} ms under ${BLOCKED}`);
  },
});
