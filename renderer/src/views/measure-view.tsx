// Methods measured exactly in the selected session's process: a pattern to add more (or
// "Measure exactly" on a flame graph frame), and a live table with each method's calls,
// exceptions, latency percentiles and histogram, and a Revert for each.

import { useState, type FormEvent, type ReactElement } from 'react';
import { isLive } from '../state/app-state.js';
import { bucketCeiling, bucketFloor } from '../../../structs/measure/histogram.js';
import type { MeasuredMethod } from '../../../structs/measure/measurements.js';
import { formatNs } from './format.js';
import { useAppState, useWorkstation } from './use-app-state.js';

const count = (n: number): string => n.toLocaleString('en');

const STATE_TEXT: Record<MeasuredMethod['state'], string> = {
  pending: 'waiting for its next call',
  active: 'measuring',
  refused: 'not measured',
  reverted: 'reverted',
  unloaded: 'module unloaded',
};

export function MeasureView(): ReactElement {
  const ws = useWorkstation();
  // Re-render when measuring records arrive; they live in the controller's Measurements.
  useAppState((s) => s.measureVersion);
  const session = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId));
  const notice = useAppState((s) => s.measureNotice);
  const busy = useAppState((s) => s.measuring);
  const [pattern, setPattern] = useState('');
  const methods = ws.measurements.methods();
  const live = isLive(session) && session?.source !== 'file';
  const canRevert = methods.some((m) => m.state === 'active' || m.state === 'pending');

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (pattern.trim() !== '') void ws.measure.measureMethod(pattern.trim());
  };

  return (
    <div className="measure-view" data-testid="measure-view">
      <form className="measure-form" onSubmit={submit}>
        <input
          type="text" value={pattern} onChange={(e) => setPattern(e.target.value)} disabled={!live} spellCheck={false}
          placeholder="Namespace.Type.Method or Namespace.Type.*" aria-label="Methods to measure" data-testid="measure-pattern"
        />
        <button type="submit" disabled={!live || busy || pattern.trim() === ''} data-testid="measure-submit">Measure exactly</button>
        <button type="button" disabled={!live || busy || !canRevert} onClick={() => void ws.measure.revertMeasured(0)} data-testid="measure-revert-all">Revert all</button>
      </form>
      {notice !== null && <div className="measure-notice" data-testid="measure-notice">{notice}</div>}
      {live && session?.attached === true && (
        <div className="hint">
          Measuring compiles the methods again with timing probes (ReJIT); after that the runtime keeps clrscope&apos;s profiler loaded in this
          process until it exits, idle once the recording stops and the methods are reverted.
        </div>
      )}
      {!live && methods.length === 0 && <div className="hint">Methods can be measured while a launched or attached program runs.</div>}
      {methods.length === 0 ? (
        live && <div className="hint" data-testid="measure-empty">No method is measured yet: right-click a frame in the flame graph and choose Measure exactly, or type a pattern above.</div>
      ) : (
        <table className="measure-table" data-testid="measure-table">
          <thead>
            <tr>
              <th>method</th><th>state</th><th className="num">calls</th><th className="num">exceptions</th><th className="num">p50</th>
              <th className="num">p90</th><th className="num">p99</th><th className="num">max</th><th className="num">mean</th><th className="num">total</th>
              <th>latency histogram</th><th />
            </tr>
          </thead>
          <tbody>
            {methods.map((m) => (
              <tr key={m.measureId} data-testid="measure-row" data-name={m.name} data-calls={m.calls} data-exceptions={m.exceptions} data-state={m.state}>
                <td className="measure-name" title={`${m.name} (${m.module})${m.detail === '' ? '' : `\n${m.detail}`}`}>
                  {m.name}
                  {m.asyncSynchronousPart && <span className="badge" title={m.detail}>sync part</span>}
                  {m.generic && <span className="badge" title="every instantiation counts together">generic</span>}
                </td>
                <td title={m.detail}>{STATE_TEXT[m.state]}{m.state === 'refused' ? `: ${m.detail}` : ''}</td>
                <td className="num">{count(m.calls)}</td>
                <td className="num">{count(m.exceptions)}</td>
                <td className="num">{m.calls === 0 ? '–' : formatNs(m.p50Ns)}</td>
                <td className="num">{m.calls === 0 ? '–' : formatNs(m.p90Ns)}</td>
                <td className="num">{m.calls === 0 ? '–' : formatNs(m.p99Ns)}</td>
                <td className="num">{m.calls === 0 ? '–' : formatNs(m.maxNs)}</td>
                <td className="num">{m.calls === 0 ? '–' : formatNs(m.meanNs)}</td>
                <td className="num">{m.calls === 0 ? '–' : formatNs(m.totalNs)}</td>
                <td><Histogram buckets={m.buckets} /></td>
                <td>
                  {(m.state === 'active' || m.state === 'pending') && (
                    <button type="button" disabled={!live || busy} onClick={() => void ws.measure.revertMeasured(m.measureId)} data-testid="measure-revert">Revert</button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const WIDTH = 180;
const HEIGHT = 28;

/**
 * The buckets from the fastest call's to the slowest's, one bar each (the buckets are log-linear,
 * so the axis is a log scale of time); heights on a log scale of counts, so the rare slow calls
 * of the tail stay visible next to the common fast ones.
 */
function Histogram({ buckets }: { buckets: readonly (readonly [number, number])[] }): ReactElement | null {
  if (buckets.length === 0) return null;
  const lo = buckets[0][0];
  const hi = buckets[buckets.length - 1][0];
  const span = hi - lo + 1;
  const most = Math.max(...buckets.map(([, n]) => n));
  const bar = WIDTH / span;
  return (
    <svg className="measure-histogram" width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img"
      aria-label={`latency from ${formatNs(bucketFloor(lo))} to ${formatNs(bucketCeiling(hi))}`}>
      {buckets.map(([b, n]) => {
        const h = Math.max(1, (Math.log1p(n) / Math.log1p(most)) * HEIGHT);
        return (
          <rect key={b} x={(b - lo) * bar} y={HEIGHT - h} width={Math.max(1, bar - 0.5)} height={h}>
            <title>{`${formatNs(bucketFloor(b))} – ${formatNs(bucketCeiling(b))}: ${count(n)} calls`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
