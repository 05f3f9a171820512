// Everything a Recording holds, as text, so round-trip tests compare a saved and reopened
// recording line by line and a difference reads as a diff rather than as "not equal".

import type { Recording } from '../../profile/recording.js';

export function dumpRecording(rec: Recording): string {
  const lines: string[] = [];
  const m = rec.meta;
  lines.push(m === undefined ? 'meta: none'
    : `meta: pid ${m.pid} flags ${m.flags} interval ${m.intervalNs} wall/tick ${m.wallThreadsPerTick} runtime '${m.runtimeVersion}' profiler '${m.profilerVersion}' start ${m.startMono} unix ${m.startUnixNs} attached ${m.attached}`);
  for (const t of rec.threads()) {
    lines.push(`thread ${t.id}: tid ${t.osTid} clr ${t.clrThreadId} '${t.name}' first ${t.firstSeenMono} last ${t.lastSeenMono} ended ${t.ended}`);
  }
  for (const f of rec.functions()) lines.push(`function ${f.id}: kind ${f.kind} '${f.name}' '${f.module}' '${f.file}'`);
  rec.forEachSample((i, mono, threadId, stackId, cpuNs, wallNs, flags) => {
    lines.push(`sample ${i}: mono ${mono} thread ${threadId} flags ${flags} cpu ${cpuNs} wall ${wallNs} frames ${Array.from(rec.stackFrames(stackId)).join(',')}`);
  });
  for (const s of rec.suspensions()) {
    lines.push(`suspension: mono ${s.mono} duration ${s.durationNs} suspend ${s.suspendNs} reason ${s.reason} gen ${s.generation} flags ${s.flags}`);
  }
  const st = rec.stats;
  if (st !== undefined) {
    lines.push(`stats: mono ${st.mono} samples ${st.samples} dropped ${st.droppedRingFull}/${st.droppedBufferFull}/${st.droppedWatchdog}/${st.droppedOther}`);
  }
  lines.push(rec.end === undefined ? 'end: none' : `end: mono ${rec.end.mono} reason ${rec.end.reason}`);
  lines.push(`cut: ${rec.cut}`);
  return `${lines.join('\n')}\n`;
}
