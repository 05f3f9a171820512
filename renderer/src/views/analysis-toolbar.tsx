// The toolbar of the functions table and the diff: the same sample type, window, threads and
// search as the flame graph, so each view looks at the same samples.

import type { ReactElement } from 'react';
import { MetricAndWindow, SearchBox } from './flame-toolbar.js';

export function AnalysisToolbar(): ReactElement {
  return (
    <div className="toolbar analysis-toolbar">
      <MetricAndWindow />
      <SearchBox />
    </div>
  );
}
