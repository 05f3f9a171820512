// Two profiles compared: the selected recording in the current window and threads (after)
// against another window of it or another recording (before). A differential flame graph,
// each frame as wide as the mean of its two sides and coloured by its change (red grew, blue
// shrank), and every function with its before, after and change.

import { useMemo, useState, type ReactElement, type ReactNode } from 'react';
import { sharePct, type DiffNormalize, type DiffTree } from '../../../structs/analysis/diff.js';
import { diffShade } from '../canvas/flame-colors.js';
import { describeWindow } from '../state/view-queries.js';
import { AnalysisToolbar } from './analysis-toolbar.js';
import { FoldBar } from './fold-bar.js';
import { searchRows } from './functions-view.js';
import { formatCount, formatNs } from './format.js';
import { NameText } from './name-text.js';
import { TreeCanvas } from './tree-canvas.js';
import { useAppState, useWorkstation } from './use-app-state.js';
import { VirtualTable, type VirtualColumn } from './virtual-table.js';

const COLUMNS: readonly VirtualColumn[] = [
  { key: 'name', title: 'Function', width: 'minmax(12em, 1fr)' },
  { key: 'beforeSelf', title: 'Self before', width: '6.5em', numeric: true },
  { key: 'afterSelf', title: 'after', width: '6.5em', numeric: true },
  { key: 'deltaSelf', title: 'Δ self', width: '6.5em', numeric: true },
  { key: 'beforeTotal', title: 'Total before', width: '6.5em', numeric: true },
  { key: 'afterTotal', title: 'after', width: '6.5em', numeric: true },
  { key: 'deltaTotal', title: 'Δ total', width: '6.5em', numeric: true },
];

/** Per node, its diff shade (the root's change is the totals' and is left grey). */
export function diffShades(tree: DiffTree): Uint8Array {
  let max = 0;
  for (let i = 1; i < tree.nodeCount; i++) max = Math.max(max, Math.abs(tree.delta[i]));
  const shades = new Uint8Array(tree.nodeCount);
  for (let i = 0; i < tree.nodeCount; i++) shades[i] = diffShade(i === 0 ? 0 : tree.delta[i], max);
  return shades;
}

function measureOf(normalize: DiffNormalize): (v: number, total: number) => number {
  return normalize === 'share' ? sharePct : (v) => v;
}

function show(normalize: DiffNormalize, v: number): string {
  return normalize === 'share' ? `${v.toFixed(1)}%` : formatNs(v);
}

function showDelta(normalize: DiffNormalize, v: number): string {
  const sign = v > 0 ? '+' : v < 0 ? '−' : '±';
  return normalize === 'share' ? `${sign}${Math.abs(v).toFixed(1)}` : `${sign}${formatNs(Math.abs(v))}`;
}

function deltaClass(v: number): string {
  return v > 0 ? 'delta up' : v < 0 ? 'delta down' : 'delta';
}

