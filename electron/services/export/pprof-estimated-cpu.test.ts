// The pprof writer's estimated-CPU comment with the EventPipe fallback's real version string,
// which lives on this side (structs/ cannot import it): commas and all, it must survive a round trip.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { fixtureStream } from '../../../structs/profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../../../structs/profile/recording-from-stream.js';
import { fromPprof } from '../../../structs/formats/pprof/from-pprof.js';
import { goPprof, requireGo } from '../../../structs/formats/pprof/go-pprof.test-support.js';
import { gzippedPprof } from '../../../structs/formats/pprof/pprof.test-support.js';
import { APPROXIMATE_CPU_COMMENT } from '../../../structs/formats/pprof/to-pprof.js';
import { WireEncoder } from '../../../structs/wire/encoder.js';
import { EVENTPIPE_PROFILER_VERSION } from '../recording/eventpipe-session.js';

const rec = recordingFromStream([fixtureStream()]);
const work = mkdtempSync(join(tmpdir(), 'clrscope-pprof-test-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const pprof = (...args: string[]): string => goPprof(work, args.slice(0, -1), args[args.length - 1]);

test('a recording whose CPU is estimated says so in a comment, read back on import; a measured one does not', (t) => {
  // The fallback's real version, commas and all: the importer must not cut it at the first one.
  const hello = { pid: 7, flags: 15, mono: 0, unixNs: 0n, intervalNs: 4_000_000, wallThreadsPerTick: 0, runtimeVersion: '10.0.12', profilerVersion: EVENTPIPE_PROFILER_VERSION };
  const estimated = recordingFromStream([new WireEncoder().preamble().hello(hello).end({ mono: 1, reason: 1 }).bytes()]);
  const comments = (r: typeof rec): string[] => {
    const p = Profile.decode(gunzipSync(gzippedPprof(r)));
    return p.comment.map((i) => p.stringTable.strings[Number(i)]);
  };
  assert.deepEqual(comments(estimated), [`clrscope ${EVENTPIPE_PROFILER_VERSION}, pid 7, .NET runtime 10.0.12, attached`, APPROXIMATE_CPU_COMMENT]);
  assert.ok(!comments(rec).includes(APPROXIMATE_CPU_COMMENT));
  const back = fromPprof(gunzipSync(gzippedPprof(estimated)));
  assert.equal(back.meta?.approximateCpu, true);
  assert.equal(back.meta?.profilerVersion, `clrscope ${EVENTPIPE_PROFILER_VERSION} (pprof)`);
  assert.equal(fromPprof(gunzipSync(gzippedPprof(rec))).meta?.approximateCpu, false);
  if (!requireGo(t)) return;
  const path = join(work, 'estimated.pb.gz');
  writeFileSync(path, gzippedPprof(estimated));
  assert.match(pprof('-raw', path), /^Comment: CPU time is approximate/m);
});
