// What "self" means, once for every table clrscope prints: the record summary's top methods,
// `clrscope report`'s functions table and the workstation's Functions view all take their rows
// from here or from the same ProfileAnalysis.functions, over stacks folded the same way, with
// wall time's waits charged to the method that waited (wait-self.ts).

import { DEFAULT_FOLD, type FoldOptions } from './fold-options.js';
import { ProfileAnalysis, type WholeWeights } from './profile-analysis.js';
import { reportFunctions, type ReportFunction } from './report-model.js';
import type { SampleSource } from './stack-source.js';
import { stackWeights, type StackWeights } from './stack-weights.js';
import type { SampleMetric } from '../profile/recording.js';

/** The definition, as the summary's and the report's header lines say it. */
export const SELF_DEFINITION = 'self = the samples whose innermost frame, after folding, is the function; for wall time a sample in native or runtime code (a wait) is the self of the program\'s own method that called it';

export interface SelfRows {
  rows: ReportFunction[];
  /** The metric's sum over every sample: what percentages are of. */
  totalValue: number;
}

/**
 * The `n` functions with the most self value of `metric` (then total, then name), as
 * `clrscope report` lists them. `summed`: the metric per stack and the samples per stack when
 * the recording keeps no samples (a spooled record).
 */
export function selfTimeRows(source: SampleSource, metric: SampleMetric, n: number, summed?: { value: Float64Array; count: Float64Array }, fold: FoldOptions = DEFAULT_FOLD): SelfRows {
  const whole: WholeWeights | undefined = summed === undefined ? undefined : (m) => (m === metric ? wholeWeights(summed) : undefined);
  const table = new ProfileAnalysis(source, whole).functions({ metric, fold });
  return { rows: reportFunctions(table, n), totalValue: table.totalValue };
}

function wholeWeights(summed: { value: Float64Array; count: Float64Array }): StackWeights {
  // A stack whose samples carry none of the metric (wall-only samples in a CPU table) is left out, as weighStacks leaves it out.
  const count = summed.count.map((c, s) => (summed.value[s] === 0 ? 0 : c));
  return stackWeights(summed.value, count);
}
