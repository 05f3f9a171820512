// Everything a Recording holds, as text, so round-trip tests compare a saved and reopened
// recording line by line and a difference reads as a diff rather than as "not equal".

import type { Recording } from './recording.js';
import { TIMELINE_KINDS } from '../wire/timeline/timeline-kinds.js';
import { timelineDumpLine } from '../wire/timeline/timeline-kind.js';
import { OWN_COST_FIELDS } from '../wire/records.js';

export function dumpRecording(rec: Recording): string {
  const lines: string[] = [];
  const m = rec.meta;
  lines.push(m === undefined ? 'meta: none'
    : `meta: pid ${m.pid} flags ${m.flags} interval ${m.intervalNs} wall/tick ${m.wallThreadsPerTick} runtime '${m.runtimeVersion}' profiler '${m.profilerVersion}' start ${m.startMono} unix ${m.startUnixNs} attached ${m.attached}`);
  for (const t of rec.threads()) {
    lines.push(`thread ${t.id}: tid ${t.osTid} clr ${t.clrThreadId} '${t.name}' first ${t.firstSeenMono} last ${t.lastSeenMono} ended ${t.ended}`);
  }
  for (const p of rec.processes()) {
    lines.push(`process ${p.pid} '${p.name}': threads ${rec.threads().filter((t) => rec.processOf(t.id) === p).map((t) => t.id).join(',')}`);
  }
  for (const mod of rec.modules()) lines.push(`module ${mod.id}: kind ${mod.kind} '${mod.path}' mvid ${mod.mvid}`);
  for (const f of rec.functions()) lines.push(`function ${f.id}: kind ${f.kind} '${f.name}' '${f.module}' '${f.file}' module ${f.moduleId} token ${f.token}`);
  for (const f of rec.frames()) lines.push(`frame ${f.id}: function ${f.functionId} offset ${f.offsetKind}:${f.offset}`);
  for (const [id, text] of rec.strings()) lines.push(`string ${id}: '${text}'`);
  rec.forEachSample((i, mono, threadId, stackId, cpuNs, wallNs, flags) => {
    const request = rec.requestSeqOf(i);
    lines.push(`sample ${i}: mono ${mono} thread ${threadId} flags ${flags} cpu ${cpuNs} wall ${wallNs} frames ${Array.from(rec.stackFrames(stackId)).join(',')} (frame ids ${Array.from(rec.stackFrameIds(stackId)).join(',')})${request !== 0 ? ` request ${request}` : ''}`);
  });
  const e = rec.events();
  for (let i = 0; i < rec.eventCount; i++) {
    const frames = e.stackId[i] < 0 ? 'none' : Array.from(rec.stackFrames(e.stackId[i])).join(',');
    lines.push(`event ${i}: kind ${e.kind[i]} flags ${e.flags[i]} mono ${e.mono[i]} thread ${e.threadId[i]} label ${e.labelId[i]} values ${e.value1[i]} ${e.value2[i]} frames ${frames}${e.messageId[i] !== 0 ? ` message ${e.messageId[i]}` : ''}`);
  }
  for (const kind of TIMELINE_KINDS) for (const r of rec.timeline(kind)) lines.push(timelineDumpLine(kind, r));
  const st = rec.stats;
  if (st !== undefined) {
    lines.push(`stats: mono ${st.mono} samples ${st.samples} dropped ${st.droppedRingFull}/${st.droppedBufferFull}/${st.droppedWatchdog}/${st.droppedOther}${st.signalLostMono !== undefined ? ` signal lost at ${st.signalLostMono}` : ''}${st.cost !== undefined ? ` cost ${OWN_COST_FIELDS.map((k) => st.cost?.[k]).join('/')}` : ''}`);
  }
  const lost = rec.end?.descriptor === undefined ? '' : ` descriptor ${rec.end.descriptor} loss ${rec.end.descriptorLoss}`;
  lines.push(rec.end === undefined ? 'end: none' : `end: mono ${rec.end.mono} reason ${rec.end.reason}${lost}`);
  lines.push(`cut: ${rec.cut}`);
  return `${lines.join('\n')}\n`;
}
