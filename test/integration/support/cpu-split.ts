// The share of Heavy in Heavy+Light CPU (the cpu-ratio scenario, 3:1 by construction) and how
// far from 75% it may honestly fall. Each CPU sample carries the CPU its thread spent since the
// previous one, and the kernel fires CPU timers on scheduler ticks, so a recording holds a few
// hundred to a thousand weighted samples: the share is a weighted mean, whose spread is the
// binomial one of the effective sample count (sum of weights squared over the sum of squared
// weights). A fixed 5 points is 3.2 standard deviations of ~750 effective samples, which a
// loaded CI machine crossed (69.8%); the tolerance is that floor or 3.5 deviations, the larger.

import { SampleFlags } from '../../../structs/wire/records.js';
import type { SampleView } from './record-target.js';

export interface CpuSplit {
  /** Heavy's percentage of Heavy+Light CPU. */
  share: number;
  /** CPU samples inside CpuWork.Burn. */
  samples: number;
  effective: number;
  /** Points either side of 75 the share may lie. */
  tolerance: number;
  line: string;
}

export function heavyLightSplit(samples: readonly SampleView[], ns: string, floorPoints: number): CpuSplit {
  const cpu = samples.filter((s) => s.flags & SampleFlags.Cpu);
  let heavy = 0;
  let light = 0;
  let total = 0;
  let squares = 0;
  let n = 0;
  for (const s of cpu) {
    if (s.frames.includes(`${ns}CpuWork.Heavy`)) heavy += s.cpuNs;
    if (s.frames.includes(`${ns}CpuWork.Light`)) light += s.cpuNs;
    if (s.frames.includes(`${ns}CpuWork.Burn`)) {
      n++;
      total += s.cpuNs;
      squares += s.cpuNs * s.cpuNs;
    }
  }
  const share = (100 * heavy) / (heavy + light);
  const effective = squares > 0 ? (total * total) / squares : 0;
  const tolerance = Math.max(floorPoints, 3.5 * 100 * Math.sqrt((0.75 * 0.25) / Math.max(effective, 1)));
  const line = `Heavy ${share.toFixed(1)}% of Heavy+Light CPU over ${n} CPU samples, ${effective.toFixed(0)} effective (tolerance ${tolerance.toFixed(1)} points)`;
  return { share, samples: n, effective, tolerance, line };
}