export function DiffView(): ReactElement {
  const ws = useWorkstation();
  const options = useAppState((s) => s.diffOptions);
  const diff = useAppState((s) => s.diff);
  const sessions = useAppState((s) => s.sessions);
  const selectedId = useAppState((s) => s.selectedSessionId);
  const summary = useAppState((s) => s.summary);
  const window = useAppState((s) => s.flameOptions.window);
  const search = useAppState((s) => s.flameOptions.search);
  const requests = useAppState((s) => s.flameOptions.requests);
  const baselineSummary = useAppState((s) => s.baselineSummary);
  const others = sessions.filter((s) => s.id !== selectedId);
  const durationMs = summary?.durationMs ?? 0;
  // Halves of what the views hold: a session that keeps its last minutes has nothing before them.
  const startMs = Math.min(summary?.keptFromMs ?? 0, durationMs);
  const middleMs = (startMs + durationMs) / 2;
  const baseline = options.baseline;
  const [fromText, setFromText] = useState('');
  const [toText, setToText] = useState('');

  const choose = (value: string): void => {
    if (value === 'requests') return;
    if (value === '') ws.diff.setOptions({ baseline: null });
    else if (value === 'window') ws.diff.setOptions({ baseline: { kind: 'window', fromMs: startMs, toMs: middleMs } });
    else ws.diff.setOptions({ baseline: { kind: 'session', sessionId: value } });
  };
  const halves = (): void => {
    ws.diff.setOptions({ baseline: { kind: 'window', fromMs: startMs, toMs: middleMs } });
    ws.view.setRange(middleMs, durationMs);
  };
  const applyWindow = (): void => {
    const from = Number(fromText) * 1000;
    const to = Number(toText) * 1000;
    if (Number.isFinite(from) && Number.isFinite(to) && to > from && from >= 0) ws.diff.setOptions({ baseline: { kind: 'window', fromMs: from, toMs: to } });
  };

  const shades = useMemo(() => (diff === null ? undefined : diffShades(diff.tree)), [diff]);
  const rows = useMemo(() => (diff === null ? new Int32Array(0) : searchRows(diff.functions.name, search)), [diff, search]);
  const measure = measureOf(options.normalize);

  const cell = (r: number, key: string, width: number): ReactNode => {
    if (diff === null) return null;
    const f = diff.functions;
    const i = rows[r];
    const b = f.beforeValue;
    const a = f.afterValue;
    switch (key) {
      case 'name': return <NameText className={`kind-${f.kind[i]}`} name={f.name[i]} widthPx={width} kind="method" />;
      case 'beforeSelf': return show(options.normalize, measure(f.beforeSelf[i], b));
      case 'afterSelf': return show(options.normalize, measure(f.afterSelf[i], a));
      case 'deltaSelf': { const d = measure(f.afterSelf[i], a) - measure(f.beforeSelf[i], b); return <span className={deltaClass(d)}>{showDelta(options.normalize, d)}</span>; }
      case 'beforeTotal': return show(options.normalize, measure(f.beforeTotal[i], b));
      case 'afterTotal': return show(options.normalize, measure(f.afterTotal[i], a));
      case 'deltaTotal': { const d = measure(f.afterTotal[i], a) - measure(f.beforeTotal[i], b); return <span className={deltaClass(d)}>{showDelta(options.normalize, d)}</span>; }
      default: return null;
    }
  };

  const tip = (node: number): ReactNode => {
    if (diff === null) return null;
    const t = diff.tree;
    return (
      <>
        <div className="tip-name">{t.labels[t.label[node]]}</div>
        <div>before {formatNs(t.before[node])} ({sharePct(t.before[node], t.beforeTotal).toFixed(1)}%), after {formatNs(t.after[node])} ({sharePct(t.after[node], t.afterTotal).toFixed(1)}%)</div>
        <div className={deltaClass(t.delta[node])}>change {showDelta(options.normalize, t.delta[node])}{options.normalize === 'share' ? ' points' : ''}</div>
      </>
    );
  };

  return (
    <div className="diff-view">
      <AnalysisToolbar />
      <FoldBar />
      <div className="toolbar diff-toolbar">
        <label>
          Compare with{' '}
          <select
            data-testid="diff-baseline" value={baseline === null ? '' : baseline.kind === 'session' ? baseline.sessionId : baseline.kind}
            onChange={(e) => choose(e.target.value)}
          >
            <option value="">— choose —</option>
            <option value="window">another window of this recording</option>
            {baseline?.kind === 'requests' && <option value="requests">{baseline.requests.label}</option>}
            {others.map((s) => <option key={s.id} value={s.id}>{s.label} ({s.source === 'file' ? 'file' : s.state})</option>)}
          </select>
        </label>
        {baseline?.kind === 'window' && (
          <span className="diff-window">
            before: {describeWindow({ kind: 'range', fromMs: baseline.fromMs, toMs: baseline.toMs })}{' '}
            <input type="number" min={0} step={0.1} placeholder="from s" value={fromText} data-testid="diff-from" onChange={(e) => setFromText(e.target.value)} />
            <input type="number" min={0} step={0.1} placeholder="to s" value={toText} data-testid="diff-to" onChange={(e) => setToText(e.target.value)} />
            <button type="button" data-testid="diff-window-apply" onClick={applyWindow}>Set</button>
          </span>
        )}
        <button type="button" data-testid="diff-halves" disabled={durationMs <= 0} onClick={halves} title="Before: the first half of the recording; after: the second half">first half → second half</button>
        <span className="hint" data-testid="diff-after">after: {requests != null ? requests.label : `this recording, ${describeWindow(window)}`}</span>
        <div className="segmented" role="group" aria-label="Normalize">
          <button type="button" className={options.normalize === 'share' ? 'on' : ''} data-testid="diff-share" onClick={() => ws.diff.setOptions({ normalize: 'share' })}>% of each total</button>
          <button type="button" className={options.normalize === 'absolute' ? 'on' : ''} data-testid="diff-absolute" onClick={() => ws.diff.setOptions({ normalize: 'absolute' })}>absolute</button>
        </div>
      </div>
      {baseline === null && <p className="empty">Choose what to compare with: another window of this recording (the flame graph's window is the after side), or another recording (open it with Open recording… first).</p>}
      {baseline !== null && (
        <>
          <div className="hint" data-testid="diff-caption">
            {diff === null
              ? (baseline.kind === 'session' && (baselineSummary?.sampleCount ?? 0) === 0 ? 'Loading the other recording…' : 'Comparing…')
              : `before ${formatNs(diff.functions.beforeValue)} in ${formatCount(diff.functions.beforeSamples)} samples → after ${formatNs(diff.functions.afterValue)} in ${formatCount(diff.functions.afterSamples)} samples; width: the mean of both sides, colour: red grew, blue shrank`}
          </div>
          <div className="diff-body">
            <TreeCanvas testId="diff-flame" tree={diff?.tree ?? null} inverted={false} shades={shades} search={search} tooltip={tip} empty="No samples to compare." />
            <VirtualTable testId="diff-table" rowCount={rows.length} columns={COLUMNS} cell={cell} rowTitle={(r) => diff?.functions.name[rows[r]] ?? ''} empty="No samples on either side: pick a window or a recording that has samples to compare." />
          </div>
        </>
      )}
    </div>
  );
}
