// Every runtime pause of the recording: a timeline coloured by generation where a dragged
// range becomes the flame graph's window, a histogram of durations and the percentiles. A
// clicked GC pause offers the allocations that led to it: the flame graph of allocated bytes
// from the previous GC's end to this pause's start, and says what the collection was (from the
// GC table, shown beside the timeline as "Collections").

import { useState, type ReactElement } from 'react';
import type { PauseEntry } from '../../../structs/profile/pause-summary.js';
import type { GcRow } from '../../../structs/analysis/gc-stats.js';
import { PAUSE_GROUPS, allocationSpanBefore, collectionOf, groupName, pauseGroup, pauseOf, pauseRows } from '../state/pause-groups.js';
import { GcCollectionsTable, describeCollection } from './gc-collections.js';
import { noPauses } from './empty-reasons.js';
import { describeWindow } from '../state/view-queries.js';
import { formatMs, formatNs } from './format.js';
import { GcTimelineCanvas } from './gc-timeline-canvas.js';
import { PauseHistogram } from './pause-histogram.js';
import { useAppState, useWorkstation } from './use-app-state.js';

const NO_GCS: readonly GcRow[] = [];

export function GcTimelineView(): ReactElement {
  const ws = useWorkstation();
  const summary = useAppState((s) => s.summary);
  const window = useAppState((s) => s.flameOptions.window);
  const pauses = summary?.pauses ?? [];
  const range = window.kind === 'range' ? window : null;
  const [picked, setPicked] = useState<PauseEntry | null>(null);
  const [pickedRow, setPickedRow] = useState<GcRow | null>(null);
  const [shown, setShown] = useState<'timeline' | 'collections'>('timeline');
  const gcs = summary?.gcs ?? NO_GCS;
  const live = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId)?.state === 'recording');
  // A pause of an earlier recording (the summary was replaced) is no longer picked.
  const pick = picked !== null && pauses.includes(picked) ? picked : null;
  const span = pick === null ? null : allocationSpanBefore(pauses, pick);
  // The picked pause's collection, or the row picked in the table (which may have no pause on record).
  const collection = pick !== null ? collectionOf(pick, gcs) : pickedRow !== null && gcs.includes(pickedRow) ? pickedRow : null;
  const pickPause = (p: PauseEntry | null): void => { setPicked(p); setPickedRow(null); };
  const pickRow = (row: GcRow): void => { setPicked(pauseOf(row, pauses)); setPickedRow(row); };
  const hasAllocations = summary?.eventMetrics.includes('alloc-space') ?? false;
  return (
    <div className="gc-view">
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="GC view">
          <button type="button" className={shown === 'timeline' ? 'on' : ''} aria-pressed={shown === 'timeline'} data-testid="gc-show-timeline" onClick={() => setShown('timeline')}>Timeline</button>
          <button type="button" className={shown === 'collections' ? 'on' : ''} aria-pressed={shown === 'collections'} data-testid="gc-show-collections" onClick={() => setShown('collections')}>
            Collections{gcs.length > 0 ? ` (${gcs.length})` : ''}
          </button>
        </div>
        <span className="legend">
          {PAUSE_GROUPS.map((g) => <span key={String(g)}><i className={`swatch g-${String(g)}`} />{groupName(g)}</span>)}
        </span>
        <span className="hint grow">Drag across the timeline to show that time in the flame graph.</span>
        {range !== null && (
          <>
            <span className="chip on" data-testid="gc-range">{describeWindow(range)}</span>
            <button type="button" data-testid="gc-range-open" onClick={() => ws.view.setTab('flame')}>Open in flame graph</button>
            <button type="button" data-testid="gc-range-clear" onClick={() => ws.view.setFlameOptions({ window: { kind: 'all' } })}>Clear</button>
          </>
        )}
      </div>
      {(pick !== null || collection !== null) && (
        <div className="toolbar" data-testid="gc-picked">
          {pick !== null && <span className="chip on">{groupName(pauseGroup(pick))} pause at {formatMs(pick.startNs / 1e6)}, {formatNs(pick.durationNs)}</span>}
          {collection !== null && <span data-testid="gc-picked-collection">{describeCollection(collection)}</span>}
          {pick !== null && collection === null && pick.generation !== null && (
            <span className="hint" data-testid="gc-picked-no-collection">{gcs.length === 0 ? 'No GC events in this recording to say which collection this was.' : 'No collection of the GC table starts in this pause.'}</span>
          )}
          {span !== null && hasAllocations && (
            <button
              type="button" data-testid="gc-pause-allocations"
              title="The flame graph of bytes allocated between the previous GC's end and this pause"
              onClick={() => {
                ws.view.setFlameOptions({ metric: 'alloc-space', window: { kind: 'range', fromMs: span.fromMs, toMs: span.toMs } });
                ws.view.setTab('flame');
              }}
            >
              Allocations before it ({formatMs(span.toMs - span.fromMs)})
            </button>
          )}
          {span !== null && !hasAllocations && <span className="hint">No allocation samples in this recording (record with allocations on to see what led to it).</span>}
          {pick !== null && span === null && <span className="hint">A suspension without a GC.</span>}
        </div>
      )}
      {shown === 'collections' && <GcCollectionsTable gcs={gcs} picked={collection} onPick={pickRow} hasPauses={pauses.some((p) => p.generation !== null)} />}
      {shown === 'timeline' && (<>
      <GcTimelineCanvas
        pauses={pauses}
        durationMs={summary?.durationMs ?? 0}
        fromMs={summary?.keptFromMs ?? 0}
        range={range}
        onRange={(from, to) => ws.view.setRange(from, to)}
        picked={pick}
        onPick={pickPause}
      />
      {pauses.length === 0 && <p className="empty" data-testid="gc-empty">{summary === null ? 'Waiting for data…' : noPauses(live)}</p>}
      {/* With no pause a table of dashes and an empty chart under the sentence only repeat it. */}
      {pauses.length > 0 && (
        <div className="gc-bottom">
          <PauseTable pauses={pauses} />
          <PauseHistogram pauses={pauses} />
        </div>
      )}
      </>)}
    </div>
  );
}

function PauseTable({ pauses }: { pauses: readonly PauseEntry[] }): ReactElement {
  const rows = pauseRows(pauses);
  return (
    <table className="grid pause-table" data-testid="gc-stats">
      <thead>
        <tr><th /><th className="num">count</th><th className="num">p50</th><th className="num">p90</th><th className="num">p99</th><th className="num">max</th><th className="num">total</th></tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} data-testid={`gc-stats-${r.key}`} className={r.key === 'gc' ? 'strong' : ''}>
            <th>{r.key.startsWith('gen') || r.key === 'other' ? <i className={`swatch g-${r.key === 'other' ? 'other' : r.key.slice(3)}`} /> : null}{r.label}</th>
            <td className="num" data-testid={`gc-count-${r.key}`}>{r.stats.count}</td>
            <td className="num">{r.stats.count > 0 ? formatNs(r.stats.p50Ns) : '–'}</td>
            <td className="num">{r.stats.count > 0 ? formatNs(r.stats.p90Ns) : '–'}</td>
            <td className="num">{r.stats.count > 0 ? formatNs(r.stats.p99Ns) : '–'}</td>
            <td className="num" data-testid={`gc-max-${r.key}`}>{r.stats.count > 0 ? formatNs(r.stats.maxNs) : '–'}</td>
            <td className="num">{r.stats.count > 0 ? formatNs(r.stats.totalNs) : '–'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
