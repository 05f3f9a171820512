// speedscope's `exporter` is free text, and the one place in its schema where clrscope can say
// what its importer needs back: that the file is clrscope's own (so its profile names carry
// thread and metric, see profile-name.ts) and whether its CPU times were estimates (HELLO flag
// ApproximateCpu), which no speedscope field can hold.

export const CLRSCOPE_EXPORTER = 'clrscope';

/** Appended to the exporter of a recording whose CPU times are estimates. */
export const ESTIMATED_CPU_MARK = ' (CPU estimated)';

export function exporterName(base: string, approximateCpu: boolean): string {
  return approximateCpu ? `${base}${ESTIMATED_CPU_MARK}` : base;
}

export interface ExporterIdentity {
  /** clrscope wrote the file. */
  ours: boolean;
  /** The exporter without the mark, for clrscope's files. */
  source: string;
  approximateCpu: boolean;
}

export function parseExporter(exporter: unknown): ExporterIdentity {
  if (typeof exporter !== 'string' || !exporter.startsWith(CLRSCOPE_EXPORTER)) return { ours: false, source: '', approximateCpu: false };
  const approximateCpu = exporter.endsWith(ESTIMATED_CPU_MARK);
  return { ours: true, source: approximateCpu ? exporter.slice(0, -ESTIMATED_CPU_MARK.length) : exporter, approximateCpu };
}
