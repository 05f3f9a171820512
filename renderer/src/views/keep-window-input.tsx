// "Keep in the views: last N min" for a new session (Launch, Attach) and for the shown one: on a
// long session the page's worker then lets older data go, so its memory stays bounded. The
// session's stream keeps everything, so saves and exports still write the whole recording.

import type { ReactElement } from 'react';
import { MAX_KEEP_MINUTES } from '../../../structs/api/contract.js';

/** What a kept window says wherever it is shown: "last 10 min kept". */
export function keptWindowCaption(minutes: number): string {
  return `last ${minutes} min kept`;
}

export const KEPT_WINDOW_NOTE = 'The views show only the last minutes of this recording and let older data go, so a long session does not fill the page\'s memory. The recording itself keeps everything: Save and Export write all of it.';

interface Props {
  /** null: the whole recording. */
  minutes: number | null;
  onChange(minutes: number | null): void;
  testId: string;
}

/** A check box "keep only the last" and its minutes, for the form that starts a session. */
export function KeepWindowInput({ minutes, onChange, testId }: Props): ReactElement {
  const on = minutes !== null;
  return (
    <label className="check" title={KEPT_WINDOW_NOTE}>
      <input type="checkbox" checked={on} onChange={(e) => onChange(e.target.checked ? 10 : null)} data-testid={`${testId}-on`} />
      keep only the last
      <input
        type="number" min={1} max={MAX_KEEP_MINUTES} value={minutes ?? 10} disabled={!on} className="narrow" data-testid={`${testId}-minutes`}
        onChange={(e) => onChange(Math.min(MAX_KEEP_MINUTES, Math.max(1, Math.round(Number(e.target.value)) || 10)))}
      />
      min in the views
    </label>
  );
}

const CHOICES = [1, 5, 10, 30, 60];

/** The shown session's window, changeable while it records or after: the views read its stream again. */
export function KeepWindowSelect({ minutes, onChange, testId }: Props): ReactElement {
  const choices = minutes === null || CHOICES.includes(minutes) ? CHOICES : [...CHOICES, minutes].sort((a, b) => a - b);
  return (
    <select
      className="keep-window" value={minutes ?? ''} title={KEPT_WINDOW_NOTE} aria-label="What the views keep" data-testid={testId}
      onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}
    >
      <option value="">whole recording in the views</option>
      {choices.map((m) => <option key={m} value={m}>{keptWindowCaption(m)}</option>)}
    </select>
  );
}
